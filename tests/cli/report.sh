#!/bin/bash
# rdmactl report and --html: the page of saved doctor -w and probe -w runs
# (a generated four-node probe run with a hostile node name, a doctor
# report of recorded nodes, one of them hostile), what it holds, that no
# byte from a node reaches it as markup, and every kind of bad input.
# (The page in a browser: tests/browser/report.sh.)
. "$(dirname "$0")/lib.sh"
GEN=${GEN:-$(dirname "$RDMACTL")/tests/gen-probe-run}
unset NCCL_IB_HCA NCCL_SOCKET_IFNAME UCX_NET_DEVICES SLURM_JOB_NODELIST SLURM_JOB_ID RDMACTL_LAUNCHER
ESC=$(printf '\033')

# ---- the runs ----
"$GEN" --letters --slow lab-c --blocked lab-d --hostile lab- 4 >"$TMPD/probe.json"
"$TOP/tests/tools/hostile-tree" escapes "$TMPD/escapes"
doc() { "$RDMACTL" -j --root "$1" doctor || [ $? -eq 1 ]; }
doc "$FIXTURES/doctor-healthy" >"$TMPD/ok.json"
doc "$FIXTURES/doctor-broken" >"$TMPD/broken.json"
doc "$TMPD/escapes" >"$TMPD/escapes.json"
{
	sed 's/^/lab-a: /' "$TMPD/ok.json"
	sed 's/^/lab-b: /' "$TMPD/escapes.json"
	sed 's/^/lab-c: /' "$TMPD/broken.json"
	echo "lab-f: ssh: Could not resolve hostname lab-f: Name or service not known"
	echo "pdsh@login: lab-f: ssh exited with exit code 255"
} >"$TMPD/pdsh.out"
"$RDMACTL" -j doctor --gathered "$TMPD/pdsh.out" >"$TMPD/doctor.json" || [ $? -eq 1 ]

page() { OUT=$(cat "$TMPD/r.html"); }
has() { grep -qF -- "$1" <<<"$OUT"; }
# no_markup_from_nodes: the hostile name and firmware only as escaped text.
no_markup_from_nodes() {
	! grep -qF '<img' <<<"$OUT" && ! grep -q "[$ESC$(printf '\a')]" <<<"$OUT" &&
		has 'n&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;\x1b]0;pwned\x07'
}
# self_contained: nothing in the page names a place to fetch from.
self_contained() {
	! grep -qiE 'https?:|<[a-z]+( [a-z-]+="[^"]*")* (src|href|action)=|<link|@import|url\(' <<<"$OUT"
}
# cells CLASS: how many cells of the probe's tables have CLASS (first of their classes).
cells() { grep -o "<td class=\"$1[ \"]" <<<"$OUT" | wc -l; }

run report -o "$TMPD/r.html" "$TMPD/probe.json" "$TMPD/doctor.json"
check both-rc rc_is 0
check both-said out_has "^Wrote $TMPD/r.html: 1 doctor -w run\(s\), 1 probe -w run\(s\)$"
page
check both-sections bash -c '[ "$(grep -c "<section class=\"\(doctor\|probe\)\"" <<<"$1")" = 2 ]' _ "$OUT"
check csp has "content=\"default-src 'none'; style-src 'sha256-"
check self-contained self_contained
check no-markup-from-nodes no_markup_from_nodes
check probe-facts has '<dt>launcher</dt><dd>srun</dd>'
check probe-findings has '<li class="fail"><b>FAIL</b> slow_node: lab-c is slow'
# 4 x 4 cells twice (bandwidth, latency): lab-d blocked, lab-c slow, the rest at the median.
check cells-self bash -c '[ "$1" = 8 ]' _ "$(cells self)"
check cells-failed bash -c '[ "$1" = 12 ]' _ "$(cells fail)"
check cells-slow bash -c '[ "$1" = 4 ]' _ "$(grep -c 'class="q[0-9] slow' <<<"$OUT")"
check cells-ok bash -c '[ "$1" = 4 ]' _ "$(grep -o '<td class="q9"' <<<"$OUT" | wc -l)"
check cell-title has 'title="lab-c &#8594; lab-a: 2'
check doctor-grid has '<td class="st-fail" title="ports: FAIL'
check doctor-unreachable has '<tr class="unreach"><th>lab-f</th><td class="st-unreach" colspan="18">unreachable: '
check doctor-drift has '<h3>Drift: facts that differ from the majority</h3>'
check doctor-fix has '<td class="fix">ip link set eth0 up</td>'

