#!/bin/bash
# The examples of README.md, the man pages and doc/ (those that read a
# recorded node) replayed against RDMACTL: a changed column fails here
# until `tests/self/readme-examples --update` has rewritten them from a run.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The TCP probe examples paced as in tests/cli/lib.sh (their figures are
# not compared): not two cores flat out for their seconds.
export RDMACTL_PROBE_TCP_PACE=2000
exec python3 "$TOP/tests/self/readme-examples"
