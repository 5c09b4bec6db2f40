#!/bin/bash
# The packages: make deb and make rpm build from the tree (lintian and
# rpmlint run inside them), hold the binary, every man page, the
# completions, the units and the examples, and say one version with the
# binary, its JSON, its metrics and its man pages.  As root, the .deb is
# installed with dpkg -i, used (man, bash completion, the binary, the
# units through systemd-analyze verify) and purged, leaving no file
# behind.  The doctor's metrics of every doctor fixture pass promtool.
# With PKG_DEB_DONE set, that file is made once the host's dpkg is done
# with (the .deb installed and purged), before the rpm is built.
#
# One line per test: "PASS pkg/NAME", "FAIL pkg/NAME: why" or
# "SKIP pkg/NAME: why" (a FAIL on CI, where every tool must be there).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 2
BIN=$TOP/build/rdmactl
BUILD=$TOP/build
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
FAILED=0
VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile)
. "$TOP/tests/tools/json-one.sh"
export -f json_one

pass() { echo "PASS pkg/$1"; }
fail() {
	echo "FAIL pkg/$1: $2"
	FAILED=$((FAILED + 1))
}
skip() {
	if [ "${CI:-}" = true ]; then fail "$1" "$2 (CI must have it)"; else echo "SKIP pkg/$1: $2"; fi
}
# check NAME WHY COND...: pass when COND succeeds, else fail with WHY.
check() {
	local name=$1 why=$2
	shift 2
	if "$@" >/dev/null 2>&1; then pass "$name"; else fail "$name" "$why"; fi
}
# have NAME TOOL PACKAGE: true when TOOL is on PATH, else a skip of NAME.
have() {
	command -v "$2" >/dev/null && return 0
	skip "$1" "$2 not installed (Debian package $3)"
	return 1
}
# listed LIST PATH: PATH is a line of the file LIST.
listed() { grep -qxF -- "$2" "$1"; }

# ---- the metrics of the fixture roots ----
metrics_fixtures() {
	local f out
	for f in tests/fixtures/doctor-*; do
		out=$("$BIN" --root "$f" doctor --metrics 2>/dev/null)
		if [ -z "$out" ]; then
			fail "metrics/$(basename "$f")" "no metrics"
		elif err=$(promtool check metrics <<<"$out" 2>&1); then
			pass "metrics/$(basename "$f")"
		else
			fail "metrics/$(basename "$f")" "promtool: $(tr '\n' ' ' <<<"$err")"
		fi
	done
}
# (The alert rules: tests/prom/alerts.sh.)

# ---- make deb ----
DEB=
build_deb() {
	if ! make -s deb >"$TMPD/deb.log" 2>&1; then
		fail deb "make deb failed: $(grep -E '^(E|W): |error' "$TMPD/deb.log" | tail -5 | tr '\n' ' ')"
		return 1
	fi
	pass deb
	# lintian ran inside make deb with --fail-on error,warning; say so apart.
	if grep -qE '^[EW]: rdmactl' "$TMPD/deb.log"; then
		fail deb-lintian "$(grep -E '^[EW]: ' "$TMPD/deb.log" | tr '\n' ' ')"
	else
		pass deb-lintian
	fi
	DEB=$BUILD/pkg/deb/rdmactl_${VERSION}_$(dpkg --print-architecture).deb
	dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|' >"$TMPD/deb.files"
}

