#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end test (issue 13): the ib-hook package on a booted Debian 12 host
# whose network is ifupdown's (/etc/network/interfaces, networking.service;
# no systemd-networkd, no NetworkManager), with the watcher ib-hook.service.
#
#   tests/e2e/ifupdown.sh PATH-TO-DEB     (root)
#
# The root comes from tests/e2e/root.sh (mmdebstrap, cached under
# /var/cache/ib-hook-ci). The package is installed into it in a chroot, then
# it is booted with systemd-nspawn --private-network --volatile=overlay. A
# oneshot unit ordered before networking.service makes the veth pairs
# ib0/ib0p and ib1/ib1p; /etc/network/interfaces gives ib0 172.16.34.1/16 and
# ib1 172.16.34.2/16 (memserver34). The host's network namespace is never
# changed.
#
# What it shows: ifupdown's hooks only run on ifup/ifdown, so a bare link
# bounce (`ip link set ib1 down; ip link set ib1 up`, a cable, a switch
# reboot) leaves T(ib1) empty; the watcher puts it back.
#
# Output: "PASS: e2e-ifupdown: ..." / "FAIL: e2e-ifupdown: ..." per check,
# "# ..." diagnostics. Exit 0 all passed, 1 a check failed, 77 a
# prerequisite is missing.
set -u
export LC_ALL=C.UTF-8
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
DEB=${1:?usage: ifupdown.sh PATH-TO-DEB}
TIME_LIMIT=${E2E_TIME_LIMIT:-300}
here=$(cd "$(dirname "$0")" && pwd)

CELL=e2e-ifupdown
# shellcheck source=tests/e2e/cell.sh
. "$here/cell.sh"
cell_begin mmdebstrap systemd-nspawn nsenter unshare tar timeout

# shellcheck source=tests/e2e/container.sh
. "$here/container.sh"
WORK='' WATCHDOG=
MACHINE=ibhook-ifupdown-$$
HOST_BEFORE=$(host_state)
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	[ -n "$WATCHDOG" ] && kill "$WATCHDOG" 2>/dev/null
	remove_work
	exit $rc
}
trap cleanup EXIT
trap 'fail "interrupted"; exit 1' INT
trap 'fail "time limit of ${TIME_LIMIT}s exceeded"; exit 1' TERM
start_watchdog "$TIME_LIMIT"

echo "# ib-hook end-to-end test: ifupdown in a booted bookworm container"
TAR=$("$here/root.sh" ifupdown bookworm) || {
	[ $? = 77 ] && skip "no Debian mirror configured"
	fail "building the bookworm root with ifupdown"
	exit 1
}
echo "# root $(basename "$TAR") (${SECONDS}s)"
unpack_root "$TAR" ib-hook-ifupdown || { fail "unpacking $TAR"; exit 1; }
veth_unit "$ROOT" networking.service
systemctl --root="$ROOT" enable networking.service >/dev/null 2>&1
# memserver34's /etc/network/interfaces
cat >"$ROOT/etc/network/interfaces" <<'IFACES'
auto lo
iface lo inet loopback

auto ib0
iface ib0 inet static
	address 172.16.34.1/16

auto ib1
iface ib1 inet static
	address 172.16.34.2/16
IFACES
printf '[Match]\nName=ib0 ib1\n' >"$ROOT/etc/ib-hook.conf"
install_deb "$ROOT" "$DEB" >"$WORK/dpkg.log" 2>&1 || { fail "dpkg -i in the root"; diag <"$WORK/dpkg.log"; exit 1; }
pass "dpkg -i $(basename "$DEB") in the root (chroot, private netns)"

boot || { fail "booting the container"; tail -n 30 "$CONSOLE" | diag; exit 1; }
pass "booted: $(ct dpkg-query -W -f 'ifupdown ${Version}' ifupdown), $(ct systemctl --version | head -n 1)"
ND=$(ct systemctl is-active systemd-networkd.service 2>/dev/null)
REASON="networking.service $(ct systemctl is-active networking.service), systemd-networkd $ND"
check "networking.service (ifupdown) configured the host, systemd-networkd is not running" \
	sh -c '[ "$1" != active ] && [ "$(nsenter -t "$2" -a systemctl is-active networking.service)" = active ]' sh "$ND" "$LEADER"
ct ip -br addr show | grep '^ib' | diag

T0=$((1000 + $(ct cat /sys/class/net/ib0/ifindex)))
T1=$((1000 + $(ct cat /sys/class/net/ib1/ifindex)))
EXP_T1="172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2"
EXP_T0="172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1"

