#!/bin/bash
# One RDMA probe session between the guests with both ends under valgrind
# (leak check full): zero errors and zero definite or indirect leaks on
# either end, and the session itself must have worked (the rows both ends
# print).  valgrind on emulated CPUs is very slow: the workload is tiny and
# every wait is long.  tests/lab/valgrind.supp, when present, holds
# suppressions limited to the verbs provider's own allocations.
# lab-timeout: 240
# lab-seconds: 83

lab_need_peer
command -v valgrind >/dev/null || skip "valgrind is not installed"

port=18630
vg=(valgrind --leak-check=full --show-leak-kinds=definite,indirect
	--errors-for-leak-kinds=definite,indirect --error-exitcode=99 --num-callers=30)
[[ -f $LAB_SRC/tests/lab/valgrind.supp ]] && vg+=(--suppressions="$LAB_SRC/tests/lab/valgrind.supp")

# check_vg NAME RC LOG: the exit status and valgrind's own summary.
check_vg() {
	local name=$1 rc=$2 log=$3 errors definite indirect
	echo "== valgrind, $name:"
	grep -E 'ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|still reachable|in use at exit' "$log"
	errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -1)
	check_eq "$name: valgrind errors" 0 "$errors"
	# "All heap blocks were freed" prints no "lost" lines: none lost then.
	definite=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -1)
	indirect=$(sed -n 's/.*indirectly lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -1)
	check_eq "$name: bytes definitely lost" 0 "${definite:-0}"
	check_eq "$name: bytes indirectly lost" 0 "${indirect:-0}"
	check_eq "$name: exit status" 0 "$rc"
	if [[ $errors != 0 ]]; then
		sed -n '/^==[0-9]*== [A-Z]/,/^==[0-9]*== $/p' "$log" | head -60
	fi
}

server_ended() { ! kill -0 "$server" 2>/dev/null; }
server_or_client_ended() { server_ended || lab_has client-done; }

if [[ $LAB_ROLE == a ]]; then
	# --once: serve one client in this process, then exit (valgrind's
	# leak check runs on the process that ran the session).  Each message
	# of the client's handshake has the server's whole --timeout (the test
	# aid RDMACTL_PROBE_GREET_MS), not 3 s: at half pace the client under
	# valgrind took longer than 3 s to send its request, and was dropped.
	RDMACTL_PROBE_GREET_MS=120000 "${vg[@]}" --log-file=vg-server.log "$RDMACTL" probe --server --once \
		--port $port --timeout 120 >server.out 2>server.err &
	server=$!
	for _ in $(seq 300); do
		ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.5
	done
	lab_put server-up 1
	# Until the server has served its client and ended.  A client that
	# failed before its session (a handshake the server dropped) leaves
	# it waiting for another: once lab-b's client has ended, the server
	# has 60 s more, then it is stopped (at half pace the two ends
	# waited for each other until the test's limit, and the lab's runs
	# after it never ran).
	lab__await "the server to end, or lab-b's client" 240 server_or_client_ended
	if ! server_ended && ! lab__await "the server to end after lab-b's client" 60 server_ended; then
		kill "$server"
		if lab_has client-done; then
			fail "server: still waiting for a client after lab-b's ended (exit $(lab_get client-done))"
		else
			fail "server: still waiting for a client, and lab-b's has not ended"
		fi
	fi
	wait "$server"
	rc=$?
	cat server.err
	cp vg-server.log "$LAB_SHARE/"
	check_vg server "$rc" vg-server.log
	check_eq "server: one row of 4096 B x 5" 1 "$(grep -cE '^ *4096 +5 ' server.out)"
	lab_put server-done 1
else
	lab_get server-up 150 >/dev/null
	"${vg[@]}" --log-file=vg-client.log "$RDMACTL" -j probe "$LAB_PEER_IP" --port $port \
		-s 4K -n 5 --lat-iters 2 --timeout 120 >client.json 2>client.err
	rc=$?
	lab_put client-done "$rc"
	cat client.err
	cp vg-client.log "$LAB_SHARE/"
	check_vg client "$rc" vg-client.log
	check_eq "client: transport" rdma "$(jq -r .probe.transport client.json)"
	check_eq "client: messages" 5 "$(jq -r '.results[0].msgs' client.json)"
	check_eq "client: bytes" 4096 "$(jq -r '.results[0].bytes' client.json)"
	lab_get server-done 150 >/dev/null
fi