# contents NAME LIST MANSUFFIX ZSHDIR UNITDIR DOCDIR: what a package must hold.
contents() {
	local name=$1 list=$2 mansfx=$3 zshdir=$4 unitdir=$5 doc=$6 m f missing=""
	listed "$list" /usr/bin/rdmactl || missing+=" /usr/bin/rdmactl"
	for m in man/*.8; do
		grep -qE "^/usr/share/man/man8/${m#man/}$mansfx\$" "$list" || missing+=" ${m#man/}"
	done
	for f in /usr/share/bash-completion/completions/rdmactl "$zshdir/_rdmactl" \
		/usr/share/fish/vendor_completions.d/rdmactl.fish \
		"$unitdir"/rdmactl-probe.service "$unitdir"/rdmactl-doctor.service \
		"$unitdir"/rdmactl-doctor.timer; do
		listed "$list" "$f" || missing+=" $f"
	done
	for f in contrib/slurm/* contrib/prometheus/*; do
		listed "$list" "$doc/examples/${f#contrib/}" || missing+=" examples/${f#contrib/}"
	done
	listed "$list" "$doc/NEWS.md" || missing+=" $doc/NEWS.md"
	if [ -z "$missing" ]; then pass "$name-contents"; else fail "$name-contents" "missing:$missing"; fi
}

# man_versions NAME DIR: every man page under DIR says "rdmactl VERSION" on its .TH line.
man_versions() {
	local name=$1 dir=$2 m bad=""
	for m in "$dir"/usr/share/man/man8/*; do
		case $m in
		*.gz) head -1 < <(zcat "$m") ;;
		*.bz2) head -1 < <(bzcat "$m") ;;
		*) head -1 "$m" ;;
		esac | grep -qF "\"rdmactl $VERSION\"" || bad+=" $(basename "$m")"
	done
	if [ -z "$bad" ]; then pass "$name-man-version"; else fail "$name-man-version" "not $VERSION:$bad"; fi
}

# readme_links NAME DIR: every page README.md links to (doc/commands.md,
# the report's picture ...) is installed beside it, uncompressed, so the
# links of the README an operator reads on a node lead somewhere.
readme_links() {
	local name=$1 dir=$2/usr/share/doc/rdmactl l bad=""
	[ -f "$dir/README.md" ] || bad+=" README.md"
	while read -r l; do
		[ -f "$dir/$l" ] || bad+=" $l"
	done < <(grep -oE '\]\([^)#:]+\)' README.md | sed 's/^](//; s/)$//' | sort -u)
	if [ -z "$bad" ]; then pass "$name-readme-links"; else fail "$name-readme-links" "not installed:$bad"; fi
}

# news NAME DIR: the NEWS an operator reads is installed, uncompressed,
# and its newest entry is this version.
news() {
	local f=$2/usr/share/doc/rdmactl/NEWS.md
	check "$1-news" "$f: missing, or its first entry is not ## $VERSION" \
		bash -c '[ "$(grep -m 1 "^## " "$0")" = "## $1" ]' "$f" "$VERSION"
}

# deb_upgrade: the .deb's postinst, run as dpkg runs it, with systemd
# present (/run/systemd/system, in a mount namespace of its own) and
# systemctl, deb-systemd-helper and deb-systemd-invoke recording their
# calls: an upgrade (configure OLD-VERSION) try-restarts the probe server,
# as the .rpm's %systemd_postun_with_restart does; a first install starts
# and enables nothing.  (That a running server is then running the new
# binary under systemd as PID 1 is the lab's; this host has no systemd.)
deb_upgrade() {
	local ctl=$TMPD/deb-control stubs=$TMPD/stubs s
	dpkg-deb -e "$DEB" "$ctl" || return 1
	mkdir -p "$stubs"
	for s in systemctl deb-systemd-helper deb-systemd-invoke; do
		printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' "$s" "$stubs" >"$stubs/$s"
		chmod +x "$stubs/$s"
	done
	# As on a node that never had the units enabled: deb-systemd-helper
	# knows no earlier install and no enabled link.
	printf 'case "$1 $2" in debian-installed* | "--quiet was-enabled") exit 1 ;; esac\n' \
		>>"$stubs/deb-systemd-helper"
	postinst_calls() {
		rm -f "$stubs/calls"
		unshare --mount sh -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system &&
			PATH="$0:$PATH" sh "$1" configure $2' "$stubs" "$ctl/postinst" "$1" >/dev/null 2>&1 || return 1
		cat "$stubs/calls" 2>/dev/null
	}
	postinst_calls 0.0.9 >"$TMPD/upgrade.calls" && postinst_calls '' >"$TMPD/install.calls" || return 1
	check deb-upgrade-restarts "upgrade ran: $(tr '\n' ';' <"$TMPD/upgrade.calls")" \
		grep -qx 'deb-systemd-invoke try-restart rdmactl-probe.service' "$TMPD/upgrade.calls"
	check deb-install-starts-nothing "first install ran: $(tr '\n' ';' <"$TMPD/install.calls")" \
		bash -c '! grep -E "deb-systemd-invoke|systemctl .*(start|enable)|deb-systemd-helper enable" "$0"' \
		"$TMPD/install.calls"
}

if have deb dpkg-buildpackage dpkg-dev && have deb-lintian lintian lintian &&
	have deb-debhelper dh debhelper && build_deb; then
	contents deb "$TMPD/deb.files" '\.gz' /usr/share/zsh/vendor-completions /lib/systemd/system \
		/usr/share/doc/rdmactl
	check deb-version "the .deb is $(dpkg-deb -f "$DEB" Version), VERSION $VERSION" \
		[ "$(dpkg-deb -f "$DEB" Version)" = "$VERSION" ]
	check deb-depends-from-shlibs "Depends lacks libibverbs1 or librdmacm1" \
		bash -c '[[ $(dpkg-deb -f "$0" Depends) == *libibverbs1* && $(dpkg-deb -f "$0" Depends) == *librdmacm1* ]]' "$DEB"
	mkdir -p "$TMPD/deb" && dpkg-deb -x "$DEB" "$TMPD/deb"
	man_versions deb "$TMPD/deb"
	readme_links deb "$TMPD/deb"
	news deb "$TMPD/deb"
	if [ "$(id -u)" != 0 ]; then
		skip deb-upgrade-restarts "needs root (a mount namespace for /run/systemd/system)"
	else
		deb_upgrade || fail deb-upgrade-restarts "could not run the .deb's postinst"
	fi
	check deb-examples-executable "the Slurm scripts are not executable" \
		test -x "$TMPD/deb/usr/share/doc/rdmactl/examples/slurm/rdmactl-healthcheck"
	check deb-taskprolog-executable "the TaskProlog example is not executable" \
		test -x "$TMPD/deb/usr/share/doc/rdmactl/examples/slurm/rdmactl-taskprolog"
fi

# ---- install, use and purge the .deb ----
# The names under /etc, /usr, /lib and /var that mention rdmactl; not
# man-db's cache of formatted pages (/var/cache/man), which reading a page
# fills (systemd-analyze verify reads the units' Documentation=) and
# man-db's own cron job empties.
traces() {
	find /etc /usr /lib /var -xdev -path /var/cache/man -prune -o -name '*rdmactl*' -print \
		2>/dev/null | sort
}

use_installed() {
	local out
	out=$(man -w rdmactl-gids 2>&1)
	check install-man "man -w rdmactl-gids: $out" [ "$out" = /usr/share/man/man8/rdmactl-gids.8.gz ]
	out=$(bash --norc --noprofile -c '. /usr/share/bash-completion/bash_completion
		_completion_loader rdmactl; complete -p rdmactl
		COMP_WORDS=(rdmactl doct); COMP_CWORD=1; _rdmactl; echo "${COMPREPLY[*]}"' 2>&1)
	check install-bash-completion "bash loaded: $out" \
		grep -qx 'complete -F _rdmactl rdmactl' <<<"$out"
	check install-bash-complete-word "completing 'rdmactl doct' gave: $out" grep -qx doctor <<<"$out"
	out=$(/usr/bin/rdmactl --version 2>&1)
	check install-binary "/usr/bin/rdmactl --version: $out" [ "$out" = "rdmactl $VERSION" ]
	check install-binary-runs "/usr/bin/rdmactl doctor on a fixture failed" \
		bash -c '/usr/bin/rdmactl --root tests/fixtures/doctor-healthy doctor --metrics | promtool check metrics'
	for u in rdmactl-probe.service rdmactl-doctor.service rdmactl-doctor.timer; do
		out=$(systemd-analyze verify "/lib/systemd/system/$u" 2>&1)
		check "install-verify-$u" "systemd-analyze verify: $(tr '\n' ' ' <<<"$out")" [ -z "$out" ]
	done
	check install-units-disabled "a unit was enabled on install" \
		bash -c '! ls /etc/systemd/system/*/rdmactl-* 2>/dev/null | grep -q .'
}

