#!/bin/bash
# The HTML report in a real browser: headless Chromium loads the pages
# from file:// URLs with every request sent to a proxy of ours that only
# records it, and its DOM is read back after the page's script ran.
#
#   four nodes (tests/fixtures/report: t4-probe's faults, lab-b blocked and
#   lab-c slow, and a doctor -w of recorded nodes), with a third run whose
#   node has a hostile name: every cell there with its class, lab-c's row
#   and column slow and outlined, the hostile name as text, no element of it
#   three runs with a topology (gen-probe-run --leaves 3: leaf1's uplink slow,
#   leaf2's cut, leaf3 slow): each tree drawn, spine over three leaves, each
#   with its four nodes by name, the bad link alone marked, in a FAIL's
#   computed colour, the healthy switches in the page's, and the finding's
#   words, no node named
#   the doctor run saved with "FAIL" (an older rdmactl) and with "fail": one grid
#   1 000 nodes (tests/tools/gen-probe-run, node0500 slow): every cell painted,
#   node0500 the one that stands out, in its numbers and its pixels, the
#   file under 10 MB
#
#   what each section is: its hostlist, times, source file and version; a
#   stopped run's banner with what it left untested; counts from what is
#   drawn, not from an edited summary; a name with a bidi override escaped
#
# and no request left any page, and no page said anything on its console
# (its script parsed and ran, its policy refused nothing), and the browser
# made as many rules of the style as it has; a page that
# does fetch, a script that does not parse and a refused style are each
# caught: the checks can fail.  Ten browser starts, a few seconds each.
AREA=browser
. "$(dirname "$0")/../cli/lib.sh"
GEN=${GEN:-$(dirname "$RDMACTL")/tests/gen-probe-run}
CHROMIUM=${CHROMIUM:-chromium}
R=$FIXTURES/report

# The recording proxy: one line per connection, what was asked.
python3 - "$TMPD/proxy.log" >"$TMPD/proxy.port" <<'PY' &
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(16)
print(s.getsockname()[1], flush=True)
log = open(sys.argv[1], "a")
while True:
    c, _ = s.accept(); c.settimeout(2)
    try: line = c.recv(512).split(b"\r\n")[0]
    except OSError: line = b"?"
    log.write(line.decode("latin-1") + "\n"); log.flush(); c.close()
PY
PROXY_PID=$!
trap 'kill $PROXY_PID 2>/dev/null; rm -rf "$TMPD"' EXIT
waits_for 60 test -s "$TMPD/proxy.port"
: >"$TMPD/proxy.log"

# dom NAME PAGE: load PAGE, its DOM after the scripts in NAME.dom; the seconds in NAME.s;
# Chromium's log, where the page's console messages are, in NAME.log.
dom() {
	local t0=$EPOCHREALTIME
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMPD/profile" --proxy-server="127.0.0.1:$(cat "$TMPD/proxy.port")" \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-extensions --disable-default-apps --no-pings \
		--enable-logging=stderr --log-level=0 \
		--dump-dom "file://$2" >"$TMPD/$1.dom" 2>"$TMPD/$1.log"
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' >"$TMPD/$1.s"
}
# page_requests: what the proxy saw, less Chromium's own updater and sign-in,
# which ask whatever the flags and whichever page is open.
page_requests() {
	grep -vE '^(CONNECT (update\.googleapis|accounts\.google|clients2\.google)\.com:443|POST http://update\.googleapis\.com/|GET http://clients2\.google\.com/time/)' \
		"$TMPD/proxy.log"
}
no_requests() { [ -z "$(page_requests)" ]; }
# console_clean NAME: the page loaded as NAME said nothing on its console:
# its script (lib/report/page.js) parsed and ran without an exception, and
# its policy refused no style or script (one whose bytes are not those
# its hash was computed over is refused, and says so there).
console_clean() {
	OUT=$(grep -F ':CONSOLE' "$TMPD/$1.log")
	[ -z "$OUT" ]
}

# ---- four nodes, and a hostile name ----
"$GEN" --letters --slow lab-c --blocked lab-d --hostile h- 4 >"$TMPD/hostile.json"
# Three runs with a topology (probe -w --topology: twelve nodes on leaf1..3
# under spine), one switch finding each: leaf1's uplink slow, leaf2's cut,
# leaf3 slow itself.
"$GEN" --leaves 3 --slow-uplink 1 node 12 >"$TMPD/tree-slow.json"
"$GEN" --leaves 3 --failed-uplink 2 node 12 >"$TMPD/tree-cut.json"
"$GEN" --leaves 3 --slow-switch 3 node 12 >"$TMPD/tree-leaf.json"
run report -o "$TMPD/four.html" "$R/probe-4.json" "$R/doctor-4.json" "$TMPD/hostile.json" \
	"$TMPD/tree-slow.json" "$TMPD/tree-cut.json" "$TMPD/tree-leaf.json"