run report -o - "$TMPD/probe.json"
check stdout-rc rc_is 0
check stdout-page out_has '^<!DOCTYPE html>'
run -j report -o "$TMPD/j.html" "$TMPD/doctor.json"
check json-rc rc_is 0
check json-doc json_ok '.file != null and .doctor_runs == 1 and .probe_runs == 0'
# A pretty document, and one from standard input.
jq . "$TMPD/probe.json" >"$TMPD/pretty.json"
RC=0; OUT=$("$RDMACTL" report -o - - <"$TMPD/pretty.json" 2>&1) || RC=$?
check stdin-pretty-rc rc_is 0
check stdin-pretty out_has 'slow_node: lab-c is slow'

# ---- bad input: one line naming it, exit 2, no page left ----
printf '{"links": [{"client": "a", "server": "b"}, {"server": "c"}], "findings": []}' >"$TMPD/noclient.json"
printf '{"run": {"nodes": 4}, "links": [' >"$TMPD/cut.json"
fails_with no-output 2 "rdmactl report: missing --output FILE. Usage: rdmactl report -o FILE.html RUN.json..." \
	report "$TMPD/probe.json"
fails_with missing-file 2 "rdmactl report: Failed to read '$TMPD/none.json': No such file or directory" \
	report -o "$TMPD/n1.html" "$TMPD/none.json"
fails_with not-a-run 2 "rdmactl report: Failed to read '$TMPD/ok.json': not the JSON of 'rdmactl -j doctor -w' or 'rdmactl -j probe -w' (no \"checks\" and \"nodes\", no \"links\" and \"findings\")" \
	report -o "$TMPD/n2.html" "$TMPD/ok.json"
fails_with no-client 2 "rdmactl report: Failed to read '$TMPD/noclient.json': links[1]: no client" \
	report -o "$TMPD/n3.html" "$TMPD/noclient.json"
fails_with cut-short 2 "rdmactl report: Failed to read '$TMPD/cut.json': links at byte 32: the document ends early" \
	report -o "$TMPD/n4.html" "$TMPD/cut.json"
check no-page-left bash -c '! ls "$1"/n[1-4].html* 2>/dev/null' _ "$TMPD"
ERRNO=EEXIST fails_with exists 2 "rdmactl report: Failed to write report '$TMPD/r.html': File exists. Use --force to replace it" \
	report -o "$TMPD/r.html" "$TMPD/probe.json"
run report -f -o "$TMPD/r.html" "$TMPD/probe.json"
check force-rc rc_is 0
mkdir "$TMPD/dir"
run report -o "$TMPD/dir" "$TMPD/probe.json"
check directory-rc rc_is 2
check directory err_one_line
run -j report -o - "$TMPD/probe.json"
check json-stdout-rc rc_is 2
check json-stdout err_has "-j prints its JSON document there"

