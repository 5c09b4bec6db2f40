#!/bin/bash
# rdmactl doctor --gathered: the cluster report from real 'rdmactl -j doctor'
# documents of recorded nodes, gathered as pdsh, clush and srun -l print
# them and as a directory of HOST.json files; its exact lines, its JSON,
# its exit codes, and every kind of bad input.
. "$(dirname "$0")/lib.sh"

OK=$FIXTURES/doctor-healthy BAD=$FIXTURES/doctor-broken
unset NCCL_IB_HCA NCCL_SOCKET_IFNAME NCCL_IB_GID_INDEX NCCL_IB_DISABLE NCCL_IB_ROCE_VERSION_NUM \
	NCCL_IB_ADDR_FAMILY NCCL_IB_ADDR_RANGE UCX_NET_DEVICES UCX_IB_GID_INDEX

# doc ROOT [VAR=VALUE...]: a node's document, as the node prints it (exit 0 or 1).
doc() {
	local root=$1
	shift
	env "$@" "$RDMACTL" -j --root "$root" doctor || [ $? -eq 1 ]
}

# Five nodes: lab-c is the field notes' broken node, lab-d sets NCCL_IB_HCA
# otherwise than the rest (and passes its own checks).
doc "$OK" NCCL_IB_HCA==mlx5_0 >"$TMPD/ok.json"
doc "$BAD" NCCL_IB_HCA==mlx5_0 >"$TMPD/broken.json"
doc "$OK" NCCL_IB_HCA=mlx5_0 >"$TMPD/odd.json"
env NCCL_IB_HCA==mlx5_0 "$RDMACTL" -j -p --root "$OK" doctor >"$TMPD/ok-pretty.json"

# prefixed PREFIX FILE: each line of FILE as pdsh and clush print it.
prefixed() { sed "s/^/$1: /" "$2"; }

# The five nodes' output as pdsh gives it with 2>&1, and two nodes that did not run.
{
	prefixed lab-a "$TMPD/ok.json"
	prefixed lab-b "$TMPD/ok.json"
	prefixed lab-c "$TMPD/broken.json"
	prefixed lab-d "$TMPD/odd.json"
	prefixed lab-e "$TMPD/ok.json"
	echo "lab-f: bash: line 1: rdmactl: command not found"
	echo "pdsh@login: lab-f: ssh exited with exit code 127"
	echo "lab-g: ssh: Could not resolve hostname lab-g: Name or service not known"
	echo "pdsh@login: lab-g: ssh exited with exit code 255"
} >"$TMPD/pdsh.out"

# line TEXT: stdout has TEXT as a whole line.
line() { grep -qxF -- "$1" <<<"$OUT"; }
# fits: no line of stdout is wider than 100 columns.
fits() { ! grep -q '.\{101\}' <<<"$OUT"; }
# same_as FILE: stdout is the text of FILE.
same_as() { [ "$OUT" == "$(cat "$1")" ]; }

# ---- pdsh: the report ----
run doctor --gathered "$TMPD/pdsh.out"
check pdsh-rc rc_is 1
check pdsh-fits fits
check pdsh-header line 'STATUS  CHECK            NODES                          FOUND'
check pdsh-ports-fail line 'FAIL    ports            lab-c                          rxe0/1 is DOWN (Disabled); its netdev eth...'
check pdsh-ports-fix line '        fix: ip link set eth0 up'
check pdsh-ports-ok line 'ok      ports            lab-a,lab-b,lab-d,lab-e        mlx5_0/1 ACTIVE LinkUp (ens19f0np0); mlx5...'
check pdsh-mtu-warn line 'warn    mtu              lab-c                          rxe0/1: eth0 MTU 1500 limits the RDMA MTU...'
check pdsh-firewall line 'FAIL    firewall         lab-c                          firewalld is running (and starts at boot)...'
check pdsh-env-ok line "ok      env.nccl         lab-a,lab-b,lab-d,lab-e        NCCL_IB_HCA='=mlx5_0' selects mlx5_0:1"
check pdsh-skip-one-line line 'skip    peer             lab-a,lab-b,lab-c,lab-d,lab-e  no --peer HOST given'
check pdsh-drift-header line 'FACT             MAJORITY                     MAJORITY_NODES           DIFFERS'
check pdsh-drift-mtu line 'netdev_mtu       9000                         lab-a,lab-b,lab-d,lab-e  1500 on lab-c'
check pdsh-drift-mtu-fix line '                 fix: ip link set eth0 mtu 9000, as on the others (lasting: nmcli con mod eth0'
check pdsh-drift-env line 'env.NCCL_IB_HCA  =mlx5_0                      lab-a,lab-b,lab-c,lab-e  mlx5_0 on lab-d'
check pdsh-drift-env-fix line '                 fix: set NCCL_IB_HCA==mlx5_0, as on lab-a,lab-b,lab-c,lab-e'
check pdsh-drift-ports line 'active_ports     3                            lab-a,lab-b,lab-d,lab-e  0 on lab-c'
check pdsh-unreachable-f bash -c 'grep -qzF "lab-f  pdsh: ssh exited with exit code 127; output is not a doctor document (line 6): '"'"'bash: line 1:
       rdmactl: command not found'"'"'" <<<"$0"' "$OUT"