# ref_state: SPEC section 7, the watcher's or the hooks' end state
ref_state() {
	local rules c0 c1 r0 r1 get pref
	rules=$(ct ip -4 rule show)
	c0=$(echo "$rules" | grep -Ec "^[0-9]+:[[:space:]]+from 172\.16\.34\.1 lookup $T0( |\$)")
	c1=$(echo "$rules" | grep -Ec "^[0-9]+:[[:space:]]+from 172\.16\.34\.2 lookup $T1( |\$)")
	if [ "$c0" != 1 ] || [ "$c1" != 1 ]; then
		REASON="ip rule: $(echo "$rules" | tr '\n\t' '| ')"
		return 1
	fi
	for pref in $(echo "$rules" | grep -E "from 172\.16\.34\.[12] lookup" | cut -d: -f1); do
		[ "$pref" -lt 32766 ] || { REASON="rule priority $pref is not before main"; return 1; }
	done
	r0=$(ct ip -4 route show table "$T0" | sed 's/[[:space:]]*$//')
	r1=$(ct ip -4 route show table "$T1" | sed 's/[[:space:]]*$//')
	[ "$r1" = "$EXP_T1" ] || { REASON="table $T1: '$(echo "$r1" | tr '\n' '|')'"; return 1; }
	[ "$r0" = "$EXP_T0" ] || { REASON="table $T0: '$(echo "$r0" | tr '\n' '|')'"; return 1; }
	get=$(ct ip -4 route get 172.16.16.1 from 172.16.34.2)
	case $get in
	*" dev ib1 "*) ;;
	*) REASON="ip route get 172.16.16.1 from 172.16.34.2: '$get'"; return 1 ;;
	esac
	return 0
}
# settled SECONDS: the reference state, and still so once systemd has no job
# left (the hooks of networking.service, the watcher's start) to change it
no_jobs() { [ -z "$(ct systemctl list-jobs --no-legend 2>/dev/null)" ]; }
settled() { wait_until "$1" ref_state && wait_until 30 no_jobs && ref_state; }
t1_empty() { # (a query that fails is no absence)
	local r
	r=$(ct ip -4 route show table "$T1") && [ -z "$r" ] && return 0
	REASON="table $T1: '$(ct ip -4 route show table "$T1" | tr '\n' '|')'"
	return 1
}
bounce() { ct ip link set ib1 down && ct ip link set ib1 up; }
link_up() { ct ip link show ib1 | grep -q 'state UP'; }

check "after boot: the reference state (rules once each to $T0/$T1, table $T1 '$EXP_T1', route get via ib1)" settled 20
ct ip rule show | diag
W=$(ct systemctl is-active ib-hook.service)
check "the watcher ib-hook.service runs ($W)" test "$W" = active
# who got there first at boot: ifup -a's if-up.d hook or the watcher's --all
echo "# at boot, ib-hook changes made by networking.service's if-up.d hook: $(ct journalctl -b -t ib-hook \
	_SYSTEMD_UNIT=networking.service -o cat --no-pager | grep -c .), by ib-hook.service: $(ct journalctl -b \
	-t ib-hook _SYSTEMD_UNIT=ib-hook.service -o cat --no-pager | grep -c .)"

# with the watcher: a bare bounce is repaired
watcher_routes() {
	ct journalctl -b -t ib-hook _SYSTEMD_UNIT=ib-hook.service -o cat --no-pager |
		grep -c "^ib1: added route 172.16.0.0/16 src 172.16.34.2 in table $T1"
}
n0=$(watcher_routes)
bounce
wait_until 10 link_up
check "watcher: 'ip link set ib1 down; ip link set ib1 up': T($T1), rules and route get restored" settled 10
n1=$(watcher_routes)
REASON="'ib1: added route' lines of ib-hook.service: $n0 before, $n1 after"
check "watcher: the route in T($T1) was put back by ib-hook.service" test "$n1" -gt "$n0"
ct ip route show table "$T1" | diag
ct journalctl -b -u ib-hook.service -o cat --no-pager | tail -n 4 | diag

# the control: without the watcher the same bounce leaves T(ib1) empty
ct systemctl stop ib-hook.service
bounce
wait_until 10 link_up
# the kernel took the table's route away when the link went down; with no
# job queued and no watcher, nothing puts it back
wait_until 30 no_jobs
check "control, watcher stopped: the same bounce leaves table $T1 empty (ifupdown runs no hook)" t1_empty
get=$(ct ip -4 route get 172.16.16.1 from 172.16.34.2)
REASON="'$get'"
check "control, watcher stopped: 'ip route get 172.16.16.1 from 172.16.34.2' no longer says dev ib1" \
	sh -c 'case "$1" in *" dev ib1 "*) exit 1 ;; esac' sh "$get"

# ifupdown's own path, watcher still stopped: if-post-down.d, if-up.d
CT_TIMEOUT=60 ct ifdown ib1 >"$WORK/ifdown.log" 2>&1 || fail "ifdown ib1: $(tr '\n' '|' <"$WORK/ifdown.log")"
rules1=$(ct ip -4 rule show | grep -Ec "lookup $T1( |\$)")
REASON="$rules1 rule(s) to $T1"
check "ifdown ib1 (if-post-down.d/ib-hook): no rule to $T1 left" test "$rules1" = 0
CT_TIMEOUT=60 ct ifup ib1 >"$WORK/ifup.log" 2>&1 || fail "ifup ib1: $(tr '\n' '|' <"$WORK/ifup.log")"
check "ifup ib1 (if-up.d/ib-hook, watcher stopped): the reference state" settled 10
N=$(ct journalctl -b -t ib-hook -o cat --no-pager | grep -c '^ib1: added rule from 172.16.34.2 ')
echo "# 'ib1: added rule' in the journal: $N times (boot or watcher, and ifup)"

since=$(ct date '+%Y-%m-%d %H:%M:%S.%N' | cut -c1-23)
# Type=notify: start returns once the watcher's first pass is done
ct systemctl start ib-hook.service
W=$(ct systemctl is-active ib-hook.service)
changes=$(ct journalctl -t ib-hook --since "$since" -o cat --no-pager | grep -E 'added|deleted')
REASON="$W; logged: $(echo "$changes" | tr '\n' '|')"
check "ib-hook.service starts again and changes nothing" test "$W" = active -a -z "$changes"
check "and the state is still the reference state" ref_state

CT_TIMEOUT=20 ct systemctl poweroff >/dev/null 2>&1
gone() { ! kill -0 "$NSPAWN_PID" 2>/dev/null; }
wait_until 60 gone || stop_container
stop_container
REASON="$(diff <(echo "$HOST_BEFORE") <(host_state) | tr '\n' '|')"
check "host: ip rule and ip -6 rule unchanged, no link ib0/ib1/ib0p/ib1p appeared" test "$(host_state)" = "$HOST_BEFORE"

echo "# $FAILS failed, ${SECONDS}s"
[ $FAILS = 0 ]