check four-written rc_is 0
dom four "$TMPD/four.html"
check four-loaded grep -q 'data-ready="1"' "$TMPD/four.dom"
check four-console-clean console_clean four
check four-no-request no_requests

# The DOM's cells, checked by position (python's own HTML parser, no package).
python3 - "$TMPD/four.dom" >"$TMPD/four.check" 2>&1 <<'PY'
import sys
from html.parser import HTMLParser

class Doc(HTMLParser):
    def __init__(self):
        super().__init__(); self.sections = []; self.tables = []; self.row = None
        self.cell = None; self.imgs = 0; self.scripts = 0
        self.lis = []; self.tree = 0; self.mark = None; self.finding = None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "section": self.sections.append({"cls": a.get("class"), "tables": [], "tree": [], "findings": []})
        # The switch tree: each switch's item, its depth, its own text and its marks.
        elif tag == "ul" and (self.tree or a.get("class") == "tree"): self.tree += 1
        elif tag == "li" and self.tree:
            self.lis.append({"depth": self.tree - 1, "text": "", "marks": []})
            self.sections[-1]["tree"].append(self.lis[-1])
        elif tag == "b" and self.lis:
            self.mark = {"cls": (a.get("class") or "").split(), "text": ""}
            self.lis[-1]["marks"].append(self.mark)
        elif tag == "li" and self.sections and a.get("class") in ("fail", "warn"):
            self.finding = {"cls": a.get("class"), "text": ""}
            self.sections[-1]["findings"].append(self.finding)
        elif tag == "table": self.sections[-1]["tables"].append({"cls": a.get("class"), "rows": []})
        elif tag == "tr": self.sections[-1]["tables"][-1]["rows"].append([])
        elif tag in ("td", "th"):
            self.cell = {"tag": tag, "cls": (a.get("class") or "").split(), "title": a.get("title") or "", "text": ""}
            self.sections[-1]["tables"][-1]["rows"][-1].append(self.cell)
        elif tag == "img": self.imgs += 1
        elif tag == "script" and a.get("type") != "application/json": self.scripts += 1
    def handle_endtag(self, tag):
        if tag in ("td", "th"): self.cell = None
        elif tag == "ul" and self.tree: self.tree -= 1
        elif tag == "li" and self.lis: self.lis.pop()
        elif tag == "li": self.finding = None
        elif tag == "b": self.mark = None
    def handle_data(self, d):
        if self.cell is not None: self.cell["text"] += d
        if self.mark is not None: self.mark["text"] += d
        elif self.lis: self.lis[-1]["text"] += d
        if self.finding is not None: self.finding["text"] += d

d = Doc(); d.feed(open(sys.argv[1], encoding="utf-8").read())
ok = True
def expect(name, cond):
    global ok
    print(("PASS " if cond else "FAIL ") + name)
    ok = ok and cond

probes = [s for s in d.sections if s["cls"] == "probe"]
doctor = [s for s in d.sections if s["cls"] == "doctor"]
expect("sections", len(probes) == 5 and len(doctor) == 1)
names = ["lab-a", "lab-b", "lab-c", "lab-d"]
def want(i, j):
    if i == j: return "self"
    if "lab-b" in (names[i], names[j]): return "fail"      # blocked: RoCE dropped
    if "lab-c" in (names[i], names[j]): return "q2"        # a quarter of the median
    return "q9"
for k, t in enumerate(probes[0]["tables"]):
    head = [c["text"] for c in t["rows"][0][1:]]
    expect("table%d-columns" % k, head == names)
    body = t["rows"][1:]
    expect("table%d-rows" % k, [r[0]["text"] for r in body] == names and all(len(r) == 5 for r in body))
    for i, r in enumerate(body):
        for j, c in enumerate(r[1:]):
            if c["cls"][:1] != [want(i, j)]:
                expect("table%d-cell-%s-%s is %s, not %s" % (k, names[i], names[j], want(i, j), c["cls"]), False)
    # lab-c's row and column stand out: slow (bandwidth), outlined, and nothing else is slow.
    c = names.index("lab-c")
    cross = [(i, j) for i in range(4) for j in range(4) if (i == c or j == c) and i != j and "lab-b" not in (names[i], names[j])]
    if k == 0:
        expect("slow-cross", all("slow" in body[i][j + 1]["cls"] and "hl" in body[i][j + 1]["cls"] for i, j in cross))
        expect("slow-only-cross", sum("slow" in x["cls"] for r in body for x in r) == len(cross))
    expect("table%d-titles" % k, all(c["title"] for r in body for c in r[1:]))
