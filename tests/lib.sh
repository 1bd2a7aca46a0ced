# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of the shell tests: every test builds its hosts as network
# namespaces of its own and removes them on every exit path. Nothing here
# touches the namespace the test was started in.
#
# Environment (set by meson): IB_HOOK (the built binary), IB_HOOK_SYSCONFDIR
# (where the binary looks for ib-hook.conf in hook mode).

set -u

IB_HOOK=${IB_HOOK:-$(cd "$(dirname "$0")/../.." && pwd)/build/src/ib-hook}
IB_HOOK_SYSCONFDIR=${IB_HOOK_SYSCONFDIR:-/usr/local/etc}
T_NAME=$(basename "$0" .sh)
T_PFX="ibt$$-"
T_DIR=$(mktemp -d "/tmp/ib-hook-test.XXXXXX")
chmod 0755 "$T_DIR" # the unprivileged runs read its configs
T_NS=""
T_FAILED=0
T_COUNT=0

T_RECORDS=""

# Every `ip` of the test, in this shell and in every program it starts, is
# $T_DIR/query-bin/ip: iproute2's, but a query of the kernel (show, list, no verb;
# netns pids) that fails is noted in $T_DIR/query.faults, which done_testing
# reports: the check of an absence (`! ip ... | grep`, an empty "$(ip ...)")
# must not pass because the query failed and printed nothing. Not failures:
# a reader that stopped reading (grep -q: SIGPIPE, 141), and a table the
# kernel does not have (exit 2, "FIB table does not exist": it is empty).
# Anything else is iproute2's own, exec'd (`ip netns exec ... &` keeps its pid).
T_IP=$(command -v ip)
if [ -n "$T_IP" ]; then
	mkdir -m 0755 "$T_DIR/query-bin"
	cat >"$T_DIR/query-bin/ip" <<EOF
#!/bin/sh
query=
skip=
for a; do
	if [ -n "\$skip" ]; then skip=; continue; fi
	case \$a in
	-n | -netns | -f | -family | -b | -batch | -rc | -rcvbuf | -l | -loops) skip=1; continue ;;
	-*) continue ;;
	esac
	if [ -z "\$query" ]; then
		case \$a in
		monitor | help) break ;;
		netns) query=netns ;;
		*) query=object ;;
		esac
		continue
	fi
	case \$query:\$a in
	netns:list | netns:pids | object:show | object:list | object:lst | object:ls) query=yes ;;
	*) query=no ;;
	esac
	break
done
case \$query in netns | object) query=yes ;; esac
[ "\$query" = yes ] || exec "$T_IP" "\$@"
{ err=\$("$T_IP" "\$@" 2>&1 >&3 3>&-); rc=\$?; } 3>&1
[ -z "\$err" ] || printf '%s\n' "\$err" >&2
case \$rc:\$err in
0:* | 141:* | 2:*"FIB table does not exist"*) ;;
*) printf 'ip %s: exit %s: %s\n' "\$*" "\$rc" "\$(printf '%s\n' "\$err" | head -n 1)" >>"$T_DIR/query.faults" 2>/dev/null ;;
esac
exit \$rc
EOF
	chmod 0755 "$T_DIR/query-bin/ip"
	PATH=$T_DIR/query-bin:$PATH
fi

# IB_HOOK_TEST_SCALE (tests/run sets it from the machine's load, 1 if not
# given): every wait for a condition is that many times as long, so that a
# loaded machine is given the time it needs; a wait that ends on its
# condition costs no more for it
T_SCALE=${IB_HOOK_TEST_SCALE:-1}
case $T_SCALE in '' | *[!0-9]* | 0) T_SCALE=1 ;; esac
# scaled SECONDS: SECONDS (a fraction too) times $T_SCALE
scaled() {
	awk -v s="$1" -v k="$T_SCALE" 'BEGIN { print s * k }'
}

