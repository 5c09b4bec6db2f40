#!/bin/bash
# The shipped alert rules (contrib/prometheus/rdmactl-alerts.yml) evaluated
# by `promtool test rules`, on series made at test time from what
# `rdmactl doctor --metrics` prints for the fixtures, with the labels a
# scrape adds (instance, job, and a target label of the operator's):
#
#   fleet          each doctor fixture a node: RdmactlCheckFailed fires for
#                  each check the doctor's JSON says failed, on that node,
#                  and RdmactlMtuBelowNetdev for each port whose active MTU
#                  `rdmactl -j ports` says is below its largest; neither
#                  before its for:
#   healthy        doctor-healthy alone for an hour, its textfile fresh:
#                  no alert at all
#   packet-loss    doctor-healthy as two nodes, one with a retransmission,
#                  a sequence-error and a congestion counter bumped in its
#                  hw_counters between two runs: RdmactlPacketLoss for the
#                  two loss counters of that node, with the counter's name
#   metrics-stale  node_exporter's node_textfile_mtime_seconds for the
#                  file the doctor's unit writes: a node whose timer
#                  stopped alerts once its file is 15 minutes old and its
#                  for: has passed, the file named as node_exporter 1.3
#                  and later do (its path) and as older ones do (its
#                  name); a fresh node does not, nor an old textfile of
#                  someone else's
#   metrics-absent node_exporter's textfile collector on every node
#                  (node_textfile_scrape_error): a node where rdmactl.prom
#                  never appeared alerts after the rule's for:, with the
#                  target's labels, though another textfile is there; a
#                  node whose first run came 5 minutes after its
#                  node_exporter does not, nor one without the collector
#
# What each alert must say is the rule's own annotation, filled with the
# labels the alert must carry (from the doctor's JSON, the ports' JSON, the
# counters bumped, the unit's path), not with those promtool found on it:
# a template naming a label the alert lacks, which Prometheus renders
# empty, fails annotation-labels and the group's own test.  Every alert of the
# file must fire in some group (every-alert-fires).
#
# RULES=FILE evaluates another rules file (a deliberately broken one shows
# each check failing).
# shellcheck disable=SC2317 # the groups' functions are called through group()
AREA=prom
. "$(dirname "$0")/../cli/lib.sh"
RULES=$(realpath "${RULES:-$TOP/contrib/prometheus/rdmactl-alerts.yml}")
UNIT=$TOP/contrib/systemd/rdmactl-doctor.service
# What a scrape adds besides instance: the job, and a target label of the
# operator's that alerts are routed by.
TARGET='job="node",cluster="c1"'
TARGET_JSON='{"job":"node","cluster":"c1"}'

# CI must have every tool (tests/run-all says the same of a missing suite).
need() {
	command -v "$1" >/dev/null && return 0
	if [ "${CI:-}" = true ]; then
		echo "FAIL $AREA/$SUITE: $1 not installed (Debian package $2; CI must have it)"
		exit 1
	fi
	echo "SKIP $AREA/$SUITE: $1 not installed (Debian package $2)"
	exit 0
}
need promtool prometheus
need gojq gojq

# scraped INSTANCE: stdin is a textfile of metrics; one line per sample out,
# "SERIES<TAB>VALUE", SERIES with the labels Prometheus gives it when it
# scrapes INSTANCE.  (The exposition's label escapes are PromQL's.)
scraped() {
	local line ser val
	while IFS= read -r line; do
		case $line in '#'* | '') continue ;; esac
		val=${line##* } ser=${line% *}
		case $ser in
		*'{}') ser="${ser%\{\}}{instance=\"$1\",$TARGET}" ;;
		*'}') ser="${ser%\}},instance=\"$1\",$TARGET}" ;;
		*) ser="$ser{instance=\"$1\",$TARGET}" ;;
		esac
		printf '%s\t%s\n' "$ser" "$val"
	done
}

# metrics ROOT INSTANCE: the doctor's metrics of the tree ROOT, scraped.
# (The doctor exits 1 on a failed check, which its metrics carry.)
metrics() {
	local out rc=0
	out=$("$RDMACTL" --root "$1" doctor --metrics 2>/dev/null) || rc=$?
	if [ "$rc" -gt 1 ] || [ -z "$out" ]; then
		echo "doctor --metrics of $1 exited $rc, with ${#out} bytes of metrics" >&2
		return 1
	fi
	scraped "$2" <<<"$out"
}

# steady SAMPLES MINUTES: JSON input_series, each sample's value held for
# MINUTES minutes.
steady() {
	jq -Rn --argjson n "$2" '[inputs | split("\t") | {series: .[0], values: "\(.[1])+0x\($n)"}]' <<<"$1"
}

