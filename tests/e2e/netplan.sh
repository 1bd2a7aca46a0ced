#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end test (issue 44): the ib-hook package on a booted Debian 12 host
# whose ports netplan configures (netplan.io 0.106, `renderer: networkd`):
# the seed lab's own stack, netplan -> systemd-networkd -> networkd-dispatcher.
#
#   tests/e2e/netplan.sh PATH-TO-DEB     (root)
#
# The root is tests/e2e/root.sh's netplan root (the networkd root with
# netplan.io and udev installed into it, both cached). The package is installed into
# it in a chroot; it is booted twice with systemd-nspawn --private-network
# --volatile=overlay, once per layout of /etc/netplan/60-ib.yaml:
#
#   subnet  memserver34: ib0 172.16.34.1/16, ib1 172.16.34.2/16
#   rails   ib0 10.0.0.1/31, ib1 10.1.0.1/31, each `routes:` a default via
#           its peer (10.N.0.0) with metric 100 + N
#
# ib0 and ib1 are veths made after boot in the container's network namespace,
# their peers in a namespace the test makes and deletes. In each layout: after
# boot, `netplan apply`, `systemctl restart systemd-networkd` and a bounce of
# ib1, `ib-hook --status` exits 0, the rules and T(X) are as expected and
# `ip route get` from each port's address leaves through that port. Then, in
# the subnet layout, the site's own netplan `routes: table:` (a route through
# ib1) and `routing-policy:` in T(ib0), the table TableBase + ifindex picks:
# netplan's route appearing while ib-hook owns T(ib0), with the watcher and
# without it, and ib-hook meeting it there. ib-hook refuses ib0, naming the
# route in the way, how the table came about and the way out, which works
# ([Tables]: what ib-hook left in T(ib0) is taken back); ib1 stays as it was,
# and the site's rules and routes are byte-identical before and after. Last,
# the site's route and rule in T(ib1) with the route through ib1 itself:
# SPEC section 3 shares that table (nothing refused). The host's
# network namespace is never changed.
#
# Output: "PASS: e2e-netplan: ..." / "FAIL: e2e-netplan: ..." per check,
# "# ..." diagnostics. Exit 0 all passed, 1 a check failed, 77 a
# prerequisite is missing (which one is said). E2E_TIME_LIMIT (420 s) bounds
# the test once its root is there.
set -u
export LC_ALL=C.UTF-8
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
DEB=${1:?usage: netplan.sh PATH-TO-DEB}
TIME_LIMIT=${E2E_TIME_LIMIT:-420}
here=$(cd "$(dirname "$0")" && pwd)

CELL=e2e-netplan
# shellcheck source=tests/e2e/cell.sh
. "$here/cell.sh"
cell_begin mmdebstrap systemd-nspawn nsenter unshare tar timeout ip

# shellcheck source=tests/e2e/container.sh
. "$here/container.sh"
WORK='' WATCHDOG=''
MACHINE=ibhook-netplan-$$
# the container's namespace while it runs, and the one of the ports' peers
NS_CT=ibhook-netplan-$$-ct
NS_SW=ibhook-netplan-$$-sw
HOST_BEFORE=$(host_state)
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	[ -n "$WATCHDOG" ] && kill "$WATCHDOG" 2>/dev/null
	remove_work
	ip netns del "$NS_CT" 2>/dev/null
	ip netns del "$NS_SW" 2>/dev/null
	exit $rc
}
trap cleanup EXIT
trap 'fail "interrupted"; exit 1' INT
trap 'fail "time limit of ${TIME_LIMIT}s exceeded"; exit 1' TERM

echo "# ib-hook end-to-end test: netplan (renderer networkd) in a booted bookworm container"
TAR=$("$here/root.sh" netplan bookworm 2>"/tmp/ib-hook-netplan-root.$$.log") || {
	rc=$?
	tail -n 20 "/tmp/ib-hook-netplan-root.$$.log" | diag
	rm -f "/tmp/ib-hook-netplan-root.$$.log"
	[ $rc = 77 ] && skip "no Debian mirror configured"
	fail "building the bookworm root with netplan.io"
	exit 1
}
rm -f "/tmp/ib-hook-netplan-root.$$.log"
echo "# root $(basename "$TAR") (${SECONDS}s)"
# the test's own time from here (a cold root is bounded by root.sh's timeouts)
start_watchdog "$TIME_LIMIT"

