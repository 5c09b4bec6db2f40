# shellcheck shell=bash
# json_one [JQ-OPTION...] FILTER: standard input is exactly one JSON
# document, and FILTER, run on it, ends with a true value.  Empty input,
# two documents or text that is not JSON fail.  jq -e alone cannot say
# so: Debian 12's jq 1.6 exits 0 on empty input whatever the filter, and
# with two documents only the last decides.  Slurping them into one array
# and asking for exactly one element closes both holes, in jq 1.6 and
# gojq alike.  The options before FILTER (--arg, --argjson) are jq's.
json_one() {
	local opts=("${@:1:$#-1}") filter=${!#}
	jq -es "${opts[@]}" "if length == 1 then .[0] | ($filter) else false end" >/dev/null 2>&1
}
