#!/bin/bash
# `make demo`: boot four lab guests with Slurm and stream, live, what the
# demo-*.sh scripts do in them: a pair, then the cluster with one node made
# wrong.  Extra arguments go to the harness (e.g. --bin DIR).  The run's
# logs, and the cluster's HTML report, go to build/demo (or --out DIR): a
# path that stays the same from run to run, printed at the end; nothing is
# opened.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
out=$here/../../build/demo
args=("$@")
while (($#)); do
	[[ $1 == --out && $# -ge 2 ]] && out=$2 && shift
	shift
done
mkdir -p "$out" && out=$(cd "$out" && pwd -P) || exit 2
# A report left by an earlier run is not this run's.
rm -f "$out/report.html" "$out/doctor.json" "$out/probe.json"
# srun is the launcher of the cluster part: Slurm alone, no sshd, costs
# the emulated guests the least boot time.
"$here/lab" --guests 4 --needs slurm --show --out "$out" "${args[@]}" "$here"/demo-*.sh
rc=$?
# The guests wrote the report into their test's share, which the harness
# copied to the run's share/ when it ended.
for share in "$out"/share/*-demo-rdmactl; do :; done
if [[ -f $share/report.html ]]; then
	cp "$share/report.html" "$share/doctor.json" "$share/probe.json" "$out/" || exit 1
	echo
	echo "The cluster's report, one HTML page for a browser: $out/report.html"
	echo "(from $out/doctor.json and $out/probe.json)"
fi
exit "$rc"