# growing BEFORE AFTER MINUTES: JSON input_series from two runs of the same
# node, each series growing every minute by what it grew between them.
growing() {
	jq -n --rawfile a <(echo "$1") --rawfile b <(echo "$2") --argjson n "$3" '
		def samples: split("\n") | map(select(. != "") | split("\t") | {(.[0]): .[1]}) | add;
		($b | samples) as $after
		| [$a | samples | to_entries[] | {series: .key, values:
			(if .value == $after[.key] then "\(.value)+0x\($n)"
			 else "\(.value)+\(($after[.key] | tonumber) - (.value | tonumber))x\($n)" end)}]'
}

# textfile_mtime INSTANCE FILE LAST [MINUTES]: node_exporter's mtime of
# FILE on INSTANCE, as the doctor's timer rewrites it every 5 minutes until
# minute LAST, and no more; for MINUTES minutes (40).
textfile_mtime() {
	local t values=""
	for t in $(seq 0 "${4:-40}"); do
		# The minute of its last run, in seconds.
		values+=" $(((t < $3 ? t : $3) / 5 * 5 * 60))"
	done
	jq -n --arg s "node_textfile_mtime_seconds{file=\"$2\",instance=\"$1\",$TARGET}" --arg v "${values# }" \
		'[{series: $s, values: $v}]'
}

# collector INSTANCE [MINUTES]: node_exporter's textfile collector on
# INSTANCE (its node_textfile_scrape_error, 0: it read the directory) for
# MINUTES minutes (40).
collector() {
	jq -n --arg s "node_textfile_scrape_error{instance=\"$1\",$TARGET}" --arg v "0+0x${2:-40}" \
		'[{series: $s, values: $v}]'
}

# json_of ROOT CMD...: `rdmactl --root ROOT -j CMD...`'s document, which
# must be exactly one.
json_of() {
	local root=$1 out
	shift
	out=$("$RDMACTL" --root "$root" -j "$@" 2>/dev/null)
	if ! json_one . <<<"$out"; then
		echo "rdmactl -j $* of $root printed no one JSON document" >&2
		return 1
	fi
	printf '%s\n' "$out"
}

# failed_checks ROOT INSTANCE: the alerts RdmactlCheckFailed owes ROOT's
# node after its for:, from the doctor's JSON.
failed_checks() {
	local out
	out=$(json_of "$1" doctor) || return 1
	jq --arg i "$2" --argjson t "$TARGET_JSON" '[.checks[] | select(.status | ascii_downcase == "fail")
		| {alertname: "RdmactlCheckFailed", eval_time: "11m",
		   labels: ({check: .id, status: "fail", instance: $i} + $t)}]' <<<"$out"
}

# low_mtu_ports ROOT INSTANCE: the alerts RdmactlMtuBelowNetdev owes, from
# `rdmactl -j ports`: each port whose active MTU is below its largest (a
# node without devices has no port to alert on).
low_mtu_ports() {
	local out
	out=$(json_of "$1" ports) || return 1
	jq --arg i "$2" --argjson t "$TARGET_JSON" '
		if .ports then [.ports[] | select(.active_mtu < .max_mtu)
			| {alertname: "RdmactlMtuBelowNetdev", eval_time: "11m", value: (.active_mtu | tostring),
			   labels: ({device, port: (.port | tostring), instance: $i} + $t)}]
		elif .error.code == 1 then [] else error("not a ports document") end' <<<"$out"
}