# expected LAYOUT N: T(ibN) as ib-hook leaves it
expected() {
	case $1 in
	subnet) echo "172.16.0.0/16 dev ib$2 proto kernel scope link src 172.16.34.$(($2 + 1))" ;;
	rails)
		echo "default via 10.$2.0.0 dev ib$2 proto kernel metric $((100 + $2))"
		echo "10.$2.0.0/31 dev ib$2 proto kernel scope link src 10.$2.0.1"
		;;
	esac
}
# addr_of LAYOUT N, dst_of LAYOUT: port N's address; an address beyond the ports
addr_of() { [ "$1" = subnet ] && echo "172.16.34.$(($2 + 1))" || echo "10.$2.0.1"; }
dst_of() { [ "$1" = subnet ] && echo 172.16.16.1 || echo 10.99.0.1; }

# netplan_yaml LAYOUT [SITE]: /etc/netplan/60-ib.yaml of LAYOUT; SITE, when
# given, is appended to ib1's stanza (the site's own routes and rules)
netplan_yaml() {
	local n
	printf 'network:\n  version: 2\n  renderer: networkd\n  ethernets:\n'
	for n in 0 1; do
		printf '    ib%s:\n      addresses: [%s/%s]\n      accept-ra: false\n' \
			"$n" "$(addr_of "$1" "$n")" "$([ "$1" = subnet ] && echo 16 || echo 31)"
		[ "$1" = subnet ] ||
			printf '      routes:\n        - to: default\n          via: 10.%s.0.0\n          metric: %s\n' \
				"$n" $((100 + n))
	done
	[ -z "${2:-}" ] || printf '%s\n' "$2"
}

# ports LAYOUT: ib0 and ib1 in the container's namespace, veths whose peers
# ib0p and ib1p are in $NS_SW (the rails' gateways there)
ports() {
	ip netns attach "$NS_CT" "$LEADER" && ip netns add "$NS_SW" &&
		ip -n "$NS_SW" link set lo up || return 1
	for i in 0 1; do
		ip -n "$NS_CT" link add "ib$i" type veth peer name "ib${i}p" netns "$NS_SW" &&
			ip -n "$NS_SW" link set "ib${i}p" up || return 1
		[ "$1" = rails ] && { ip -n "$NS_SW" addr add "10.$i.0.0/31" dev "ib${i}p" || return 1; }
	done
	return 0
}

# the root unpacked once, networkd enabled, ib-hook's config, the package
# installed; each boot writes its layout's YAML (--volatile=overlay: nothing
# of a boot stays in the root)
unpack_root "$TAR" ib-hook-netplan || { fail "unpacking $TAR"; exit 1; }
systemctl --root="$ROOT" enable systemd-networkd.service systemd-networkd.socket >/dev/null 2>&1
systemctl --root="$ROOT" disable systemd-networkd-wait-online.service >/dev/null 2>&1
mkdir -p "$ROOT/etc/netplan"
printf '[Match]\nName=ib0 ib1\n' >"$ROOT/etc/ib-hook.conf"
install_deb "$ROOT" "$DEB" >"$WORK/dpkg.log" 2>&1 ||
	{ fail "dpkg -i in the root"; diag <"$WORK/dpkg.log"; exit 1; }
pass "dpkg -i $(basename "$DEB") in the root (chroot, private netns)"

# boot_layout LAYOUT: netplan's YAML of LAYOUT in the root, booted, the ports made
boot_layout() {
	netplan_yaml "$1" >"$ROOT/etc/netplan/60-ib.yaml"
	# (netplan warns about a file others can read)
	chmod 0600 "$ROOT/etc/netplan/60-ib.yaml"
	diag <"$ROOT/etc/netplan/60-ib.yaml"
	boot || { fail "$1: booting the container"; tail -n 30 "$CONSOLE" | diag; return 1; }
	ports "$1" || { fail "$1: making the ports"; return 1; }
	pass "$1: booted ($(ct dpkg-query -W -f 'netplan.io ${Version}' netplan.io), $(ct systemctl --version |
		head -n 1)), ports made (${SECONDS}s)"
}

