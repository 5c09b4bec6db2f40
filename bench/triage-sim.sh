#!/bin/bash
# The cluster probe's patterns side by side where there are no 1 000
# nodes: pairs (the full matrix, the reference), quick and triage run
# through the probe's own schedule, retests and findings on a model of a
# fabric (lib/mesh/simfabric.h), 20 seeded fault mixes for each size:
# each mix has slow, one-way slow and blocked nodes (at most about 1% of
# the nodes), slow rails, one to three slow links and a node that dies
# mid-run.  Printed for each: the steps (the most over the mixes, the
# schedule's + the retests'), their time at 3 s a step, the node faults
# found (slow, one-way, blocked, dying, slow rail), the slow links found
# and those no test crossed, and the healthy nodes and links named.
#
# Two tables: the worst noise (+-25%) at the default --slow 0.8, where
# healthy links fall under the line now and then, and at --slow 0.65,
# the line between healthy links at -25% and slow ones at +25%.  pairs at
# 1 000 nodes holds 4 million results a mix (about 14 s and 0.8 GB each):
# it runs PAIRS_1000_MIXES mixes (default 2; all 20 found all 176 node
# faults and named no healthy node, as at the smaller sizes).  BUILD=DIR
# picks the build.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
SIM=$BUILD/bench/triage-sim
if [ ! -x "$SIM" ]; then
	echo "triage-sim: $SIM not built (make unit or make bench)"
	exit 1
fi
for slow in 0.8 0.65; do
	echo "== --slow $slow"
	"$SIM" --noise 0.25 --slow "$slow" --seeds 20 -n 16,64,256 || exit 1
	"$SIM" --noise 0.25 --slow "$slow" --seeds 20 -n 1000 -p quick,triage | tail -n +4 || exit 1
	"$SIM" --noise 0.25 --slow "$slow" --seeds "${PAIRS_1000_MIXES:-2}" -n 1000 -p pairs |
		tail -n +4 || exit 1
	echo
done
echo "== noise drawn from 10 to 25% a mix, --slow 0.8, 1 000 nodes"
"$SIM" --slow 0.8 --seeds 20 -n 1000 -p quick,triage || exit 1
# With a switch tree: a two-tier Clos of leaves of 32 nodes under 4
# spines (ECMP over them), uplink and leaf faults besides the node
# faults, probe -w --topology's triage and switch findings; 4 096 nodes
# take a few minutes of CPU.
echo
echo "== a Clos, noise drawn from 10 to 25% a mix, then 25%"
"$SIM" --clos 32 --seeds 20 -n 1024,4096 -p triage || exit 1
"$SIM" --clos 32 --noise 0.25 --seeds 20 -n 1024,4096 -p triage | tail -n +5 || exit 1
# Both at once: a slow node under each slow uplink's leaf too, named
# beside the uplink (the nodes column counts them).
echo
echo "== the same with a slow node under each slow uplink's leaf (--mixed), 25% noise"
"$SIM" --clos 32 --mixed --noise 0.25 --seeds 20 -n 1024,4096 -p triage || exit 1
exit 0