# t_record NS [CMD...]: the record ib-hook keeps for namespace NS (as CMD, by
# default $IB_HOOK, names it) in the host's /run/ib-hook, noted so that it goes
# with the namespace: the file outlives it
t_record() {
	local n=$1 rec
	shift
	rec=$(ip netns exec "$n" "${@:-$IB_HOOK}" --config /dev/null --status --json 2>/dev/null |
		sed -n 's|.*"record":"\(/run/ib-hook/netns-[^"/]*\)".*|\1|p')
	[ -z "$rec" ] || T_RECORDS="$T_RECORDS $rec"
}

# lacks PATTERN CMD...: CMD succeeds, and no line of its output matches the
# extended regular expression PATTERN: the check of an absence, which a CMD
# that failed (and so printed nothing) does not pass
lacks() {
	local out pat=$1
	shift
	out=$("$@") || return 1
	! printf '%s\n' "$out" | grep -qE -- "$pat"
}

# ns_del FULLNAME: one of the test's namespaces goes (its processes, its record)
ns_del() {
	t_record "$1"
	ip netns pids "$1" 2>/dev/null | xargs -r kill -9 2>/dev/null
	ip netns del "$1" 2>/dev/null
	T_NS=${T_NS/ $1/}
}

t_cleanup() {
	for ns in $T_NS; do
		ns_del "$ns"
	done
	for rec in $T_RECORDS; do
		rm -f "$rec" "$rec.watch" "$rec".*.tmp "$rec".routes-*
	done
	# the CNI plugin's container files (tests/cni: ctr-$T_PFX...), which name a record
	rm -f /run/ib-hook/cni-ctr-"$T_PFX"*
	rm -rf "$T_DIR"
}
trap t_cleanup EXIT
trap 'exit 130' INT TERM

skip() {
	echo "SKIP: $*"
	exit 77
}

# t_require [CMD...]: root, ip, the built binary, network namespaces, and
# python3 (meson's own interpreter: where meson runs it is there; the checks
# of --json documents need it, and none is left out without it), else skip
t_require() {
	[ "$(id -u)" = 0 ] || skip "needs root to create network namespaces"
	command -v ip >/dev/null || skip "needs ip (iproute2)"
	command -v python3 >/dev/null || skip "needs python3 (meson's interpreter) to validate JSON"
	[ -x "$IB_HOOK" ] || skip "no ib-hook binary at $IB_HOOK"
	ip netns add "${T_PFX}probe" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns del "${T_PFX}probe"
	for cmd in "$@"; do
		command -v "$cmd" >/dev/null || skip "needs $cmd"
	done
}

# ns NAME: the full name of this test's namespace NAME
ns() {
	echo "$T_PFX$1"
}

ns_new() {
	ip netns add "$T_PFX$1" || exit 1
	T_NS="$T_NS $T_PFX$1"
	ip -n "$T_PFX$1" link set lo up
}

# nsx NAME CMD...: run CMD inside namespace NAME
nsx() {
	local n=$1
	shift
	ip netns exec "$T_PFX$n" "$@"
}

# ipv6_quiet NS: on the links NS gets from now on no router solicitations,
# no DAD and no repeated unsolicited MLD reports, which a test's packet
# counters would count (an address's first report is sent as it is added)
ipv6_quiet() {
	nsx "$1" sysctl -qw net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.all.router_solicitations=0 net.ipv6.conf.default.dad_transmits=0 \
		net.ipv6.conf.all.dad_transmits=0 net.ipv6.conf.default.mldv1_unsolicited_report_interval=0 \
		net.ipv6.conf.default.mldv2_unsolicited_report_interval=0 \
		net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
}

