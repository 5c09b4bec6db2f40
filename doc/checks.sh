#!/bin/sh
# Writes doc/checks.md, the doctor's check reference, from the table
# `rdmactl doctor --list` prints (lib/doctor/doctor.c, doctor_checks[]):
#   doc/checks.sh [RDMACTL] >doc/checks.md
# tests/cli/checks-doc.sh fails when the page is not what this writes.
set -e
rdmactl=${1:-build/rdmactl}
"$rdmactl" -j doctor --list | jq -r '
"# The doctor'"'"'s checks

Made by `doc/checks.sh` from the table `rdmactl doctor --list` prints; do
not edit by hand. Each check, in the order the doctor runs them: what it
reads, what fails or warns it, and the usual fix. A run prints the exact
fix for its node under each check that is not ok; rdmactl-doctor(8),
CHECKS, holds every rule. Select checks with `--only` and `--skip` (a
group name, such as `memlock`, names each `memlock.*`).
",
(.checks[] | "## \(.id)

\(.description).

- **Reads:** \(.reads).
- **Fails or warns:** \(.fails).
- **Fix:** \(.fix).
")'
