#!/bin/bash
# The JSON helpers every suite leans on fail where they must: on no
# document, on two, on text that is not JSON, on a filter that does not
# hold.  If they passed on empty output, every JSON check would.
. "$(dirname "$0")/lib.sh"

# helper_on NAME INPUT HELPER ARGS...: OUT is INPUT, then HELPER runs.
helper_on() {
	OUT=$2
	RC=0
	shift 2
	"$@"
}
fails() { ! helper_on "$@"; }

check ok-one-document helper_on one '{"x": 1}' json_ok '.x == 1'
check ok-default-filter helper_on default '{"x": 1}' json_ok
check ok-empty-fails fails empty '' json_ok '.x == 1'
check ok-empty-fails-default fails empty '' json_ok
check ok-blank-fails fails blank $'\n  \n' json_ok '.'
check ok-two-documents-fail fails two $'{"x": 2}\n{"x": 1}' json_ok '.x == 1'
check ok-two-documents-fail-first fails two $'{"x": 1}\n{"x": 2}' json_ok '.x == 1'
check ok-not-json-fails fails text 'x = 1' json_ok '.'
check ok-truncated-fails fails cut '{"x": 1' json_ok '.x == 1'
check ok-false-filter-fails fails false '{"x": 2}' json_ok '.x == 1'
check ok-null-filter-fails fails null '{"x": 2}' json_ok '.y'

e='{"error": {"code": 2, "message": "bad"}}'
check error-one-document helper_on one "$e" json_error 2 bad
check error-empty-fails fails empty '' json_error 2 bad
check error-two-documents-fail fails two "$e"$'\n'"$e" json_error 2 bad
check error-wrong-code-fails fails code "$e" json_error 1 bad
check error-extra-key-fails fails extra '{"error": {"code": 2, "message": "bad", "x": 1}}' json_error 2 bad
check error-errno helper_on errno '{"error": {"code": 2, "message": "bad", "errno": "ENOENT"}}' \
	json_error 2 bad ENOENT

# The options before the filter are jq's.
check one-args bash -c '. "$0/tests/tools/json-one.sh"; json_one --arg v 1 ".x == \$v" <<<"{\"x\": \"1\"}"' "$TOP"
check one-args-empty-fails bash -c '. "$0/tests/tools/json-one.sh"; ! json_one --arg v 1 ".x == \$v" </dev/null' "$TOP"
finish