check pdsh-unreachable-g bash -c 'grep -qzF "lab-g  pdsh: ssh exited with exit code 255; output is not a doctor document (line 8): '"'"'ssh: Could
       not resolve hostname lab-g: Name or service not known'"'"'" <<<"$0"' "$OUT"
check pdsh-summary [ "$(tail -n 4 <<<"$OUT")" == "7 nodes: 1 failed, 1 warned, 2 unreachable
  failed: lab-c
  warned: lab-d
  unreachable: lab-f,lab-g" ]
cp "$TMPD/out" "$TMPD/pdsh.report"

run --color always doctor --gathered "$TMPD/pdsh.out"
check color-summary out_has $'^\033\\[31m7 nodes: 1 failed, 1 warned, 2 unreachable\033\\[0m$'
check color-fail out_has $'^\033\\[31mFAIL\033\\[0m    ports  '

# From stdin, as in 'pdsh ... | rdmactl doctor --gathered -'.
RC=0
OUT=$("$RDMACTL" doctor --gathered - <"$TMPD/pdsh.out") || RC=$?
check stdin-same-report same_as "$TMPD/pdsh.report"
check stdin-rc rc_is 1

# ---- -j: one document, each node's own untouched ----
run -j doctor --gathered "$TMPD/pdsh.out"
check json-rc rc_is 1
check json-keys json_ok 'keys == ["checks","drain","drift","nodes","notes","summary","unreachable"]'
check json-node-untouched bash -c '[ "$(jq -S ".nodes[\"lab-c\"]" <<<"$0")" == "$(jq -S . "$1")" ]' "$OUT" "$TMPD/broken.json"
check json-nodes json_ok '.nodes | keys == ["lab-a","lab-b","lab-c","lab-d","lab-e"]'
# -j -p: each node's document indented where it sits, as json-c indents.
run -j -p doctor --gathered "$TMPD/pdsh.out"
check json-pretty-node bash -c '[ "$(jq -S ".nodes[\"lab-c\"]" <<<"$0")" == "$(jq -S . "$1")" ]' "$OUT" "$TMPD/broken.json"
check json-pretty-nested out_has '^    "lab-c": \{$'
check json-pretty-nested-checks out_has '^      "checks": \[$'
check json-summary json_ok '.summary == {"nodes":7,"failed":1,"warned":1,"unreachable":2,"failed_nodes":"lab-c","warned_nodes":"lab-d","unreachable_nodes":"lab-f,lab-g"}'
check json-unreachable json_ok '.unreachable == [{"node":"lab-f","error":"pdsh: ssh exited with exit code 127; output is not a doctor document (line 6): '"'"'bash: line 1: rdmactl: command not found'"'"'","rc":127},{"node":"lab-g","error":"pdsh: ssh exited with exit code 255; output is not a doctor document (line 8): '"'"'ssh: Could not resolve hostname lab-g: Name or service not known'"'"'","rc":255}]'
check json-check-row json_ok '.checks[] | select(.id == "ports" and .status == "fail") == {"status":"fail","id":"ports","nodes":"lab-c","count":1,"found":"rxe0/1 is DOWN (Disabled); its netdev eth0 is down","found_on":"lab-c","found_varies":false,"fix":"ip link set eth0 up"}'
check json-drift-env json_ok '.drift[] | select(.fact == "env.NCCL_IB_HCA") == {"fact":"env.NCCL_IB_HCA","majority":"=mlx5_0","majority_count":4,"majority_nodes":"lab-a,lab-b,lab-c,lab-e","differs":[{"value":"mlx5_0","count":1,"nodes":"lab-d"}],"fix":"set NCCL_IB_HCA==mlx5_0, as on lab-a,lab-b,lab-c,lab-e","not_read":null}'
check json-drift-facts json_ok '[.drift[].fact] == ["rdma_core","ofed","provider","active_mtu","netdev_mtu","gid_index","memlock.shell","memlock.pam","memlock.systemd","env.NCCL_IB_HCA","active_ports"]'

# ---- clush: the same nodes, clush's own words ----
{
	grep -v '^pdsh@\|^lab-[fg]' "$TMPD/pdsh.out"
	echo "lab-f: bash: line 1: rdmactl: command not found"
	echo "lab-g: ssh: Could not resolve hostname lab-g: Name or service not known"
	echo "clush: lab-c: exited with exit code 1"
	echo "clush: lab-f: exited with exit code 127"
	echo "clush: lab-g: exited with exit code 255"
} >"$TMPD/clush.out"
run doctor --gathered "$TMPD/clush.out"
check clush-rc rc_is 1
check clush-same-checks-and-drift [ "$(sed '/^NODE /,$d' <<<"$OUT")" == "$(sed '/^NODE /,$d' "$TMPD/pdsh.report")" ]
check clush-unreachable line 'lab-f  clush: exited with exit code 127; output is not a doctor document (line 6): '"'"'bash: line 1:'

# ---- pretty documents over many lines give the same report ----
{
	for h in lab-a lab-b; do prefixed $h "$TMPD/ok-pretty.json"; done
	prefixed lab-c "$TMPD/broken.json"
	prefixed lab-d "$TMPD/odd.json"
	prefixed lab-e "$TMPD/ok-pretty.json"
} >"$TMPD/pretty.out"
grep -v '^lab-[fg]\|^pdsh@' "$TMPD/pdsh.out" >"$TMPD/five.out"
run doctor --gathered "$TMPD/five.out"
cp "$TMPD/out" "$TMPD/five.report"
check five-rc rc_is 1
check five-summary [ "$(tail -n 3 <<<"$OUT")" == "5 nodes: 1 failed, 1 warned, 0 unreachable
  failed: lab-c
  warned: lab-d" ]
run doctor --gathered "$TMPD/pretty.out"
check pretty-same-report same_as "$TMPD/five.report"

# ---- a directory of HOST.json: the same report ----
mkdir "$TMPD/dir"
for h in lab-a lab-b lab-e; do cp "$TMPD/ok.json" "$TMPD/dir/$h.json"; done
cp "$TMPD/broken.json" "$TMPD/dir/lab-c.json"
cp "$TMPD/odd.json" "$TMPD/dir/lab-d.json"
echo "not read" >"$TMPD/dir/README"
run doctor --gathered "$TMPD/dir"
check dir-same-report same_as "$TMPD/five.report"
check dir-rc rc_is 1

# ---- srun -l: tasks, named by their documents or by srun's own lines ----
jq -c '.node.hostname = "gpu07"' "$TMPD/ok.json" >"$TMPD/named.json"
{
	sed 's/^/0: /' "$TMPD/named.json"
	sed 's/^/1: /' "$TMPD/ok.json"
	sed 's/^/2: /' "$TMPD/broken.json"
	echo "3: bash: line 1: rdmactl: command not found"
	echo "srun: error: gpu09: task 2: Exited with exit code 1"
	echo "srun: error: gpu10: task 3: Exited with exit code 127"
} >"$TMPD/srun.out"
run doctor --gathered "$TMPD/srun.out"
check srun-rc rc_is 1
check srun-names line 'ok      devices          gpu[07,09],task 1  mlx5_0 (mlx5, 1 port); mlx5_1 (mlx5, 1 port); mlx5_10...'
check srun-fail line 'FAIL    ports            gpu09              rxe0/1 is DOWN (Disabled); its netdev eth0 is down'
check srun-unreachable line "gpu10  srun: Exited with exit code 127; output is not a doctor document (line 4): 'bash: line 1:"
check srun-summary line '4 nodes: 1 failed, 0 warned, 1 unreachable'

# ---- a healthy cluster: exit 0, no drift ----
{ for h in n1 n2 n3; do prefixed $h "$TMPD/ok.json"; done; } >"$TMPD/healthy.out"
run doctor --gathered "$TMPD/healthy.out"
check healthy-rc rc_is 0
check healthy-no-drift line 'no drift: the 3 nodes with a document agree on every fact compared'
check healthy-ok-row line "ok      env.nccl         n[1-3]  NCCL_IB_HCA='=mlx5_0' selects mlx5_0:1"
check healthy-summary [ "$(tail -n 1 <<<"$OUT")" == "3 nodes: 0 failed, 0 warned, 0 unreachable" ]

# ---- a tie: every value listed, no node singled out ----
{ prefixed n1 "$TMPD/ok.json"; prefixed n2 "$TMPD/odd.json"; } >"$TMPD/tie.out"
run doctor --gathered "$TMPD/tie.out"
check tie-rc rc_is 0
check tie-row line 'env.NCCL_IB_HCA  (no majority)  -               =mlx5_0 on n1; mlx5_0 on n2'
check tie-summary [ "$(tail -n 1 <<<"$OUT")" == "2 nodes: 0 failed, 0 warned, 0 unreachable" ]

# ---- a fact a node could not read: listed as not read, never a value ----
# n4's kernel is null, n5's is missing, n6's is not a text; n4 could not
# read its shell limit either.  None of them is warned or given a fix.
jq -c '.node.kernel = null | .node.memlock.shell = null' "$TMPD/ok.json" >"$TMPD/k-null.json"
jq -c 'del(.node.kernel)' "$TMPD/ok.json" >"$TMPD/k-missing.json"
jq -c '.node.kernel = {"release": "6.1.0-18-amd64"}' "$TMPD/ok.json" >"$TMPD/k-object.json"
{
	for h in n1 n2 n3; do prefixed $h "$TMPD/ok.json"; done
	prefixed n4 "$TMPD/k-null.json"
	prefixed n5 "$TMPD/k-missing.json"
	prefixed n6 "$TMPD/k-object.json"
} >"$TMPD/unread.out"
run doctor --gathered "$TMPD/unread.out"
check unread-rc rc_is 0
check unread-kernel-line line 'kernel         6.1.0-18-amd64  n[1-3]          not read on n[4-6]'
check unread-memlock-line line 'memlock.shell  unlimited       n[1-3,5-6]      not read on n4'
check unread-no-fix bash -c '! grep -A1 "^kernel " <<<"$1" | grep -q "fix:"' _ "$OUT"
check unread-summary [ "$(tail -n 1 <<<"$OUT")" == "6 nodes: 0 failed, 0 warned, 0 unreachable" ]
run -j doctor --gathered "$TMPD/unread.out"
check unread-json-kernel json_ok '.drift[] | select(.fact == "kernel") == {"fact":"kernel","majority":"6.1.0-18-amd64","majority_count":3,"majority_nodes":"n[1-3]","differs":[],"fix":null,"not_read":{"count":3,"nodes":"n[4-6]"}}'
check unread-json-memlock json_ok '.drift[] | select(.fact == "memlock.shell") == {"fact":"memlock.shell","majority":"unlimited","majority_count":5,"majority_nodes":"n[1-3,5-6]","differs":[],"fix":null,"not_read":{"count":1,"nodes":"n4"}}'
check unread-json-not-warned json_ok '.summary.warned == 0 and .summary.warned_nodes == null'
printf '%s\n' "$OUT" >"$TMPD/unread.json"
run report -o "$TMPD/unread.html" "$TMPD/unread.json"
check unread-page grep -q '<td>not read on n\[4-6\]</td>' "$TMPD/unread.html"
# Beside a node that differs: that one gets the fix and is warned, the unread one neither.
jq -c '.node.kernel = "6.1.0-99-amd64"' "$TMPD/ok.json" >"$TMPD/k-other.json"
{
	for h in n1 n2 n3; do prefixed $h "$TMPD/ok.json"; done
	prefixed n4 "$TMPD/k-null.json"
	prefixed n5 "$TMPD/k-other.json"
} >"$TMPD/unread2.out"
run -j doctor --gathered "$TMPD/unread2.out"
check unread-beside-odd json_ok '.drift[] | select(.fact == "kernel") == {"fact":"kernel","majority":"6.1.0-18-amd64","majority_count":3,"majority_nodes":"n[1-3]","differs":[{"value":"6.1.0-99-amd64","count":1,"nodes":"n5"}],"fix":"boot kernel 6.1.0-18-amd64, as the others run","not_read":{"count":1,"nodes":"n4"}}'
check unread-beside-odd-warned json_ok '.summary.warned_nodes == "n5"'
# A document without its node's facts, and ports without their fields:
# not read, on every row, never a value ("(none)"), a warning or a fix.
jq -c 'del(.node)' "$TMPD/ok.json" >"$TMPD/no-node.json"
jq -c '.node.ports |= map(del(.netdev_mtu))' "$TMPD/ok.json" >"$TMPD/no-mtu.json"
{
	for h in n1 n2 n3; do prefixed $h "$TMPD/ok.json"; done
	prefixed n4 "$TMPD/no-node.json"
	prefixed n5 "$TMPD/no-mtu.json"
} >"$TMPD/fields.out"
run doctor --gathered "$TMPD/fields.out"
check fields-mtu-line line 'netdev_mtu       9000                         n[1-3]          not read on n[4-5]'
check fields-kernel-line line 'kernel           6.1.0-18-amd64               n[1-3,5]        not read on n4'
check fields-no-none bash -c '! grep -q "(none)" <<<"$1"' _ "$OUT"
check fields-summary [ "$(tail -n 1 <<<"$OUT")" == "5 nodes: 0 failed, 0 warned, 0 unreachable" ]
run -j doctor --gathered "$TMPD/fields.out"
check fields-json-mtu json_ok '.drift[] | select(.fact == "netdev_mtu") == {"fact":"netdev_mtu","majority":"9000","majority_count":3,"majority_nodes":"n[1-3]","differs":[],"fix":null,"not_read":{"count":2,"nodes":"n[4-5]"}}'
check fields-json-every-row json_ok '[.drift[] | .not_read.nodes] | length == 14 and all(. == "n4" or . == "n[4-5]")'
check fields-json-not-warned json_ok '.summary.warned == 0'

# A fix that holds a newline is one line of the report, the newline escaped
# as any control byte is: it cannot print a line of the report's own.
jq -c '(.checks[] | select(.id == "mtu")) |= (.status = "fail" | .fix = "ip link set x\n\n9 nodes: 0 failed")' \
	"$TMPD/ok.json" >"$TMPD/nl-fix.json"
{ prefixed n1 "$TMPD/ok.json"; prefixed n2 "$TMPD/nl-fix.json"; } >"$TMPD/nl.out"
run doctor --gathered "$TMPD/nl.out"
check nl-fix-escaped line '        fix: ip link set x\x0a\x0a9 nodes: 0 failed'
check nl-fix-no-line bash -c '! grep -q "^ *9 nodes" <<<"$1"' _ "$OUT"

# Where null is a value (no MLNX_OFED, an unset variable), it stays one.
jq -c '.node.ofed = null' "$TMPD/ok.json" >"$TMPD/no-ofed.json"
{ for h in n1 n2; do prefixed $h "$TMPD/ok.json"; done; prefixed n3 "$TMPD/no-ofed.json"; } >"$TMPD/ofed.out"
run -j doctor --gathered "$TMPD/ofed.out"
check ofed-null-is-value json_ok '.drift[] | select(.fact == "ofed") | (.differs == [{"value":null,"count":1,"nodes":"n3"}]) and .not_read == null and (.fix | startswith("install MLNX_OFED"))'
check ofed-null-warned json_ok '.summary.warned_nodes == "n3"'

# ---- input that is not gathered output: exit 2, one line naming it ----
run doctor --gathered "$TMPD/nonexistent"
check missing-rc rc_is 2
check missing-msg [ "$ERR" == "rdmactl doctor: Failed to read gathered output '$TMPD/nonexistent': cannot open it: No such file or directory" ]

run -j doctor --gathered "$TMPD/nonexistent"
check missing-json json_ok '.error == {"code":2,"message":"Failed to read gathered output '"'$TMPD/nonexistent'"': cannot open it: No such file or directory","errno":"ENOENT"}'

run doctor --gathered "$TMPD/ok.json"
check no-prefix-rc rc_is 2
check no-prefix-one-line err_one_line
check no-prefix-msg err_has "^rdmactl doctor: Failed to read gathered output '.*/ok.json': line 1: no 'HOST: ' prefix on '\\{\"checks\":\\[\\{\"status\":\"ok\",\"id\".*': give pdsh or clush output with its 'HOST: ' prefixes \\(not pdsh -N, not clush -b\\), srun -l output, or a directory of HOST.json files$"

printf 'lab-a: {}\nlab-\033]0;x\007b: {}\n' >"$TMPD/escape.out"
run doctor --gathered "$TMPD/escape.out"
check escape-rc rc_is 2
check escape-msg [ "$ERR" == "rdmactl doctor: Failed to read gathered output '$TMPD/escape.out': line 2: 'lab-\\x1b]0;x\\x07b' is not a host name (letters, digits, '.', '_', '-'): give pdsh or clush output with its 'HOST: ' prefixes (not pdsh -N, not clush -b), srun -l output, or a directory of HOST.json files" ]

printf 'lab-a: {"checks": []}\nlab-a: \177ELF\0\0\0\n' >"$TMPD/binary.out"
run doctor --gathered "$TMPD/binary.out"
check binary-rc rc_is 2
check binary-msg [ "$ERR" == "rdmactl doctor: Failed to read gathered output '$TMPD/binary.out': line 2: a NUL byte: binary data, not the text output of pdsh, clush or srun" ]

cat "$TMPD/pdsh.out" "$TMPD/five.out" >"$TMPD/twice.out"
run doctor --gathered "$TMPD/twice.out"
check twice-rc rc_is 2
check twice-msg [ "$ERR" == "rdmactl doctor: Failed to read gathered output '$TMPD/twice.out': line 10: a second document for 'lab-a' (its first began on line 1): give each node's output once" ]

{ printf 'lab-a: '; head -c 5000000 /dev/zero | tr '\0' x; echo; } >"$TMPD/long.out"
run doctor --gathered "$TMPD/long.out"
check long-line-rc rc_is 2
check long-line-msg [ "$ERR" == "rdmactl doctor: Failed to read gathered output '$TMPD/long.out': line 1 is longer than 4 MiB: no doctor output has such lines" ]

# With 2>&1 a node's stderr joins its document: taken, the rest in a note.
{
	echo "n1: Warning: Permanently added 'n1' (ED25519) to the list of known hosts."
	prefixed n1 "$TMPD/ok-pretty.json"
	prefixed n2 "$TMPD/ok.json"
} >"$TMPD/stderr.out"
run doctor --gathered "$TMPD/stderr.out"
check stderr-rc rc_is 0
check stderr-note line "note: n1 (line 1): lines beside its document: 'Warning: Permanently added 'n1' (ED25519) to the l..."
check stderr-summary [ "$(tail -n 1 <<<"$OUT")" == "2 nodes: 0 failed, 0 warned, 0 unreachable" ]
run -j doctor --gathered "$TMPD/stderr.out"
check stderr-json-note json_ok '.notes == ["n1 (line 1): lines beside its document: '"'"'Warning: Permanently added '"'"'n1'"'"' (ED25519) to the list of known hosts.'"'"'"]'

# Junk from one node is that node's failure, not the input's.
{ prefixed n1 "$TMPD/ok.json"; echo 'n2: [1, 2, 3]'; } >"$TMPD/junk.out"
run doctor --gathered "$TMPD/junk.out"
check junk-node-rc rc_is 1
check junk-node-row line 'n2    output is not a doctor document (line 2): a JSON array'

# ---- one spelling of the statuses: "fail" in JSON, FAIL for people ----
# A node of an older rdmactl wrote "FAIL" (and any case is taken): the report
# is the same as from today's nodes, and its JSON says "fail" throughout.
check writes-lowercase-fail bash -c 'json_one "[.checks[].status] | index(\"fail\") and (index(\"FAIL\") | not)" <"$0"' "$TMPD/broken.json"
sed 's/"status":"fail"/"status":"FAIL"/' "$TMPD/broken.json" >"$TMPD/broken-old.json"
sed 's/"status":"fail"/"status":"Fail"/; s/"status":"warn"/"status":"WARN"/' "$TMPD/broken.json" >"$TMPD/broken-case.json"
{ prefixed lab-a "$TMPD/ok.json"; prefixed lab-c "$TMPD/broken.json"; } >"$TMPD/mixed-new.out"
{ prefixed lab-a "$TMPD/ok.json"; prefixed lab-c "$TMPD/broken-old.json"; } >"$TMPD/mixed-old.out"
{ prefixed lab-a "$TMPD/ok.json"; prefixed lab-c "$TMPD/broken-case.json"; } >"$TMPD/mixed-case.out"
run doctor --gathered "$TMPD/mixed-new.out"
NEW_TEXT=$OUT
run doctor --gathered "$TMPD/mixed-old.out"
check old-fail-rc rc_is 1
check old-fail-text-same [ "$OUT" == "$NEW_TEXT" ]
check old-fail-text-capitals out_has '^FAIL +ports +lab-c '
run doctor --gathered "$TMPD/mixed-case.out"
check any-case-text-same [ "$OUT" == "$NEW_TEXT" ]
run -j doctor --gathered "$TMPD/mixed-new.out"
NEW_JSON=$OUT
run -j doctor --gathered "$TMPD/mixed-old.out"
check old-fail-json-same [ "$OUT" == "$NEW_JSON" ]
check old-fail-json-lowercase json_ok '([.checks[].status] | index("fail")) and ([.. | objects | .status? | strings] | all(. == "ok" or . == "warn" or . == "fail" or . == "skip"))'
check old-fail-json-summary json_ok '.summary.failed == 1 and .summary.failed_nodes == "lab-c"'
# The HTML page, for people, says FAIL whichever spelling a saved run has.
sed 's/"status":"fail"/"status":"FAIL"/g' <<<"$NEW_JSON" >"$TMPD/cluster-old.json"
check old-cluster-doc-has-FAIL grep -q '"status":"FAIL"' "$TMPD/cluster-old.json"
for v in new old; do
	[ $v = new ] && printf '%s\n' "$NEW_JSON" >"$TMPD/cluster-new.json"
	run report -o "$TMPD/cluster-$v.html" "$TMPD/cluster-$v.json"
	check html-$v-rc rc_is 0
	check html-$v-grid-fail grep -q '<td class="st-fail" title="ports: FAIL' "$TMPD/cluster-$v.html"
	check html-$v-failures-row grep -q '<tr class="fail"><td>FAIL</td><td>ports</td>' "$TMPD/cluster-$v.html"
done

# A bad value in a node's document is quoted as it is: "ok " is not ok.
{ prefixed n1 "$TMPD/ok.json"; echo "n2: $(sed 's/"status":"ok"/"status":"ok "/' "$TMPD/ok.json")"; } >"$TMPD/status.out"
run -j doctor --gathered "$TMPD/status.out"
check status-quoted json_ok '.unreachable[0].error == "output is not a doctor document (line 2): '"'"'ok '"'"' in checks[0] is no status (ok, warn, fail, skip)"'

# srun's own lines name the input lines of the tasks that share a host.
{ echo "srun: error: gpu01: tasks 0-1: Exited with exit code 127"; } >"$TMPD/srun-tasks.out"
run doctor --gathered "$TMPD/srun-tasks.out"
check srun-tasks-rc rc_is 2
check srun-tasks-msg err_is "rdmactl doctor: Failed to read gathered output '$TMPD/srun-tasks.out': srun tasks 0 and 1 both ran on host 'gpu01' (line 1): run one srun task per node (srun --ntasks-per-node=1)"
{
	echo "srun: error: gpu01: task 2: Exited with exit code 127"
	echo "srun: error: gpu01: task 3: Exited with exit code 127"
} >"$TMPD/srun-tasks2.out"
run doctor --gathered "$TMPD/srun-tasks2.out"
check srun-tasks-lines err_is "rdmactl doctor: Failed to read gathered output '$TMPD/srun-tasks2.out': srun tasks 2 and 3 both ran on host 'gpu01' (lines 1 and 2): run one srun task per node (srun --ntasks-per-node=1)"

# More nodes than one hostlist names (65 536): one report all the same,
# each document read in turn (bench/doctor-gathered-memory.sh measures the
# memory).
awk 'BEGIN { for (i = 1; i <= 65537; i++) printf "n%d: {\"checks\": []}\n", i; print "n65538: junk" }' \
	>"$TMPD/many.out"
run doctor --gathered "$TMPD/many.out"
check many-nodes-rc rc_is 1
check many-nodes-summary [ "$(tail -n 2 <<<"$OUT" | head -n 1)" == "65538 nodes: 0 failed, 0 warned, 1 unreachable" ]
check many-nodes-unreachable out_has "^n65538 +output is not a doctor document \(line 65538\): 'junk'$"

# A document of more JSON objects than any doctor document has is the
# node's failure, refused before json-c builds it (a gigabyte for 4 MiB).
{
	prefixed n1 "$TMPD/ok.json"
	printf 'n2: {"checks": [%s{}]}\n' "$(head -c 16384 /dev/zero | sed 's/\x0/{},/g')"
} >"$TMPD/objects.out"
run -j doctor --gathered "$TMPD/objects.out"
check objects-rc rc_is 1
check objects-node json_ok '.unreachable == [{"node":"n2","error":"output is not a doctor document (line 2): it opens 16387 JSON objects and arrays, and no doctor document has over 16384","rc":null}]'

mkdir "$TMPD/empty"
run doctor --gathered "$TMPD/empty"
check empty-dir-rc rc_is 2
check empty-dir-msg err_has "^rdmactl doctor: Failed to read gathered output '.*/empty': no HOST.json file in the directory: "

run doctor --gathered "$TMPD/pdsh.out" --peer 10.0.0.1
check with-peer-rc rc_is 2
check with-peer-msg [ "$ERR" == "rdmactl doctor: Failed to use --peer with --gathered: the documents were made with the options their nodes ran; give --peer to rdmactl doctor there" ]

run doctor --gathered
check no-arg-rc rc_is 2

# A node's text with a bidi override (U+202E), a line separator (U+2028)
# and a zero-width space (U+200B): shown escaped, as a control is, never
# drawn (reversed figures, a line that is two, a name that is another).
jq -c '.checks[0].found = "rate 5.77\u202e Gb/s\u2028FAIL\u200bx"' "$TMPD/ok.json" >"$TMPD/bidi.json"
{
	prefixed n1 "$TMPD/bidi.json"
	prefixed n2 "$TMPD/ok.json"
} >"$TMPD/bidi.out"
run doctor --gathered "$TMPD/bidi.out"
check bidi-rc rc_is 0
check bidi-escaped out_has 'rate 5\.77\\xe2\\x80\\xae Gb/s\\xe2\\x80\\xa8FAIL\\xe2\\x80\\x8bx'
check bidi-none-raw bash -c '! LC_ALL=C grep -qF -e "$2" -e "$3" -e "$4" <<<"$1"' _ "$OUT" $'\u202e' $'\u2028' $'\u200b'
# JSON keeps the node's text as it is: a program reads it, no terminal draws it.
run -j doctor --gathered "$TMPD/bidi.out"
check bidi-json-kept json_ok '[.checks[].found | select(contains("\u202e") and contains("\u2028") and contains("\u200b"))] | length == 1'

# ---- what --slurm-health --drain would do on each node: the rollout's dry run ----
# n[2-4] fail ports (n4 on another device: the reason differs in detail),
# n5 only the firewall; n1 passes.  One row a check, its nodes folded.
jq -c '.checks |= map(if .id == "ports" then .found |= sub("rxe0/1"; "rxe1/1") else . end)' \
	"$TMPD/broken.json" >"$TMPD/broken-other.json"
jq -c '.checks |= map(if .id != "firewall" and .status == "fail" then .status = "ok" | .fix = null else . end)' \
	"$TMPD/broken.json" >"$TMPD/fw.json"
{
	prefixed n1 "$TMPD/ok.json"
	prefixed n2 "$TMPD/broken.json"
	prefixed n3 "$TMPD/broken.json"
	prefixed n4 "$TMPD/broken-other.json"
	prefixed n5 "$TMPD/fw.json"
} >"$TMPD/drain.out"
run doctor --gathered "$TMPD/drain.out"
check drain-rc rc_is 1
check drain-fits fits
check drain-header line 'WOULD DRAIN  REASON (doctor --slurm-health --drain)'
check drain-ports line 'n[2-4]       rdmactl: ports: rxe0/1 is DOWN (Disabled); its netdev eth0 is down'
check drain-ports-varies line "             note: 3 nodes, reasons differ in detail (this is n2's): see -j"
check drain-firewall out_has '^n5           rdmactl: firewall: firewalld is running'
run -j doctor --gathered "$TMPD/drain.out"
check drain-json json_ok '[.drain[] | "\(.nodes) \(.id) \(.count) \(.reason_varies)"] ==
	["n[2-4] ports 3 true", "n5 firewall 1 false"]'
check drain-json-reason json_ok '.drain[1].reason | startswith("rdmactl: firewall: firewalld is running")'
# No node would be drained: no such table in text, an empty list in -j.
{
	prefixed n1 "$TMPD/ok.json"
	prefixed n2 "$TMPD/ok.json"
} >"$TMPD/nodrain.out"
run doctor --gathered "$TMPD/nodrain.out"
check nodrain-text bash -c '! grep -q "WOULD DRAIN" <<<"$0"' "$OUT"
run -j doctor --gathered "$TMPD/nodrain.out"
check nodrain-json json_ok '.drain == []'

finish
