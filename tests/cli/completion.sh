#!/bin/bash
# Shell completion: the generated files match the binary, and bash, zsh and
# fish really complete commands, options and live device names through them.
. "$(dirname "$0")/lib.sh"

BINDIR=$(dirname "$RDMACTL")

# committed FILE: completion/FILE as committed.  make regenerates the
# work tree's copy from the binary before the tests run, so that copy
# always matches; the committed one is what a packager or a reader of
# the repository gets.  Outside a git checkout, the file as it is.
committed() {
	if git -C "$TOP" rev-parse --verify -q HEAD >/dev/null 2>&1; then
		git -C "$TOP" show "HEAD:completion/$1"
	else
		cat "$TOP/completion/$1"
	fi
}

for sh in bash:rdmactl.bash zsh:_rdmactl fish:rdmactl.fish; do
	run completion "${sh%%:*}"
	if [ "$OUT" == "$(committed "${sh#*:}")" ]; then
		pass "generated-${sh%%:*}-matches"
	else
		fail "generated-${sh%%:*}-matches" "completion/${sh#*:} as committed differs from the binary's: run make and commit it"
	fi
done

# A small sysfs tree, so device names come from somewhere known.
ROOT=$TMPD/root
mkdir -p "$ROOT/sys/class/infiniband/mlx5_0/ports/1/gids" \
	"$ROOT/sys/class/infiniband/mlx5_1/ports/1/gids" \
	"$ROOT/sys/class/infiniband/mlx5_1/ports/2/gids" "$ROOT/sys/class/net/ens1f0"
echo fe80:0000:0000:0000:5aa2:e1ff:feb0:3772 >"$ROOT/sys/class/infiniband/mlx5_0/ports/1/gids/0"
echo 0000:0000:0000:0000:0000:0000:0000:0000 >"$ROOT/sys/class/infiniband/mlx5_0/ports/1/gids/1"
echo 0000:0000:0000:0000:0000:ffff:c0a8:5801 >"$ROOT/sys/class/infiniband/mlx5_0/ports/1/gids/2"

# Where the shells parse what completion put on the line: a file the
# glob rxe_b* matches, and no PWNED yet (one there means a name ran).
CWD=$TMPD/cwd
mkdir -p "$CWD" && : >"$CWD/rxe_bX"

# bash_complete LINE [ROOT]: the words bash's completion puts on LINE
# (cursor at its end), one line each: every COMPREPLY entry as readline
# inserts it (quoted by readline itself under -o filenames, the quote
# the word opened closed after it), then parsed by bash as the command
# line is, in $CWD.  An entry that parses to other than one word shows
# as "<N words>".
bash_complete() {
	(cd "$CWD" && RDMACTL_ROOT=${2:-$ROOT} PATH="$BINDIR:$PATH" bash --norc --noprofile -c '
		compopt() { local IFS=" "; [[ " $* " == *" -o filenames "* ]] && filenames=1; return 0; }
		source "$1"
		read -r -a COMP_WORDS <<<"$2"
		[[ $2 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$2 COMP_POINT=${#2}
		_rdmactl rdmactl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		q=${COMP_WORDS[COMP_CWORD]:0:1}
		[[ $q == \" || $q == "'"'"'" ]] || q=
		for c in "${COMPREPLY[@]}"; do
			[[ $filenames ]] && printf -v c %q "$c"
			eval "w=($q$c$q)"
			if [ ${#w[@]} = 1 ]; then printf "%s\n" "$w"; else echo "<${#w[@]} words>"; fi
		done' _ "$TOP/completion/rdmactl.bash" "$1" | sort)
}

# The commands rdmactl lists in its help, to compare with what completion offers.
commands=$("$RDMACTL" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z_]*\) .*/\1/p' | sort)
OUT=$(bash_complete "rdmactl ")
check bash-all-commands [ "$OUT" == "$commands" ]
OUT=$(bash_complete "rdmactl d")
check bash-prefix-d [ "$OUT" == $'devices\ndoctor' ]
OUT=$(bash_complete "rdmactl dev")
check bash-prefix-dev [ "$OUT" == "devices" ]
OUT=$(bash_complete "rdmactl gids --netdev ")
check bash-live-netdevs [ "$OUT" == "ens1f0" ]
OUT=$(bash_complete "rdmactl gids mlx5_1/")
check bash-live-devports [ "$OUT" == $'mlx5_1/1\nmlx5_1/2' ]
OUT=$(bash_complete "rdmactl probe -x ")
check bash-live-gid-indexes [ "$OUT" == $'0\n2' ]
OUT=$(bash_complete "rdmactl g")
check bash-prefix-g-gids [ "$OUT" == "gids" ]
OUT=$(bash_complete "rdmactl -j c")
check bash-after-global-option [ "$OUT" == "completion" ]
OUT=$(bash_complete "rdmactl devices --js")
check bash-option [ "$OUT" == "--json" ]
OUT=$(bash_complete "rdmactl devices ")
check bash-live-devices [ "$OUT" == $'mlx5_0\nmlx5_1' ]
OUT=$(bash_complete "rdmactl --color ")
check bash-option-choices [ "$OUT" == $'always\nauto\nnever' ]
OUT=$(bash_complete "rdmactl completion f")
check bash-positional-choices [ "$OUT" == "fish" ]
OUT=$(bash_complete "rdmactl __comp")
check bash-hidden-not-offered [ -z "$OUT" ]
# doctor --gathered takes a file or a directory of HOST.json files.
OUT=$(bash_complete "rdmactl doctor --gat")
check bash-gathered-option [ "$OUT" == "--gathered" ]
mkdir -p "$TMPD/gathered" && : >"$TMPD/gathered/lab-a.json" && : >"$TMPD/gathered/lab-b.json"
OUT=$(bash_complete "rdmactl doctor --gathered $TMPD/gathered/lab-")
check bash-gathered-files [ "$OUT" == "$TMPD/gathered/lab-a.json"$'\n'"$TMPD/gathered/lab-b.json" ]
OUT=$(bash_complete "rdmactl doctor --metr")
check bash-metrics-option [ "$OUT" == "--metrics" ]
OUT=$(bash_complete "rdmactl doctor --metrics -o $TMPD/gathered/lab-")
check bash-metrics-output-file [ "$OUT" == "$TMPD/gathered/lab-a.json"$'\n'"$TMPD/gathered/lab-b.json" ]

# doctor --only and --skip take check IDs, a comma-separated list of them.
OUT=$(bash_complete "rdmactl doctor --only ")
check bash-only-check-ids [ "$OUT" == "$("$RDMACTL" doctor --list | awk 'NR > 1 { print $1 }
	$1 ~ /\./ { sub(/\..*/, "", $1); print $1 }' | sort -u)" ]
OUT=$(bash_complete "rdmactl doctor --skip memlock.s")
check bash-skip-check-ids [ "$OUT" == $'memlock.shell\nmemlock.systemd' ]
OUT=$(bash_complete "rdmactl doctor --only mtu,memlock.l")
check bash-only-list-last-word [ "$OUT" == "mtu,memlock.login" ]
# bash splits "--skip=ro" into "--skip" "=" "ro" (COMP_WORDBREAKS has '='), as here.
OUT=$(bash_complete "rdmactl doctor --skip = ro")
check bash-skip-equals [ "$OUT" == $'roce\nroce.gid\nroce.ipv4\nroce.qos\nroce.route' ]
# --for's values, for doctor and env alike.
OUT=$(bash_complete "rdmactl doctor --for ")
check bash-doctor-for [ "$OUT" == $'mpi\nnccl\nperftest\nucx' ]
OUT=$(bash_complete "rdmactl env --for ")
check bash-env-for [ "$OUT" == $'mpi\nnccl\nucx' ]

# --root DIR on the line: devices and netdevs of DIR, not of RDMACTL_ROOT or the host.
ROOT2=$TMPD/root2
mkdir -p "$ROOT2/sys/class/infiniband/rxe_snap/ports/1" "$ROOT2/sys/class/net/eth_snap"
OUT=$(bash_complete "rdmactl --root $ROOT2 gids --netdev ")
check bash-root-netdevs [ "$OUT" == "eth_snap" ]
OUT=$(bash_complete "rdmactl gids --root = $ROOT2 --netdev ")
check bash-root-equals-netdevs [ "$OUT" == "eth_snap" ]
OUT=$(bash_complete "rdmactl devices --root $ROOT2 ")
check bash-root-devices [ "$OUT" == "rxe_snap" ]
OUT=$(bash_complete "rdmactl -j --root $ROOT2 ports rxe_snap/")
check bash-root-devports [ "$OUT" == "rxe_snap/1" ]
# A --root that is no directory leaves the names where they were (the command will say why).
OUT=$(bash_complete "rdmactl --root $TMPD/nosuch devices ")
check bash-root-missing [ "$OUT" == $'mlx5_0\nmlx5_1' ]

# A stranger's tree (tests/tools/hostile-tree names): each name is offered as
# one word that parses to exactly the name, never run (no PWNED in $CWD)
# nor globbed (rxe_b* would match $CWD/rxe_bX); one with a newline or a
# tab is not offered (rdmactl-completion(8)).
HROOT=$TMPD/hostile
"$TOP/tests/tools/hostile-tree" names "$HROOT"
hostile_cases() {
	local sh=$1 complete=${1}_complete code='rxe_a$(touch PWNED)' quotes="rxe_e \"q\" 'r'"
	rm -f "$CWD/PWNED"
	OUT=$($complete "rdmactl --root $HROOT gids -d rxe_a")
	check "$sh-hostile-code" [ "$OUT" == "$code"$'\n'"$code/1" ]
	OUT=$($complete "rdmactl --root $HROOT gids -d rxe_b")
	check "$sh-hostile-glob" [ "$OUT" == $'rxe_b*\nrxe_b*/1' ]
	OUT=$($complete "rdmactl --root $HROOT gids -d rxe_c")
	check "$sh-hostile-newline" [ -z "$OUT" ]
	OUT=$($complete "rdmactl --root $HROOT gids -d rxe_d")
	check "$sh-hostile-tab" [ -z "$OUT" ]
	OUT=$($complete "rdmactl --root $HROOT gids -d rxe_e")
	check "$sh-hostile-quotes" [ "$OUT" == "$quotes"$'\n'"$quotes/1" ]
	OUT=$($complete "rdmactl --root $HROOT ports rxe0/")
	check "$sh-hostile-port" [ "$OUT" == 'rxe0/1'$'\n''rxe0/2$(touch PWNED)' ]
	OUT=$($complete "rdmactl --root $HROOT gids --netdev eth_")
	check "$sh-hostile-netdev" [ "$OUT" == 'eth_a$(touch PWNED)' ]
	check "$sh-hostile-nothing-ran" [ ! -e "$CWD/PWNED" ]
}
hostile_cases bash
# What was typed is read unquoted: a backslash, a quote the word opened.
OUT=$(bash_complete "rdmactl --root $HROOT devices rxe_a\\\$")
check bash-hostile-typed-escape [ "$OUT" == 'rxe_a$(touch PWNED)' ]
OUT=$(bash_complete "rdmactl --root $HROOT devices 'rxe_e")
check bash-hostile-single-quote [ "$OUT" == "rxe_e \"q\" 'r'" ]
OUT=$(bash_complete "rdmactl --root $HROOT devices \"rxe_a")
check bash-hostile-double-quote [ "$OUT" == 'rxe_a$(touch PWNED)' ]
check bash-hostile-typed-nothing-ran [ ! -e "$CWD/PWNED" ]
# File names (doctor --gathered DIR: other nodes' documents) too.
mkdir -p "$TMPD/strange" && : >"$TMPD/strange/a\$(touch PWNED)*.json"
OUT=$(bash_complete "rdmactl doctor --gathered $TMPD/strange/a")
check bash-hostile-file [ "$OUT" == "$TMPD/strange/a\$(touch PWNED)*.json" ]
check bash-hostile-file-nothing-ran [ ! -e "$CWD/PWNED" ]

# An interactive bash really registers the function for rdmactl.
OUT=$(bash --norc --noprofile -i -c "source '$TOP/completion/rdmactl.bash'; complete -p rdmactl" 2>/dev/null)
check bash-registered out_has "complete -F _rdmactl rdmactl"

# fish_complete LINE [ROOT]: the words fish's completion puts on LINE, one
# line each: every candidate of complete -C escaped as fish escapes what
# it inserts (string escape --no-quoted), then parsed by fish, in $CWD.
fish_complete() {
	(cd "$CWD" && RDMACTL_ROOT=${2:-$ROOT} PATH="$BINDIR:$PATH" fish --no-config -c '
		source $argv[1]
		for c in (complete -C $argv[2] | string split -f1 \t)
			eval set -g w (string escape --no-quoted -- $c)
			if test (count $w) = 1; printf "%s\n" $w; else; echo "<"(count $w)" words>"; end
		end' "$TOP/completion/rdmactl.fish" "$1" 2>&1 | sort)
}

# common_cases SH: what fish and zsh both complete, through SH_complete:
# check IDs after --only (the last word of a list) and --skip, --for's
# values for env and doctor, names from the --root DIR on the line.
common_cases() {
	local sh=$1 complete=${1}_complete
	OUT=$($complete 'rdmactl doctor --only mtu,memlock.l')
	check "$sh-only-check-ids" [ "$OUT" == "mtu,memlock.login" ]
	OUT=$($complete 'rdmactl doctor --skip memlock.s')
	check "$sh-skip-check-ids" [ "$OUT" == $'memlock.shell\nmemlock.systemd' ]
	OUT=$($complete 'rdmactl env --for ')
	check "$sh-env-for" [ "$OUT" == $'mpi\nnccl\nucx' ]
	OUT=$($complete 'rdmactl doctor --for ')
	check "$sh-doctor-for" [ "$OUT" == $'mpi\nnccl\nperftest\nucx' ]
	OUT=$($complete "rdmactl --root $ROOT2 gids --netdev ")
	check "$sh-root-netdevs" [ "$OUT" == "eth_snap" ]
	OUT=$($complete "rdmactl --root=$ROOT2 devices ")
	check "$sh-root-equals-devices" [ "$OUT" == "rxe_snap" ]
}

if command -v fish >/dev/null; then
	OUT=$(RDMACTL_ROOT=$ROOT PATH="$BINDIR:$PATH" fish --no-config -c \
		"source '$TOP/completion/rdmactl.fish'; complete -C 'rdmactl dev'" 2>&1 | cut -f1)
	check fish-command [ "$OUT" == "devices" ]
	OUT=$(RDMACTL_ROOT=$ROOT PATH="$BINDIR:$PATH" fish --no-config -c \
		"source '$TOP/completion/rdmactl.fish'; complete -C 'rdmactl devices mlx5_'" 2>&1 | cut -f1 | sort)
	check fish-live-devices [ "$OUT" == $'mlx5_0\nmlx5_1' ]
	common_cases fish
	OUT=$(fish_complete 'rdmactl doctor --skip=ro')
	check fish-skip-equals [ "$OUT" == $'--skip=roce\n--skip=roce.gid\n--skip=roce.ipv4\n--skip=roce.qos\n--skip=roce.route' ]
	hostile_cases fish
else
	skip fish-command "fish not installed (Debian package fish)"
fi

# zsh_complete LINE [ROOT]: the words _rdmactl puts on LINE (cursor at its
# end), one line each, with compadd and _files standing in for the
# completion system's: each match as compadd inserts it (quoted as ${(q)}
# does, but under -Q), then parsed by zsh, in $CWD.
zsh_complete() {
	(cd "$CWD" && RDMACTL_ROOT=${2:-$ROOT} PATH="$BINDIR:$PATH" zsh -f -c '
		compdef() { : }
		compadd() {
			local raw= c w
			(( ${@[(I)-Q]} && ${@[(I)-Q]} < ${@[(i)--]} )) && raw=1
			shift ${@[(i)--]}
			for c; do
				[[ -n $raw ]] || c=${(q)c}
				eval "w=($c)"
				if (( ${#w} == 1 )); then print -r -- $w; else print -r -- "<${#w} words>"; fi
			done
		}
		_files() { print -r -- __files__ }
		source "$1"
		words=(${(z)2})
		[[ $2 == *" " ]] && words+=("")
		CURRENT=${#words}
		_rdmactl' _ "$TOP/completion/_rdmactl" "$1" | sort)
}

if command -v zsh >/dev/null; then
	OUT=$(zsh -n "$TOP/completion/_rdmactl" 2>&1)
	check zsh-parses [ -z "$OUT" ]
	OUT=$(zsh_complete 'rdmactl dev')
	check zsh-command [ "$OUT" == "devices" ]
	common_cases zsh
	OUT=$(zsh_complete 'rdmactl doctor --for=n')
	check zsh-for-equals [ "$OUT" == "--for=nccl" ]
	hostile_cases zsh
else
	skip zsh-parses "zsh not installed (Debian package zsh)"
fi

# The hidden entry point itself, including bad input.
run __complete 1 rdmactl --col
check complete-global-option out_has "^--color$"
run __complete x rdmactl
check complete-bad-cword rc_is 2
run __complete 9 rdmactl
check complete-cword-out-of-range rc_is 2

finish