# veth NS IF PEER [PEER_NS]: a veth pair named like an IB port, both ends up
veth() {
	if [ $# -ge 4 ]; then
		ip -n "$T_PFX$1" link add "$2" type veth peer name "$3" netns "$T_PFX$4" || exit 1
		ip -n "$T_PFX$4" link set "$3" up
	else
		ip -n "$T_PFX$1" link add "$2" type veth peer name "$3" || exit 1
		ip -n "$T_PFX$1" link set "$3" up
	fi
	ip -n "$T_PFX$1" link set "$2" up
}

# segment SW NS:IF...: namespace SW with a bridge br0 that joins a veth IF
# of each NS (its end in SW: sNSIF), as a switch joins the ports of one subnet
segment() {
	local sw=$1 end
	shift
	ns_new "$sw"
	ip -n "$T_PFX$sw" link add br0 type bridge || exit 1
	ip -n "$T_PFX$sw" link set br0 up
	for end; do
		veth "${end%%:*}" "${end#*:}" "s${end%%:*}${end#*:}" "$sw"
		ip -n "$T_PFX$sw" link set "s${end%%:*}${end#*:}" master br0
	done
}

addr() {
	ip -n "$T_PFX$1" addr add "$3" dev "$2" || exit 1
}

# port_host NS PORT ADDR [PORT ADDR]...: namespace NS with a veth per PORT
# (peer pPORT, not managed) holding ADDR ("-" for none), and $T_DIR/NS.conf
# that manages exactly those ports
port_host() {
	ph_ns=$1
	shift
	ph_names=""
	ns_new "$ph_ns"
	while [ $# -ge 2 ]; do
		veth "$ph_ns" "$1" "p$1"
		[ "$2" = - ] || addr "$ph_ns" "$1" "$2"
		ph_names="$ph_names $1"
		shift 2
	done
	printf '[Match]\nName=%s\n' "${ph_names# }" | conf "$ph_ns"
}

# table_of NS IF: T(IF) with the default TableBase
table_of() {
	echo $((1000 + $(ip -n "$T_PFX$1" -o link show "$2" | cut -d: -f1)))
}

# conf NAME: write stdin to $T_DIR/NAME.conf (root-owned, 0644)
conf() {
	cat >"$T_DIR/$1.conf"
	chmod 0644 "$T_DIR/$1.conf"
}

T_SRC=${IB_HOOK_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}

# json_checked CMD...: CMD, whose stdout is a --json document: printed as it
# is, and validated against doc/ib-hook.schema.json (strictly: no member the
# schema does not name); a document that is not valid, or an exit 0 or 1
# without one, is noted in $T_DIR/json.faults, which done_testing reports
json_checked() {
	local out rc err
	out=$("$@")
	rc=$?
	[ -z "$out" ] || printf '%s\n' "$out"
	if [ -z "$out" ]; then
		[ $rc -gt 1 ] || echo "$*: exit $rc without a document" >>"$T_DIR/json.faults"
	elif ! err=$(printf '%s\n' "$out" | python3 "$T_SRC/tests/validate-json.py" \
		"$T_SRC/doc/ib-hook.schema.json" 2>&1); then
		echo "$*: $err" >>"$T_DIR/json.faults"
	fi
	echo >>"$T_DIR/json.count"
	return $rc
}

# ibh NS ARGS...: run ib-hook by hand in NS (stdout and stderr as they are);
# with --json, its document is validated (json_checked)
ibh() {
	n=$1
	shift
	case " $* " in
	*" --json "*) json_checked ip netns exec "$T_PFX$n" "$IB_HOOK" "$@" ;;
	*) ip netns exec "$T_PFX$n" "$IB_HOOK" "$@" ;;
	esac
}

# hook NS CONF VAR=VALUE...: run ib-hook as a dispatcher does: no arguments,
# only the dispatcher's variables, the test's config in place of the installed
# one, and no journal (messages go to stderr).
hook() {
	n=$1
	cfg=$2
	shift 2
	[ -d "$IB_HOOK_SYSCONFDIR" ] || skip "no $IB_HOOK_SYSCONFDIR to mount the test config on"
	ip netns exec "$T_PFX$n" sh -c '
		cfg=$1 dir=$2 bin=$3
		shift 3
		mount -t tmpfs -o mode=0755 tmpfs "$dir" || exit 90
		if [ -n "$cfg" ]; then cp "$cfg" "$dir/ib-hook.conf"; fi
		if [ -d /run/systemd/journal ]; then mount -t tmpfs tmpfs /run/systemd/journal; fi
		exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" "$bin"
	' hook "$cfg" "$IB_HOOK_SYSCONFDIR" "$IB_HOOK" "$@"
}