hostile = 'n<img src=x onerror=alert(1)>"\'&\\x1b]0;pwned\\x07'
hnames = [r[0]["text"] for r in probes[1]["tables"][0]["rows"][1:]]
expect("hostile-name-is-text", hnames[1] == hostile)
expect("hostile-no-element", d.imgs == 0 and d.scripts == 1)
# The switch tree of each topology run: spine, its three leaves under it
# with their four nodes each, by name, the one bad switch link marked (FAIL's
# class, the element's words), the others not; the finding's words.
trees = [("leaf1", "\u25c0 uplink (slow_uplink)", "slow_uplink: uplink leaf1 -> spine is slow: 64 links crossing it slow, its nodes fine among themselves"),
         ("leaf2", "\u25c0 uplink (failed_uplink)", "failed_uplink: uplink leaf2 -> spine fails: 64 links crossing it failed or slow, its nodes fine among themselves"),
         ("leaf3", "\u25c0 switch (slow_switch)", "slow_switch: leaf switch leaf3 is slow: 76 links of its nodes are slow, among themselves too")]
for s, (bad, mark, text) in zip(probes[2:], trees):
    t = s["tree"]
    drawn = [(x["depth"], x["text"].strip()) for x in t]
    expect("tree-%s-drawn" % bad, drawn == [(0, "spine")] + [(1, "leaf%d (4 nodes: node[%02d-%02d])" % (k, 4 * k - 3, 4 * k)) for k in (1, 2, 3)])
    marked = [x["text"].split()[0] for x in t if x["marks"]]
    expect("tree-%s-marked-alone" % bad, marked == [bad])
    m = next((x["marks"] for x in t if x["text"].startswith(bad)), [])
    expect("tree-%s-mark" % bad, len(m) == 1 and m[0]["cls"] == ["fail"] and m[0]["text"] == mark)
    f = s["findings"]
    expect("tree-%s-finding" % bad, len(f) == 1 and f[0]["cls"] == "fail" and f[0]["text"].startswith("FAIL " + text))
    expect("tree-%s-no-node-named" % bad, not any("_node" in x["text"] for x in f))
grid = doctor[0]["tables"][0]["rows"]
expect("doctor-grid", [r[0]["text"] for r in grid[1:]] == ["lab-a", "lab-b", "lab-c", "lab-d", "lab-e"])
expect("doctor-grid-fail", "st-fail" in grid[3][2]["cls"] and "ports: FAIL" in grid[3][2]["title"])
expect("doctor-unreachable", "st-unreach" in grid[5][1]["cls"] and "No route to host" in grid[5][1]["text"])
sys.exit(0 if ok else 1)
PY
RC=$?
OUT=$(cat "$TMPD/four.check")
[ -n "${VERBOSE:-}" ] && cat "$TMPD/four.check" >&2
check four-dom rc_is 0

# inject_script IN OUT JS: a copy of page IN as OUT with the script JS
# added before </body> and its hash to the page's script-src: the page's
# policy stays on and lets that script, and no other, run.
inject_script() {
	python3 - "$@" <<'PY'
import base64, hashlib, re, sys
src, dst, js = sys.argv[1:4]
page = open(src, encoding="utf-8").read()
h = base64.b64encode(hashlib.sha256(js.encode()).digest()).decode()
page, k = re.subn(r"script-src ('sha256-[^']+')", lambda m: "script-src %s 'sha256-%s'" % (m.group(1), h), page)
assert k == 1, "no script-src in the page's policy"
page = page.replace("</body>", "<script>" + js + "</script>\n</body>", 1)
open(dst, "w", encoding="utf-8").write(page)
PY
}

# ---- the style as the browser parsed it ----
# Chromium says nothing of a rule it could not parse: it drops it.  A copy
# of the four-node page gets a second script (its hash added to the
# policy) that counts the rules the browser made of the page's style
# (lib/report/page.css); a count of the blocks the style's text opens at
# its top level (it has no braces in strings or comments) says how many
# were written.  A stray or missing brace loses rules, and the counts part.
python3 - "$TMPD/four.html" >"$TMPD/css.want" <<'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
css = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
depth = rules = 0
for c in css:
    if c == "{":
        rules += depth == 0
        depth += 1
    elif c == "}":
        depth = max(depth - 1, 0)