# apply: `netplan apply` in the container. netplan 0.106 runs `udevadm
# trigger --attr-match=subsystem=net` before it reloads networkd, and stops
# when that fails: on the read-only /sys systemd-nspawn gives a container (a
# real host's is writable) the write to a port's uevent file fails with EROFS.
# So netplan runs in a mount namespace of its own with a sysfs of its own,
# writable: the container's namespace tags that sysfs, which shows the
# container's net devices alone (lo, ib0, ib1), and their uevents go to that
# network namespace only, where no udevd runs (systemd-udevd.service wants a
# writable /sys). The container's own /sys stays read-only; booting it with a
# writable one would have its udevd trigger every device of the host.
apply() {
	CT_TIMEOUT=90 ct unshare --mount --propagation private sh -c '
		mount -t sysfs sysfs /sys && mount -o remount,rw /sys || exit 90
		exec netplan apply'
}

# configured: networkd reports both ports configured
configured() {
	local out
	out=$(ct networkctl list --no-legend 2>/dev/null) || return 1
	[ "$(echo "$out" | grep -Ec ' ib[01] +ether +routable +configured')" = 2 ]
}

# right LAYOUT: --status exits 0; one rule from each port's address to its
# table, before main; T(X) exactly as expected; the route from each port's
# address leaves through that port (REASON says what is not)
right() {
	local n a t rules got get
	ct ib-hook --status >"$WORK/status" 2>&1 ||
		{ REASON="ib-hook --status: $(grep -E 'verdict|managed' "$WORK/status" | tr '\n' '|')"; return 1; }
	rules=$(ct ip -4 rule show) || { REASON="ip rule failed"; return 1; }
	for n in 0 1; do
		a=$(addr_of "$1" "$n")
		t=$((1000 + $(ct cat "/sys/class/net/ib$n/ifindex")))
		[ "$(echo "$rules" | grep -Ec "^[0-9]+:[[:space:]]+from $a lookup $t( |\$)")" = 1 ] ||
			{ REASON="ip rule: $(echo "$rules" | tr '\n\t' '| ')"; return 1; }
		[ "$(echo "$rules" | grep -E "from $a lookup $t" | cut -d: -f1)" -lt 32766 ] ||
			{ REASON="the rule from $a is not before main"; return 1; }
		got=$(ct ip -4 route show table "$t" | sed 's/[[:space:]]*$//' | sort)
		# (with SHARED set, the site's routes there, networkd's, do not count)
		[ -z "${SHARED:-}" ] || got=$(echo "$got" | grep -v ' proto static$')
		[ "$got" = "$(expected "$1" "$n" | sort)" ] ||
			{ REASON="table $t: '$(echo "$got" | tr '\n' '|')'"; return 1; }
		get=$(ct ip -4 route get "$(dst_of "$1")" from "$a")
		case $get in
		*" dev ib$n "*) ;;
		*) REASON="ip route get $(dst_of "$1") from $a: '$get'"; return 1 ;;
		esac
		if [ "$1" = rails ]; then
			case $get in
			*" via 10.$n.0.0 dev ib$n "*) ;;
			*) REASON="ip route get $(dst_of "$1") from $a: '$get'"; return 1 ;;
			esac
		fi
	done
	return 0
}
# settled LAYOUT SECONDS: right within SECONDS, and still so once systemd has
# no job left and 2 s later (networkd deletes foreign state on its own time)
no_jobs() { [ -z "$(ct systemctl list-jobs --no-legend 2>/dev/null)" ]; }
settled() {
	wait_until "$2" configured || { REASON="networkd did not configure ib0 and ib1"; return 1; }
	wait_until "$2" right "$1" || return 1
	wait_until 30 no_jobs
	sleep 2
	right "$1"
}
link_up() { ct ip link show ib1 | grep -q 'state UP'; }
# readdressed LAYOUT FILE: FILE (ip monitor address) saw both ports' IPv4
# addresses set
readdressed() {
	local n
	for n in 0 1; do
		grep -Eq "^[0-9]+: ib$n +inet $(addr_of "$1" "$n")/" "$2" || return 1
	done
}

