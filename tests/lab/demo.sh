#!/bin/bash
# `make demo`: boot two lab guests and stream, live, what the demo-*.sh
# scripts do in them. Extra arguments go to the harness (e.g. --bin DIR).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
exec "$here/lab" --guests 2 --show "$@" "$here"/demo-*.sh