install_purge() {
	local before after
	if dpkg -s rdmactl >/dev/null 2>&1; then
		skip install "rdmactl is already installed here: not replacing it"
		return
	fi
	before=$(traces)
	if ! dpkg -i "$DEB" >"$TMPD/install.log" 2>&1; then
		fail install "dpkg -i: $(tail -3 "$TMPD/install.log" | tr '\n' ' ')"
		dpkg --purge rdmactl >/dev/null 2>&1
		return
	fi
	pass install
	use_installed
	if dpkg --purge rdmactl >"$TMPD/purge.log" 2>&1; then pass purge; else
		fail purge "dpkg --purge: $(tail -3 "$TMPD/purge.log" | tr '\n' ' ')"
	fi
	after=$(traces)
	check purge-leaves-nothing "left behind: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')" \
		[ "$before" = "$after" ]
}

if [ -z "$DEB" ]; then
	skip install "no .deb was built"
elif [ "$(id -u)" != 0 ]; then
	skip install "needs root (dpkg -i)"
elif have install man man-db && have install systemd-analyze systemd &&
	have install promtool prometheus; then
	install_purge
fi
# The host's dpkg is done with: what waits to boot guests on this root
# (make check's systemd lab) may start now, beside the rest of this suite.
[ -z "${PKG_DEB_DONE-}" ] || : >"$PKG_DEB_DONE"