# ---- --html at the end of a run ----
# ssh as doctor -w calls it: each node a recorded tree, lab-f unknown; every call logged.
mkdir "$TMPD/bin"
cat >"$TMPD/bin/ssh" <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -T) shift ;; -o) shift 2 ;; *) break ;; esac; done
echo "$1" >>"$SSH_LOG"
case $1 in
lab-c) root=$FIXTURES/doctor-broken ;;
lab-f) echo "ssh: Could not resolve hostname $1: Name or service not known" >&2; exit 255 ;;
*) root=$FIXTURES/doctor-healthy ;;
esac
shift
RDMACTL_ROOT=$root exec sh -c "$*"
SH
chmod +x "$TMPD/bin/ssh"
export SSH_LOG=$TMPD/ssh.log FIXTURES
W=(-w lab-a,lab-b,lab-c,lab-f --launcher ssh --rdmactl "$RDMACTL")
RC=0
PATH="$TMPD/bin:$PATH" "$RDMACTL" doctor "${W[@]}" --html "$TMPD/dw.html" >"$TMPD/out" 2>"$TMPD/err" || RC=$?
OUT=$(cat "$TMPD/out") ERR=$(cat "$TMPD/err")
check doctor-html-rc rc_is 1
check doctor-html-said err_has "^rdmactl doctor: wrote the report to $TMPD/dw.html$"
check doctor-html-text out_has '^4 nodes: 1 failed, 0 warned, 1 unreachable$'
OUT=$(cat "$TMPD/dw.html")
check doctor-html-grid has '<tr><th>lab-c</th><td class="st-ok"'
check doctor-html-unreachable has '<tr class="unreach"><th>lab-f</th>'
# What the section is: the nodes asked, when, from where, by which rdmactl.
check doctor-html-provenance bash -c 'grep -qE "<p class=\"prov\"><span>hostlist lab-a,lab-b,lab-c,lab-f</span><span>started 20[0-9-]{8}T[0-9:]{8}Z</span><span>ended 20[0-9-]{8}T[0-9:]{8}Z</span><span>from this run, as it ended</span><span>rdmactl [0-9.]+</span></p>" <<<"$1"' _ "$OUT"
# Again: the page is kept (exit 2, before any node is asked) unless --force,
# as every file rdmactl writes (rdmactl(8), FILES).
: >"$SSH_LOG"
cp "$TMPD/dw.html" "$TMPD/dw.kept"
RC=0; PATH="$TMPD/bin:$PATH" "$RDMACTL" doctor "${W[@]}" --html "$TMPD/dw.html" >/dev/null 2>"$TMPD/err" || RC=$?
ERR=$(cat "$TMPD/err")
check doctor-html-exists-rc rc_is 2
check doctor-html-exists err_is "rdmactl doctor: Failed to write report '$TMPD/dw.html': File exists. Use --force to replace it"
check doctor-html-exists-kept cmp -s "$TMPD/dw.html" "$TMPD/dw.kept"
check doctor-html-exists-no-node bash -c '[ ! -s "$1" ]' _ "$SSH_LOG"
echo '{"run": "a saved document"}' >"$TMPD/dw.html"
RC=0; PATH="$TMPD/bin:$PATH" "$RDMACTL" doctor "${W[@]}" --html "$TMPD/dw.html" --force >/dev/null 2>"$TMPD/err" || RC=$?
check doctor-html-force-rc rc_is 1
check doctor-html-force-replaced grep -q '<tr><th>lab-c</th>' "$TMPD/dw.html"
# A directory is refused before any node is asked.
: >"$SSH_LOG"
RC=0; PATH="$TMPD/bin:$PATH" "$RDMACTL" doctor "${W[@]}" --html "$TMPD/dir" >/dev/null 2>"$TMPD/err" || RC=$?
ERR=$(cat "$TMPD/err")
check doctor-html-dir-rc rc_is 2
check doctor-html-dir err_has "Failed to write report '$TMPD/dir': "
check doctor-html-dir-no-node bash -c '[ ! -s "$1" ]' _ "$SSH_LOG"
fails_with doctor-html-alone 2 "rdmactl doctor: Failed to use --html: it is for a run on many nodes; give -w HOSTLIST too" \
	doctor --html "$TMPD/x.html"
fails_with probe-html-alone 2 "rdmactl probe: Failed to use --html: it is for a run on many nodes; give -w HOSTLIST too" \
	probe 127.0.0.1 --html "$TMPD/x.html"
# ---- a run with --topology: the tree drawn, leaf1's slow uplink marked, no node named ----
"$GEN" --leaves 3 --slow-uplink 1 node 12 >"$TMPD/tree.json"
run report -o "$TMPD/tree.html" "$TMPD/tree.json"
check tree-rc rc_is 0
OUT=$(cat "$TMPD/tree.html")
check tree-drawn has '<ul class="tree"><li>spine<ul><li>leaf1 <span class="muted">(4 nodes: node[01-04])</span> <b class="fail">&#9664; uplink (slow_uplink)</b></li>'
check tree-others-unmarked has '<li>leaf2 <span class="muted">(4 nodes: node[05-08])</span></li>'
check tree-no-node-named bash -c '! grep -q "slow_node" <<<"$1"' _ "$OUT"
check tree-finding has 'uplink leaf1 -&gt; spine is slow: 64 links crossing it slow'
check tree-self-contained self_contained

RC=0; PATH="$TMPD/bin:$PATH" "$RDMACTL" probe -w lab-a,lab-b --launcher ssh --html "$TMPD/dir" >/dev/null 2>"$TMPD/err" || RC=$?
ERR=$(cat "$TMPD/err")
check probe-html-dir-rc rc_is 2
check probe-html-dir-no-node bash -c '[ ! -s "$1" ]' _ "$SSH_LOG"
finish