# layout LAYOUT: boot, netplan apply, networkd restart, a bounce of ib1
layout() {
	local t0
	boot_layout "$1" || return 1
	echo "# netplan's networkd files: $(ct ls /run/systemd/network | tr '\n' ' ')"
	check "$1: after boot: --status ok, rules, T(ib0) and T(ib1), route get through each port" settled "$1" 30
	ct ip -4 rule show | diag
	ct ib-hook --status | grep -E '^[a-z0-9]+:|table|verdict' | diag
	for action in "netplan apply" "systemctl restart systemd-networkd"; do
		t0=$SECONDS
		ip -n "$NS_CT" monitor address >"$WORK/mon" 2>&1 &
		mon=$!
		if [ "$action" = "netplan apply" ]; then
			apply >"$WORK/action.log" 2>&1
		else
			# shellcheck disable=SC2086 # the action's words
			CT_TIMEOUT=90 ct $action >"$WORK/action.log" 2>&1
		fi || { fail "$1: '$action' failed (exit $?)"; diag <"$WORK/action.log"; }
		[ -s "$WORK/action.log" ] && diag <"$WORK/action.log"
		REASON="ip monitor address: '$(tr '\n' '|' <"$WORK/mon")'"
		check "$1: '$action': networkd set both ports' addresses again" \
			wait_until 30 readdressed "$1" "$WORK/mon"
		kill "$mon"
		wait "$mon" 2>/dev/null
		check "$1: after '$action': the same" settled "$1" 30
		echo "# settled $((SECONDS - t0)) s after '$action'"
	done
	ct ip link set ib1 down && ct ip link set ib1 up
	wait_until 10 link_up
	check "$1: after 'ip link set ib1 down; ip link set ib1 up': the same" settled "$1" 30
}

# drop_layout: the container powered off (stopped if it does not), the two
# namespaces gone
drop_layout() {
	CT_TIMEOUT=20 ct systemctl poweroff >/dev/null 2>&1
	wait_until 60 sh -c '! kill -0 "$1" 2>/dev/null' sh "$NSPAWN_PID"
	stop_container
	ip netns del "$NS_CT" 2>/dev/null
	ip netns del "$NS_SW" 2>/dev/null
}

layout rails
drop_layout
layout subnet || exit 1

# --- the site's own routes and rules in a table ib-hook picks ------------
T0=$((1000 + $(ct cat /sys/class/net/ib0/ifindex)))
T1=$((1000 + $(ct cat /sys/class/net/ib1/ifindex)))
# site_yaml TABLE DST: ib1's lines of the site: a route to DST through ib1
# and a rule for its own sources, both in TABLE
site_yaml() {
	cat <<-YAML
	      routes:
	        - to: $2
	          via: 172.16.0.254
	          table: $1
	      routing-policy:
	        - from: 10.9.0.0/16
	          table: $1
	          priority: 500
	YAML
}
# site TABLE: the site's rule to TABLE and its routes there (networkd's: proto static)
site() {
	ct ip -d -4 rule show | grep -E "from 10\.9\.0\.0/16 lookup $1 "
	ct ip -d -4 route show table "$1" proto static
}
# site_there TABLE DST: networkd installed them
site_there() {
	[ "$(ct ip -4 rule show | grep -Ec "from 10\.9\.0\.0/16 lookup $1( |\$)")" = 1 ] &&
		ct ip -4 route show table "$1" | grep -q "^$2 via 172\.16\.0\.254 dev ib1 proto static"
}
site_gone() { local out; out=$(site "$1") && [ -z "$out" ]; }
# site_apply TABLE DST: the site's lines in 60-ib.yaml (none without TABLE), netplan apply
site_apply() {
	{ netplan_yaml subnet "$([ -z "${1:-}" ] || site_yaml "$1" "$2")"; } |
		ct sh -c 'cat >/etc/netplan/60-ib.yaml'
	apply >"$WORK/action.log" 2>&1 || { fail "netplan apply (site: ${1:-none})"; diag <"$WORK/action.log"; }
}
# unchanged TABLE BEFORE: the site's rule and routes are byte-identical to BEFORE
unchanged() {
	REASON="$(diff <(echo "$2") <(site "$1") | tr '\n' '|')"
	[ "$(site "$1")" = "$2" ]
}
# ours0: what ib-hook holds for ib0: its rule to T(ib0) and its route there
ours0() {
	ct ip -4 rule show | grep -E "from 172\.16\.34\.1 lookup $T0( |\$)"
	ct ip -4 route show table "$T0" proto kernel
}
ROUTE0="10.50.0.0/16 via 172.16.0.254 dev ib1 proto static"
refused0() {
	ct ib-hook --status >"$WORK/status" 2>&1 && { REASON="--status exits 0"; return 1; }
	grep -q "refused: table $T0 holds route $ROUTE0 that ib-hook did not install" "$WORK/status" ||
		{ REASON="--status: $(grep -E 'verdict' "$WORK/status" | tr '\n' '|')"; return 1; }
}
# ib1_ok: ib1 as before, whatever ib0's verdict
ib1_ok() {
	[ "$(ct ip -4 rule show | grep -Ec "from 172\.16\.34\.2 lookup $T1( |\$)")" = 1 ] &&
		[ "$(ct ip -4 route show table "$T1" | sed 's/[[:space:]]*$//')" = "$(expected subnet 1)" ] &&
		ct ib-hook --status --iface ib1 >/dev/null 2>&1
}

