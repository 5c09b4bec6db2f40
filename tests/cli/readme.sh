#!/bin/bash
# The README's examples that run on fixtures, replayed against RDMACTL: a
# changed column fails here until `tests/readme-examples --update` has
# rewritten the README from a real run.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec python3 "$TOP/tests/readme-examples"