print(rules)
PY
# The same script reads back how each switch tree is shown: every item's
# name, its mark, the mark's colour and weight as computed and whether it
# has a box, and the colour the page gives a finding's FAIL.
inject_script "$TMPD/four.html" "$TMPD/four-css.html" "$(cat <<'JS'
document.body.dataset.rules = document.styleSheets[0].cssRules.length;
(function () {
  var res = [];
  document.querySelectorAll("ul.tree").forEach(function (ul) {
    var fail = ul.closest("section").querySelector("ol.findings li.fail b"), items = [];
    ul.querySelectorAll("li").forEach(function (li) {
      var b = li.querySelector(":scope > b"), e = b || li, st = getComputedStyle(e), r = e.getBoundingClientRect();
      items.push({name: li.firstChild.textContent.trim(), mark: b ? b.textContent : null,
                  color: st.color, weight: Number(st.fontWeight),
                  shown: r.width > 0 && r.height > 0 && st.visibility === "visible"});
    });
    res.push({fail: fail ? getComputedStyle(fail).color : null, text: getComputedStyle(ul).color, items: items});
  });
  document.body.dataset.tree = JSON.stringify(res);
})();
JS
)"
dom fourcss "$TMPD/four-css.html"
OUT="browser: $(sed -n 's/.*data-rules="\([0-9]*\)".*/\1/p' "$TMPD/fourcss.dom"), written: $(cat "$TMPD/css.want")"
# rules_all_parsed: the browser made as many rules of the style as were
# written, and more than ten (a missing brace swallows the rest into one).
rules_all_parsed() { [[ $OUT =~ ^browser:\ ([0-9]+),\ written:\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [ "${BASH_REMATCH[1]}" -gt 10 ]; }
check style-every-rule-parsed rules_all_parsed
check style-console-clean console_clean fourcss
OUT=$(sed -n 's/.*data-tree="\([^"]*\)".*/\1/p' "$TMPD/fourcss.dom" | sed 's/&quot;/"/g')
check tree-shown json_ok 'length == 3 and all(.[]; (.items | map(.name)) == ["spine", "leaf1", "leaf2", "leaf3"] and all(.items[]; .shown))'
# The bad link's mark in the colour of a FAIL, bold; the page's text another colour.
check tree-mark-as-fail json_ok 'all(.[]; .fail as $f | $f != null and $f != .text and
	([.items[] | select(.mark)] | length == 1 and all(.[]; .color == $f and .weight >= 700)))'
# The three healthy switches of each tree in the page's colour, not a FAIL's.
check tree-healthy-plain json_ok 'all(.[]; .fail as $f | .text as $t |
	[.items[] | select(.mark == null)] | length == 3 and all(.[]; .color == $t and .color != $f))'

# ---- what each section is: its source, a stopped run, a bidi name, counts drawn ----
# A run stopped after 4 of its 6 steps (8 links measured, 4 left); the same
# run with lab-c named with a right-to-left override; a doctor -w whose
# lab-a has a check edited to FAIL under an unchanged summary (1 failed).
jq '.run.complete = false | .run.stopped = "SIGTERM" | .run.steps_done = 4 | .run.tests_left = 4 |
	.run.started = "2026-03-01T14:05:09Z" | .run.ended = "2026-03-01T14:06:10Z" | .links |= .[:8]' \
	"$R/probe-4.json" >"$TMPD/stopped.json"
sed "s/lab-c/lab-$(printf '\u202e')c$(printf '\u2028\u200b')/g" "$R/probe-4.json" >"$TMPD/bidi.json"
jq '.nodes["lab-a"].checks[0].status = "FAIL"' "$R/doctor-4.json" >"$TMPD/doctor-edited.json"
run report -o "$TMPD/what.html" "$TMPD/stopped.json" "$R/probe-4.json" "$TMPD/bidi.json" \
	"$TMPD/doctor-edited.json"
check what-written rc_is 0
dom what "$TMPD/what.html"
check what-loaded grep -q 'data-ready="1"' "$TMPD/what.dom"
check what-console-clean console_clean what
python3 - "$TMPD/what.dom" "$TMPD" "$R" >"$TMPD/what.check" 2>&1 <<'PY'
import sys
from html.parser import HTMLParser

