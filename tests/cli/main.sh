#!/bin/bash
# The command table, options, exit codes and messages (no RDMA needed).
. "$(dirname "$0")/lib.sh"

run nosuch
check unknown-command-exits-2 rc_is 2
check unknown-command-one-line err_one_line
check unknown-command-lists-commands err_has "Unknown command 'nosuch'. Commands: devices"

run devcies
check misspelt-command-suggests err_has "Unknown command 'devcies'. Did you mean 'devices'\?"

run
check no-command-exits-2 rc_is 2
check no-command-prints-usage err_has "^Usage: rdmactl"

run --help
check help-exits-0 rc_is 0
check help-lists-devices out_has "^  devices +list RDMA devices"

run help devices
check help-cmd-usage out_has "^Usage: rdmactl devices"
run devices -h
check cmd-h-usage out_has "^Usage: rdmactl devices"
run help nosuch
check help-unknown-exits-2 rc_is 2

run -V
check version out_has "^rdmactl [0-9]+\.[0-9]+"
run -j version
check version-json json_ok '.version | test("^[0-9]")'

run devices --frobnicate
check unknown-option-exits-2 rc_is 2
check unknown-option-named err_has "unknown option '--frobnicate'"
run devices --jsno
check option-suggestion err_has "Did you mean '--json'\?"
run --color=purple devices
check bad-color-exits-2 rc_is 2
check bad-color-named err_has "invalid --color value 'purple'"
run completion bash --color=sometimes
check bad-choice-after-command err_has "invalid --color value 'sometimes': use auto, always or never"
run --color
check color-needs-argument err_has "option '--color' needs an argument"
run devices a b
check too-many-args-exits-2 rc_is 2
check too-many-args-named err_has "unexpected argument 'b'"

run --root /nonexistent devices
check bad-root-exits-2 rc_is 2
check bad-root-named err_is "rdmactl: Failed to use --root '/nonexistent': No such file or directory; give the directory a snapshot was unpacked into"
RC=0; OUT=$(RDMACTL_ROOT=/nonexistent "$RDMACTL" devices 2>&1) || RC=$?
check bad-root-env-exits-2 rc_is 2

run completion tcsh
check completion-bad-shell rc_is 2
check completion-bad-shell-named err_has "unknown shell 'tcsh'"

finish