# with_etc NS DIR [VAR=VALUE...] [-- ARGS...]: ib-hook in NS with DIR (holding
# ib-hook.conf and ib-hook.conf.d/, as /etc does) mounted on the built
# binary's sysconfdir, only the given variables (a dispatcher's), no journal;
# with --json, its document is validated (json_checked)
with_etc() {
	case " $* " in
	*" -- "*" --json "*) json_checked with_etc_ "$@" ;;
	*) with_etc_ "$@" ;;
	esac
}
with_etc_() {
	n=$1
	dir=$2
	shift 2
	[ -d "$IB_HOOK_SYSCONFDIR" ] || skip "no $IB_HOOK_SYSCONFDIR to mount the test config on"
	ip netns exec "$T_PFX$n" sh -c '
		dir=$1 etc=$2 bin=$3
		shift 3
		mount --bind "$dir" "$etc" || exit 90
		if [ -d /run/systemd/journal ]; then mount -t tmpfs tmpfs /run/systemd/journal; fi
		vars=
		while [ $# -gt 0 ] && [ "$1" != -- ]; do vars="$vars $1"; shift; done
		[ $# -gt 0 ] && shift
		# VAR=VALUE words hold no blanks
		exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin $vars "$bin" "$@"
	' with_etc "$dir" "$IB_HOOK_SYSCONFDIR" "$IB_HOOK" "$@"
}

ok() {
	T_COUNT=$((T_COUNT + 1))
	echo "ok $T_COUNT - $*"
}

not_ok() {
	T_COUNT=$((T_COUNT + 1))
	T_FAILED=$((T_FAILED + 1))
	echo "not ok $T_COUNT - $*"
}

# check DESCRIPTION CMD...: ok when CMD succeeds
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

# expect_eq DESCRIPTION EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		printf '  expected: %s\n  actual:   %s\n' "$2" "$3" | sed 's/^/#/'
	fi
}

# expect_rc DESCRIPTION EXPECTED_RC CMD...
expect_rc() {
	d=$1
	want=$2
	shift 2
	"$@" >"$T_DIR/out" 2>"$T_DIR/err"
	rc=$?
	if [ "$rc" = "$want" ]; then
		ok "$d (exit $rc)"
	else
		not_ok "$d (exit $rc, wanted $want)"
		sed 's/^/#  stderr: /' "$T_DIR/err"
	fi
}

# state NS: rules, and every table's routes but the local one (for comparisons)
state() {
	ip -n "$T_PFX$1" rule show
	ip -n "$T_PFX$1" -6 rule show
	ip -n "$T_PFX$1" route show table all | grep -v -e '^local ' -e '^broadcast ' -e '^multicast ' -e ' table local '
	ip -n "$T_PFX$1" -6 route show table all | grep -v -e '^local ' -e '^multicast ' -e ' table local '
}

# sysctls NS IF: the per-interface IPv4 settings ib-hook may change
sysctls() {
	for k in arp_ignore arp_announce rp_filter accept_local; do
		printf '%s=%s ' "$k" "$(nsx "$1" cat "/proc/sys/net/ipv4/conf/$2/$k")"
	done
}

# rules_from NS ADDR: the rule lines for source ADDR
rules_from() {
	ip -n "$T_PFX$1" rule show | grep -c "from $2 " || true
}

done_testing() {
	if [ -s "$T_DIR/query.faults" ]; then
		not_ok "every query of the kernel succeeded (one that failed reads as an absence)"
		sed 's/^/#  /' "$T_DIR/query.faults" | head -n 10
	fi
	if [ -s "$T_DIR/json.faults" ]; then
		not_ok "every --json document is valid against doc/ib-hook.schema.json"
		sed 's/^/#  /' "$T_DIR/json.faults"
	elif [ -s "$T_DIR/json.count" ]; then
		ok "every --json document ($(wc -l <"$T_DIR/json.count")) is valid against doc/ib-hook.schema.json"
	fi
	echo "1..$T_COUNT"
	[ "$T_FAILED" = 0 ] || {
		echo "# $T_FAILED of $T_COUNT checks failed in $T_NAME"
		exit 1
	}
	exit 0
}