# 1. netplan's route through ib1 and rule come into T(ib0) while ib-hook owns it
echo "# the site's routes: table: and routing-policy: in T(ib0) = $T0, ib-hook owning it"
since=$(ct date '+%Y-%m-%d %H:%M:%S')
site_apply "$T0" 10.50.0.0/16
check "netplan apply: networkd put the site's rule and route into table $T0" \
	wait_until 30 site_there "$T0" 10.50.0.0/16
BEFORE=$(site "$T0")
echo "$BEFORE" | diag
check "ib-hook (the watcher) refuses ib0 in --status, naming netplan's route in table $T0" wait_until 20 refused0
grep -E '^ib0|verdict' "$WORK/status" | diag
ct journalctl -t ib-hook --since "$since" -o cat --no-pager | diag
# netplan apply re-sets both ports' addresses: when ib0's went, its rule
# went with it (and the kernel took its route); whether ib-hook applied ib0
# again before networkd put the site's route into T(ib0) is a race, which
# the refusal, once there, leaves as it is
echo "# ib-hook's rule and route for ib0 in table $T0 after the refusal: $(ours0 | wc -l) line(s)"
check "ib1 stays right (--status --iface ib1 exit 0, its rule and table)" ib1_ok
sleep 2
check "the site's rule and route are byte-identical" unchanged "$T0" "$BEFORE"

# 2. the same, with no watcher and no dispatcher to race: the site's lines
# taken away, ib0 right again, then both stopped and the site's lines applied
site_apply
check "netplan apply without the site's lines: networkd took its rule and route away" \
	wait_until 30 site_gone "$T0"
check "ib0 right again" settled subnet 30
ct systemctl stop ib-hook.service networkd-dispatcher.service
site_apply "$T0" 10.50.0.0/16
check "netplan apply: the site's rule and route in table $T0" wait_until 30 site_there "$T0" 10.50.0.0/16
wait_until 30 configured
BEFORE=$(site "$T0")
# the kernel took ib-hook's route from T(ib0) with ib0's address; nothing
# ran to take its rule, which now sends ib0's traffic into the site's table
RULE0=$(ours0)
REASON="ib-hook's in table $T0: '$(echo "$RULE0" | tr '\n' '|')'"
check "no watcher, no dispatcher: ib-hook's rule from ib0's address still looks up table $T0, its route there gone" \
	sh -c 'echo "$1" | grep -Eqx "[0-9]+:[[:space:]]+from 172\.16\.34\.1 lookup $2 *"' sh "$RULE0" "$T0"
ct ib-hook --iface ib0 >"$WORK/out" 2>&1
rc=$?
diag <"$WORK/out"
REASON="exit $rc: $(cat "$WORK/out")"
check "ib-hook --iface ib0 exits 1, naming netplan's route, how table $T0 came about and the way out" \
	sh -c '[ "$1" = 1 ] && grep -qx "ib-hook: ib0: refusing to apply table $2: table $2 holds route $3 that ib-hook did not install; table $2 is TableBase 1000 + ifindex $4: give ib0 a table in \[Tables\]" "$5"' \
	sh "$rc" "$T0" "$ROUTE0" "$((T0 - 1000))" "$WORK/out"
