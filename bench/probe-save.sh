#!/bin/bash
# What probe -w --save and --from cost at 1 000 nodes (bench/probe-save.c):
# one checkpoint of a triage run and of a full matrix, the spacing it
# leaves between checkpoints against steps of 3 s, and the read back of
# --from.  BUILD=DIR picks the build; DIR (argument) where the documents
# are written (default $TMPDIR or /tmp; a full matrix's is 180 MB).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
BENCH=$BUILD/bench/probe-save
if [ ! -x "$BENCH" ]; then
	echo "probe-save: $BENCH not built (make unit or make bench)"
	exit 1
fi
exec "$BENCH" "$@"