class Doc(HTMLParser):
    def __init__(self):
        super().__init__(); self.sections = []; self.cur = None; self.text = ""
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "section": self.sections.append({"cls": a.get("class"), "h2": "", "prov": "", "banner": None, "th": []})
        if self.sections and tag in ("h2", "th") or (tag == "p" and a.get("class") in ("prov", "banner")):
            self.cur = (tag if tag != "p" else a.get("class"))
            if self.cur == "banner": self.sections[-1]["banner"] = ""
            if self.cur == "th": self.sections[-1]["th"].append("")
    def handle_endtag(self, tag):
        if tag in ("h2", "th", "p"): self.cur = None
    def handle_data(self, d):
        self.text += d
        if self.cur and self.sections:
            s = self.sections[-1]
            if self.cur == "th": s["th"][-1] += d
            else: s[self.cur] += d

page = open(sys.argv[1], encoding="utf-8").read()
d = Doc(); d.feed(page)
tmp, fix = sys.argv[2], sys.argv[3]
ok = True
def expect(name, cond):
    global ok
    print(("PASS " if cond else "FAIL ") + name)
    ok = ok and cond

doc = [s for s in d.sections if s["cls"] == "doctor"]
probes = [s for s in d.sections if s["cls"] == "probe"]
expect("sections", len(doc) == 1 and len(probes) == 3)
srcs = [tmp + "/doctor-edited.json", tmp + "/stopped.json", fix + "/probe-4.json", tmp + "/bidi.json"]
for k, s in enumerate(doc + probes):
    expect("source-%d" % k, ("from " + srcs[k]) in s["prov"])
    expect("version-%d" % k, "rdmactl 0.1.0" in s["prov"] or "rdmactl not recorded" in s["prov"])
    expect("times-%d" % k, "started " in s["prov"] and "ended " in s["prov"])
stopped, whole, bidi = probes
expect("stopped-hostlist", "hostlist lab-a,lab-b,lab-c,lab-d" in stopped["prov"])
expect("stopped-times", "started 2026-03-01T14:05:09Z" in stopped["prov"] and "ended 2026-03-01T14:06:10Z" in stopped["prov"])
expect("stopped-banner", stopped["banner"] is not None and stopped["banner"].startswith("Incomplete run: stopped by SIGTERM after 4 of 6 step(s): 4 test(s) of its schedule not run") and "4 link(s) never measured" in stopped["banner"])
expect("stopped-counts-drawn", "8 links measured" in stopped["h2"] and "4 untested" in stopped["h2"])
expect("whole-no-banner", whole["banner"] is None and "12 links measured" in whole["h2"])
expect("doctor-counts-drawn", "5 nodes: 2 failed, 1 warned, 1 unreachable" in doc[0]["h2"])
# No format or separator character reaches the page; the name shows them escaped.
expect("bidi-none-drawn", not any(c in page for c in "\u202e\u2028\u200b"))
expect("bidi-name-escaped", "lab-\\xe2\\x80\\xaec\\xe2\\x80\\xa8\\xe2\\x80\\x8b" in bidi["th"])
sys.exit(0 if ok else 1)
PY
RC=$?
OUT=$(cat "$TMPD/what.check")
[ -n "${VERBOSE:-}" ] && cat "$TMPD/what.check" >&2
check what-dom rc_is 0

# ---- one grid whichever spelling a saved doctor run has ----
# Today's documents say "fail", an older rdmactl's "FAIL": the page is the same.
sed 's/"status":"FAIL"/"status":"fail"/g' "$R/doctor-4.json" >"$TMPD/doctor-lower.json"
check lower-has-fail grep -q '"status":"fail"' "$TMPD/doctor-lower.json"
run report -o "$TMPD/older.html" "$R/doctor-4.json"
run report -o "$TMPD/lower.html" "$TMPD/doctor-lower.json"
dom older "$TMPD/older.html"
dom lower "$TMPD/lower.html"
# cells FILE: the status cells of the doctor grid, as the browser built them.
cells() { grep -o '<td class="st-[a-z]*" title="[^"]*' "$1"; }
check lower-grid-fail bash -c 'grep -q "<td class=\"st-fail\" title=\"ports: FAIL" <<<"$1"' _ "$(cells "$TMPD/lower.dom")"
same_grid() { [ -n "$(cells "$TMPD/older.dom")" ] && [ "$(cells "$TMPD/lower.dom")" == "$(cells "$TMPD/older.dom")" ]; }
check lower-grid-same same_grid