# ---- make rpm ----
RPM=
if have rpm rpmbuild rpm && have rpm-rpmlint rpmlint rpmlint; then
	if make -s rpm >"$TMPD/rpm.log" 2>&1; then
		pass rpm
		check rpm-rpmlint "rpmlint: $(grep -E ' E: ' "$TMPD/rpm.log" | tr '\n' ' ')" \
			grep -qE '^ *1 packages and 1 specfiles checked; 0 errors' "$TMPD/rpm.log"
		RPM=$(ls "$BUILD"/pkg/rpm/RPMS/*/rdmactl-"$VERSION"-*.rpm | head -1)
		rpm -qlp "$RPM" 2>/dev/null >"$TMPD/rpm.files"
		contents rpm "$TMPD/rpm.files" '(\.[a-z0-9]+)?' /usr/share/zsh/site-functions \
			/usr/lib/systemd/system /usr/share/doc/rdmactl
		check rpm-version "the .rpm is $(rpm -qp --qf '%{VERSION}' "$RPM" 2>/dev/null), VERSION $VERSION" \
			[ "$(rpm -qp --qf '%{VERSION}' "$RPM" 2>/dev/null)" = "$VERSION" ]
		check rpm-requires-found "rpm found no libibverbs requirement" \
			bash -c 'rpm -qp --requires "$0" 2>/dev/null | grep -q "^libibverbs.so.1"' "$RPM"
		mkdir -p "$TMPD/rpm" && (cd "$TMPD/rpm" && rpm2archive -n <"$RPM" | tar -xf - 2>/dev/null ||
			rpm2cpio "$RPM" | cpio -idm --quiet)
		man_versions rpm "$TMPD/rpm"
		readme_links rpm "$TMPD/rpm"
		news rpm "$TMPD/rpm"
		# Debian's rpm has no systemd macros, so the package built here
		# holds no scriptlet for them: the spec is what RHEL's rpmbuild
		# expands into a try-restart of the probe server on upgrade.
		check rpm-upgrade-restarts "the spec's %postun does not restart rdmactl-probe.service" \
			grep -qx '%{?systemd_postun_with_restart:%systemd_postun_with_restart rdmactl-probe.service}' \
			rpm/rdmactl.spec.in
	else
		fail rpm "make rpm failed: $(grep -E ' E: |error' "$TMPD/rpm.log" | tail -5 | tr '\n' ' ')"
	fi
fi

# ---- one version: the binary, its JSON, its metrics ----
check version-binary "rdmactl --version says $("$BIN" --version)" [ "$("$BIN" --version)" = "rdmactl $VERSION" ]
check version-json "rdmactl -j --version disagrees" \
	bash -c 'set -o pipefail; "$0" -j --version | json_one --arg v "$1" ".version == \$v"' "$BIN" "$VERSION"
check version-doctor-json "the doctor's node.software disagrees" \
	bash -c 'set -o pipefail; "$0" --root tests/fixtures/doctor-healthy -j doctor | json_one --arg v "rdmactl $1" ".node.software == \$v"' \
	"$BIN" "$VERSION"
check version-metrics "rdmactl_info disagrees" \
	bash -c '"$0" --root tests/fixtures/doctor-healthy doctor --metrics | grep -qxF "rdmactl_info{version=\"$1\"} 1"' \
	"$BIN" "$VERSION"

# Last: the packages first, as make check's systemd lab waits for the .deb.
have metrics promtool prometheus && metrics_fixtures
exit $((FAILED > 0))
