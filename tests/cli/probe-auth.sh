#!/bin/bash
# rdmactl probe --token / RDMACTL_TOKEN over loopback (TCP transport): the
# right token runs, a wrong or missing one is refused with one line on both
# ends while the server goes on, a token-less server is refused by a client
# holding a token, and the secret shows up nowhere.  `rdmactl doctor --peer`
# takes the same token and gets the same refusals.
. "$(dirname "$0")/lib.sh"

SECRET="s3cret-$$-tok"
PORT=$(free_port)
unset RDMACTL_TOKEN

wait_listen() { waits_for 120 listens "$PORT"; }

# server ARGS...: start a long-running server on loopback; sets SERVER.
server() {
	"$RDMACTL" probe --server --bind 127.0.0.1 --port "$PORT" --timeout 5 "$@" \
		>"$TMPD/server.out" 2>"$TMPD/server.err" &
	SERVER=$!
	wait_listen
}

stop() {
	kill "$SERVER" 2>/dev/null
	wait "$SERVER" 2>/dev/null
}

client() { run probe 127.0.0.1 --port "$PORT" --transport tcp -s 4K -n 50 --lat-iters 0 "$@"; }
listening_on_loopback() { ss -Hltn "sport = :$PORT" | grep -q '^LISTEN.*127\.0\.0\.1:'; }
lacks() { ! grep -qF -- "$@"; }
server_auth_lines() { grep -c 'authentication failed' "$TMPD/server.err"; }

# Bad values are usage errors.
run probe --server --token ''
check empty-token rc_is 2
RDMACTL_TOKEN=$(head -c 300 /dev/zero | tr '\0' x) run probe --server
check long-env-token rc_is 2
check long-env-token-msg err_has 'Failed to read RDMACTL_TOKEN'

# A server holding the token (from the environment).
RDMACTL_TOKEN=$SECRET server
check token-server-listens listening_on_loopback
# The line follows listen(): give it a moment.
says_where() { waits_for 60 grep -qF "listening on 127.0.0.1 port $PORT$1" "$TMPD/server.err"; }
check token-server-says-where says_where ', clients must prove the token'

RDMACTL_TOKEN=$SECRET client -j
check right-token-env rc_is 0
check right-token-json json_ok '.probe.ok and .results[0].bytes == 4096 and .results[0].msgs == 50'

client --token "wrong-$SECRET"
check wrong-token rc_is 1
check wrong-token-msg err_has 'authentication failed'
check wrong-token-one-line err_one_line
check wrong-token-server-line eventually grep -q 'client 127.0.0.1: authentication failed: wrong token' "$TMPD/server.err"
# A refused token says what is wrong on both ends: one token for both.
check wrong-token-same-hint err_has 'both ends need the same token'
check wrong-token-server-same-hint eventually grep -q 'wrong token; both ends need the same token' "$TMPD/server.err"

client
check missing-token rc_is 1
check missing-token-msg err_has 'authentication failed: the server requires a token'
check missing-token-one-line err_one_line
check missing-token-server-line eventually grep -q 'authentication failed: the client has no token' "$TMPD/server.err"
check missing-token-same-hint err_has 'requires a token; both ends need the same token'
check missing-token-server-same-hint eventually grep -q 'the client has no token; both ends need the same token' "$TMPD/server.err"
check server-one-line-each [ "$(server_auth_lines)" -eq 2 ]

# The server goes on serving after refusing: the right token (as an option) still runs.
client --token "$SECRET"
check right-token-option rc_is 0
check server-alive kill -0 "$SERVER"
stop
check server-rows [ "$(grep -cE '^ *4096 +50 ' "$TMPD/server.out")" -eq 2 ]
check secret-not-printed lacks "$SECRET" "$TMPD/server.out" "$TMPD/server.err" "$TMPD/out" "$TMPD/err"

# --token on the command line is blanked from what `ps` shows once read.
server --token "$SECRET"
check token-option-server-listens kill -0 "$SERVER"
check argv-blanked lacks "$SECRET" "/proc/$SERVER/cmdline"
client --token "$SECRET"
check token-option-server rc_is 0
stop

# A server without a token: a client holding one refuses it, clearly.
server
check tokenless-server-says-where says_where ' (no token: any client may run tests)'
client --token "$SECRET"
check tokenless-server rc_is 1
check tokenless-server-msg err_has 'the server has no token'
check tokenless-server-one-line err_one_line
check tokenless-server-line eventually grep -q 'authentication failed: the client has a token but this server has none' "$TMPD/server.err"
client
check no-tokens rc_is 0
stop

# doctor --peer walks the probe client's handshake: with the right token it
# gets the peer's versions; with a wrong or no token its versions line says
# authentication failed, and the server goes on serving.
doctor() { run doctor --peer 127.0.0.1 --port "$PORT" --only versions -j "$@"; }
versions_found() { json_ok ".checks[0].id == \"versions\" and .checks[0].status == \"$1\" and (.checks[0].found | contains(\"$2\"))"; }
RDMACTL_TOKEN=$SECRET server
RDMACTL_TOKEN=$SECRET doctor
check doctor-right-token rc_is 0
check doctor-right-token-versions versions_found ok 'peer 127.0.0.1: the same kernel and rdma-core'
check doctor-right-token-node-info lacks 'does not report its versions' "$TMPD/out"

RDMACTL_TOKEN="wrong-$SECRET" doctor
check doctor-wrong-token rc_is 1
check doctor-wrong-token-line versions_found fail 'peer 127.0.0.1: cannot ask its versions: authentication failed'
check doctor-wrong-token-fix json_ok '.checks[0].fix | contains("RDMACTL_TOKEN")'
check doctor-wrong-token-msg err_has 'the server refused our token'
check doctor-wrong-token-one-line err_one_line
auth_lines_are() { [ "$(server_auth_lines)" -eq "$1" ]; }
check doctor-wrong-token-server-line eventually grep -q 'authentication failed: wrong token' "$TMPD/server.err"
# The server has answered both doctors by now, and refused only the
# second: the right token's doctor left no line.
check doctor-right-token-server-quiet auth_lines_are 1

doctor
check doctor-missing-token rc_is 1
check doctor-missing-token-line versions_found fail 'authentication failed'
check doctor-missing-token-msg err_has 'the server requires a token'

# --token on doctor's command line (RDMACTL_TOKEN, set wrong, gives way to it).
RDMACTL_TOKEN="wrong-$SECRET" doctor --token "$SECRET"
check doctor-token-option rc_is 0
check doctor-token-option-versions versions_found ok 'peer 127.0.0.1: the same kernel and rdma-core'
run doctor --peer 127.0.0.1 --token ''
check doctor-empty-token rc_is 2
check doctor-empty-token-msg err_has 'Failed to parse --token'

check doctor-server-alive kill -0 "$SERVER"
client --token "$SECRET"
check doctor-server-still-serves rc_is 0
stop
check doctor-secret-not-printed lacks "$SECRET" "$TMPD/server.out" "$TMPD/server.err" "$TMPD/out" "$TMPD/err"
finish