# ---- 1 000 nodes ----
"$GEN" --slow node0500 node 1000 | "$RDMACTL" report -o "$TMPD/big.html" - >/dev/null
check big-written test -s "$TMPD/big.html"
SIZE=$(stat -c %s "$TMPD/big.html")
check big-under-10MB test "$SIZE" -lt 10000000
dom big "$TMPD/big.html"
OUT=$(grep -o '<canvas [^>]*>' "$TMPD/big.dom")
# Two canvases (bandwidth, latency), each every link of 1 000 x 999, in blocks of 4 x 4.
check big-every-cell bash -c '[ "$(grep -c "data-drawn=\"999000\"" <<<"$1")" = 2 ]' _ "$OUT"
check big-blocks out_has 'data-block="4"'
check big-slow-stands-out bash -c '[ "$(grep -c "data-standout=\"node0500 (0\.[0-9]* of the median)\"" <<<"$1")" = 2 ]' _ "$OUT"
check big-no-request no_requests
check big-console-clean console_clean big

# The canvases' pixels, read back: the page's own numbers above are what
# its script counted, which a blank canvas would still report.  A copy of
# the page gets a second script (its hash added to the page's policy,
# which stays on) that reads each canvas with getImageData: node0500's
# row and column band (its block: its place among the names over the
# page's 4 x 4 blocks) must be the darkest, well below the median row, in
# both.
inject_script "$TMPD/big.html" "$TMPD/big-px.html" "$(cat <<'JS'
(function () {
  var res = [];
  document.querySelectorAll("canvas.big").forEach(function (cv) {
    var M = 8, w = cv.width, n = w - M, px = cv.getContext("2d").getImageData(0, 0, w, cv.height).data;
    function lum(x, y) { var o = 4 * (y * w + x); return px[o] + px[o + 1] + px[o + 2]; }
    var rows = [], cols = [];
    for (var i = 0; i < n; i++) {
      var r = 0, c = 0;
      for (var j = 0; j < n; j++) if (i !== j) { r += lum(M + j, M + i); c += lum(M + i, M + j); }
      rows.push(r / (n - 1)); cols.push(c / (n - 1));
    }
    function argmin(a) { var k = 0; for (var i = 1; i < a.length; i++) if (a[i] < a[k]) k = i; return k; }
    var sorted = rows.slice().sort(function (a, b) { return a - b; });
    var names = JSON.parse(document.getElementById(cv.dataset.src).textContent).names;
    var block = Math.floor(names.indexOf("node0500") / Math.ceil(names.length / n));
    res.push({kind: cv.dataset.kind, blocks: n, block: block, row: argmin(rows), col: argmin(cols),
              dark: rows[argmin(rows)], median: sorted[Math.floor(n / 2)]});
  });
  document.body.dataset.pixels = JSON.stringify(res);
})();
JS
)"
dom bigpx "$TMPD/big-px.html"
OUT=$(sed -n 's/.*data-pixels="\([^"]*\)".*/\1/p' "$TMPD/bigpx.dom" | sed 's/&quot;/"/g')
check big-pixels-two-canvases json_ok 'length == 2 and (map(.kind) | sort) == ["gbps", "lat"]'
check big-pixels-slow-row json_ok 'all(.[]; .block >= 0 and .row == .block and .col == .block)'
check big-pixels-slow-dark json_ok 'all(.[]; .dark < 0.6 * .median)'
echo "browser: the 1 000-node page ($SIZE bytes) loaded and painted in $(cat "$TMPD/big.s") s" >&2

# ---- the check itself: a page that fetches is seen ----
printf '<!DOCTYPE html><img src="http://192.0.2.1/x.png">' >"$TMPD/leak.html"
dom leak "$TMPD/leak.html"
check leak-caught bash -c 'grep -q "192.0.2.1/x.png" <<<"$1"' _ "$(page_requests)"
# ... and so is a script that does not parse, and a style the policy refuses.
printf '<!DOCTYPE html><script>var x = ;</script>' >"$TMPD/badjs.html"
dom badjs "$TMPD/badjs.html"
check console-caught-script grep -q ':CONSOLE.*SyntaxError' "$TMPD/badjs.log"
printf '<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="style-src %s">%s' \
	"'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='" '<style>p{color:red}</style>' \
	>"$TMPD/badcss.html"
dom badcss "$TMPD/badcss.html"
check console-caught-style grep -q ':CONSOLE.*Content Security Policy' "$TMPD/badcss.log"
finish