# test_file GROUP NAME: the promtool test file of a group, whose spec
# {input_series, evals, expect} is GROUP: every alert of the rules at every
# eval time, firing exactly as expect says, each with the rule's labels and
# its annotations filled from the expected labels.
test_file() {
	jq --slurpfile rules "$TMPD/rules.json" --arg file "$RULES" --arg name "$2" '
		$rules[0] as $r
		| def rule($n): [$r.groups[].rules[] | select(.alert == $n)][0];
		  def render($l; $v): gsub("\\{\\{ *\\$labels\\.(?<n>[A-Za-z_][A-Za-z0-9_]*) *\\}\\}"; $l[.n] // "<no label \(.n)>")
			| gsub("\\{\\{ *\\$value *\\}\\}"; $v // "<no value>");
		. as $g
		| {rule_files: [$file], evaluation_interval: "1m",
		   tests: [{name: $name, interval: "1m", input_series: $g.input_series,
			alert_rule_test: [$g.evals[] as $t | $r.groups[].rules[] | select(.alert) | .alert as $n
				| {eval_time: $t, alertname: $n, exp_alerts: [$g.expect[]
					| select(.alertname == $n and .eval_time == $t) | . as $e
					| (.labels + (rule($n).labels // {})) as $l
					| {exp_labels: $l,
					   exp_annotations: ((rule($n).annotations // {}) | map_values(render($l; $e.value)))}]}]}]}' \
		"$1"
}

# group NAME FUNC: FUNC writes the spec of the group NAME; its test file
# passes promtool.
group() {
	local spec=$TMPD/$1.spec
	RC=0
	"$2" >"$spec" 2>"$TMPD/$1.err" && test_file "$spec" "$1" >"$TMPD/$1.json" 2>>"$TMPD/$1.err" || RC=$?
	if [ $RC -ne 0 ]; then
		OUT='' ERR=$(cat "$TMPD/$1.err")
		echo '{}' >"$spec"
		fail "$1" "its series or what it expects could not be made"
		return
	fi
	OUT=$(cd "$TMPD" && promtool test rules "$1.json" 2>&1) || RC=$?
	ERR=''
	if [ $RC -eq 0 ]; then pass "$1"; else fail "$1" "promtool test rules failed"; fi
}

RC=0
OUT=$(promtool check rules "$RULES" 2>&1) || RC=$?
ERR=''
check rules-syntax rc_is 0
if ! gojq --yaml-input . "$RULES" >"$TMPD/rules.json" 2>"$TMPD/err"; then
	RC=1 ERR=$(cat "$TMPD/err")
	fail rules-yaml "gojq could not read $RULES"
	finish
fi

# ---- fleet: every doctor fixture a node ----
fleet() {
	local f i series="" expect='[]' e
	for f in "$FIXTURES"/doctor-*; do
		i="$(basename "$f"):9100"
		series+=$(metrics "$f" "$i")$'\n' || return 1
		e=$(failed_checks "$f" "$i") && expect=$(jq -n --argjson a "$expect" --argjson b "$e" '$a + $b') || return 1
		e=$(low_mtu_ports "$f" "$i") && expect=$(jq -n --argjson a "$expect" --argjson b "$e" '$a + $b') || return 1
	done
	jq -n --argjson s "$(steady "${series%$'\n'}" 30)" --argjson e "$expect" \
		'{input_series: $s, evals: ["9m", "11m"], expect: $e}'
}
group fleet fleet

# ---- healthy: nothing, for an hour ----
HEALTHY=$FIXTURES/doctor-healthy
# The unit's -o, its ${RDMACTL_TEXTFILE_DIR} the unit's default.
TEXTFILE_DIR=$(sed -n 's/^Environment=RDMACTL_TEXTFILE_DIR=//p' "$UNIT")
TEXTFILE=$(sed -n 's/^ExecStart=.* -o \([^ ]*\).*/\1/p' "$UNIT")
TEXTFILE=${TEXTFILE//'${RDMACTL_TEXTFILE_DIR}'/$TEXTFILE_DIR}
healthy() {
	local s
	s=$(metrics "$HEALTHY" healthy:9100) || return 1
	jq -n --argjson s "$(steady "$s" 60)" --argjson m "$(textfile_mtime healthy:9100 "$TEXTFILE" 60 60)" \
		--argjson c "$(collector healthy:9100 60)" \
		'{input_series: ($s + $m + $c), evals: ["11m", "19m", "34m", "59m"], expect: []}'
}
check textfile-path [ "$TEXTFILE" = /var/lib/prometheus/node-exporter/rdmactl.prom ]
group healthy healthy

# ---- packet-loss: one node's counters grow ----
# bump NAME BY: a counter of the copy's mlx5_0 port 1 grows by BY.
LOSSY=$TMPD/lossy
bump() {
	local c=$LOSSY/sys/class/infiniband/mlx5_0/ports/1/hw_counters/$1
	echo $(($(cat "$c") + $2)) >"$c"
}
packet_loss() {
	local before after steady_node
	cp -r "$HEALTHY" "$LOSSY" || return 1
	before=$(metrics "$LOSSY" lossy:9100) || return 1
	bump local_ack_timeout_err 5 && bump out_of_sequence 2 && bump np_cnp_sent 40 || return 1
	after=$(metrics "$LOSSY" lossy:9100) || return 1
	steady_node=$(metrics "$HEALTHY" steady:9100) || return 1
	# Congestion notifications (np_cnp_sent) are not loss: no alert.
	jq -n --argjson a "$(growing "$before" "$after" 40)" --argjson b "$(steady "$steady_node" 40)" \
		--argjson t "$TARGET_JSON" '
		{input_series: ($a + $b), evals: ["10m", "20m"],
		 expect: [("local_ack_timeout_err", "out_of_sequence")
			| {alertname: "RdmactlPacketLoss", eval_time: "20m",
			   labels: ({device: "mlx5_0", port: "1", counter: ., instance: "lossy:9100"} + $t)}]}'
}
group packet-loss packet_loss

# ---- metrics-stale: a timer stopped at minute 10 ----
# Its file is over 15 minutes old from minute 26, and the rule's for:
# (10m) has passed at 36.
stale() {
	local dir=${TEXTFILE%/*} i collectors='[]'
	for i in fresh stopped old-exporter; do
		collectors=$(jq -n --argjson a "$collectors" --argjson b "$(collector $i:9100)" '$a + $b') || return 1
	done
	jq -n --argjson a "$(textfile_mtime fresh:9100 "$TEXTFILE" 40)" \
		--argjson b "$(textfile_mtime fresh:9100 "$dir/apt.prom" 0)" \
		--argjson c "$(textfile_mtime stopped:9100 "$TEXTFILE" 10)" \
		--argjson d "$(textfile_mtime old-exporter:9100 "${TEXTFILE##*/}" 10)" \
		--argjson e "$collectors" \
		--arg path "$TEXTFILE" --arg name "${TEXTFILE##*/}" --argjson t "$TARGET_JSON" '
		{input_series: ($a + $b + $c + $d + $e), evals: ["20m", "30m", "37m"],
		 expect: [{file: $path, instance: "stopped:9100"}, {file: $name, instance: "old-exporter:9100"}
			| {alertname: "RdmactlMetricsStale", eval_time: "37m", labels: (. + $t)}]}'
}
group metrics-stale stale

# ---- metrics-absent: node_exporter there, rdmactl.prom never ----
# "never" has someone else's textfile and no rdmactl.prom: the alert from
# minute 10 (its for:).  "late" got its first rdmactl.prom at minute 5
# (series values "_": no sample), "written" at once; "bare" has no
# textfile collector to tell anything.
absent() {
	local dir=${TEXTFILE%/*} late
	late=$(jq -n --arg s "node_textfile_mtime_seconds{file=\"$TEXTFILE\",instance=\"late:9100\",$TARGET}" \
		'[{series: $s, values: "_x4 300+0x35"}]') || return 1
	jq -n --argjson a "$(collector never:9100)" --argjson b "$(textfile_mtime never:9100 "$dir/apt.prom" 40)" \
		--argjson c "$(collector late:9100)" --argjson d "$late" \
		--argjson e "$(collector written:9100)" --argjson f "$(textfile_mtime written:9100 "$TEXTFILE" 40)" \
		--arg up "up{instance=\"bare:9100\",$TARGET}" --argjson t "$TARGET_JSON" '
		{input_series: ($a + $b + $c + $d + $e + $f + [{series: $up, values: "1+0x40"}]),
		 evals: ["9m", "11m", "30m"],
		 expect: ["11m", "30m"] | map({alertname: "RdmactlMetricsStale", eval_time: .,
			labels: ({instance: "never:9100"} + $t)})}'
}
group metrics-absent absent

# ---- every alert: a summary, a description and its runbook ----
# runbook_url is a section of doc/alerts.md as the packages install it:
# file:///usr/share/doc/rdmactl/doc/alerts.md#ANCHOR, ANCHOR a heading of
# that page as Markdown renderers make it (lowercase).
RC=0
OUT=$(jq -r --rawfile page "$TOP/doc/alerts.md" '
	[$page | split("\n")[] | select(startswith("## ")) | .[3:] | ascii_downcase] as $anchors
	| .groups[].rules[] | select(.alert) | .alert as $n | .annotations // {}
	| (("summary", "description", "runbook_url") as $k | select((.[$k] // "") == "") | "\($n): no \($k)"),
	  (.runbook_url // "" | select(. != "") | capture("^file:///usr/share/doc/rdmactl/doc/alerts\\.md#(?<a>.+)$")? // {a: null}
	   | select(.a == null or (.a as $a | $anchors | index($a) | not))
	   | "\($n): its runbook_url is no section of doc/alerts.md")' "$TMPD/rules.json" 2>&1)
ERR=''
check every-alert-documented [ -z "$OUT" ]

# ---- what every group expects, against the rules ----
RC=0
OUT=$(jq -rs --slurpfile rules "$TMPD/rules.json" '
	[.[].expect // [] | .[]] as $all
	| $rules[0].groups[].rules[] | select(.alert) | .alert as $n
	| select([$all[] | select(.alertname == $n)] == []) | "\($n) fires in no group"' \
	"$TMPD"/*.spec 2>&1)
check every-alert-fires [ -z "$OUT" ]
OUT=$(jq -rs --slurpfile rules "$TMPD/rules.json" '
	[.[].expect // [] | .[]] as $all
	| $rules[0].groups[].rules[] | select(.alert) | . as $r
	| $all[] | select(.alertname == $r.alert) | (.labels + ($r.labels // {})) as $l
	| ($r.annotations // {}) | to_entries[]
	| .key as $k | .value | [scan("\\$labels\\.([A-Za-z_][A-Za-z0-9_]*)")[0]] | unique[]
	| select($l[.] == null)
	| "\($r.alert): its \($k) names the label \(.), which its alert for \($l.instance) lacks"' \
	"$TMPD"/*.spec 2>&1)
check annotation-labels [ -z "$OUT" ]
finish