check "--status says refused, naming it" refused0
REASON="$(ours0 | tr '\n' '|')"
check "the refusal changes nothing: ib-hook's rule stays" test "$(ours0)" = "$RULE0"
ct systemctl start ib-hook.service networkd-dispatcher.service
sleep 2
check "with the watcher started: still refused" refused0
check "ib1 stays right" ib1_ok
check "the site's rule and route are byte-identical" unchanged "$T0" "$BEFORE"

# the way out the message gives: a table of ib0's own in [Tables]
printf '[Tables]\nib0=2002\n' | ct sh -c 'mkdir -p /etc/ib-hook.conf.d && cat >/etc/ib-hook.conf.d/tables.conf'
ct systemctl reload ib-hook.service
moved() {
	ct ib-hook --status >"$WORK/status" 2>&1 &&
		[ "$(ct ip -4 rule show | grep -Ec "from 172\.16\.34\.1 lookup 2002( |\$)")" = 1 ] &&
		[ "$(ct ip -4 route show table 2002 | sed 's/[[:space:]]*$//')" = "$(expected subnet 0)" ] && return 0
	REASON="--status: $(grep -E 'verdict|managed|leftover' "$WORK/status" | tr '\n' '|')"
	return 1
}
check "[Tables] ib0=2002 and the watcher reloaded: --status ok, ib0's rule and route in table 2002" \
	wait_until 20 moved
REASON="$(ours0 | tr '\n' '|')"
check "  and its rule to table $T0 taken back (a leftover of the earlier configuration)" test -z "$(ours0)"
check "  the site's rule and route in table $T0 byte-identical" unchanged "$T0" "$BEFORE"

# 3. ib-hook meets netplan's route in the table it would pick: ib0 back to
# TableBase + ifindex, which the site's route holds
ct rm /etc/ib-hook.conf.d/tables.conf
ct systemctl reload ib-hook.service
check "[Tables] entry gone and the watcher reloaded: ib0 refused again" wait_until 20 refused0
REASON="$(ours0 | tr '\n' '|')"
check "  nothing of ib-hook's goes into table $T0" test -z "$(ours0)"
echo "# table 2002 then: '$(ct ip -4 route show table 2002 | tr '\n' '|')'; $(grep -E 'leftover' "$WORK/status" | tr '\n' '|')"
check "ib1 stays right" ib1_ok
check "the site's rule and route are byte-identical" unchanged "$T0" "$BEFORE"

# 4. the site's routes: table: and routing-policy: in T(ib1) with its route
# through ib1 itself (as cloud-init writes a table per port): SPEC 3 leaves a
# user's route on X in T(X) alone and refuses only one through another
# device, and a rule ib-hook did not install is no proof of ownership
# (tests/netns/ownership.sh): the table is shared, nothing refused
echo "# the site's routes: table: and routing-policy: in T(ib1) = $T1, its route through ib1"
site_apply "$T1" 10.60.0.0/16
check "netplan apply: the site's rule and route in table $T1" wait_until 30 site_there "$T1" 10.60.0.0/16
check "  and those in table $T0 gone" wait_until 10 site_gone "$T0"
BEFORE=$(site "$T1")
echo "$BEFORE" | diag
SHARED=1
check "both ports right: --status ok (T(ib1) shared), rules, ib-hook's routes in the tables, route get" \
	settled subnet 30
SHARED=
ct ib-hook --iface ib1 >"$WORK/out" 2>&1
rc=$?
REASON="exit $rc: $(tr '\n' '|' <"$WORK/out")"
check "ib-hook --iface ib1 again: exit 0, nothing to do" sh -c '[ "$1" = 0 ] && ! [ -s "$2" ]' sh "$rc" "$WORK/out"
check "the site's rule and route in table $T1 are byte-identical" unchanged "$T1" "$BEFORE"

drop_layout
remove_work
REASON="$(diff <(echo "$HOST_BEFORE") <(host_state) | tr '\n' '|')"
check "host: ip rule and ip -6 rule unchanged, no link ib0/ib1/ib0p/ib1p there" test "$(host_state)" = "$HOST_BEFORE"

echo "# $FAILS failed, ${SECONDS}s"
[ $FAILS = 0 ]
