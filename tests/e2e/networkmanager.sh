#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end test (issue 12): the ib-hook package on a booted Debian system
# whose network is NetworkManager's, reached through NetworkManager's own
# dispatcher (and, on bookworm, its 01-ifupdown bridge as well).
#
#   tests/e2e/networkmanager.sh SUITE PATH-TO-DEB     (root; SUITE bookworm or trixie)
#
# The root comes from tests/e2e/root.sh (mmdebstrap, cached). It is booted
# with `systemd-nspawn -b --private-network --volatile=overlay`; commands run
# in it with nsenter. The host's network namespace is never changed.
#
# How NetworkManager is made to manage the veth ends ib0/ib1: a oneshot unit
# ordered before NetworkManager creates the pairs ib0/ib0p and ib1/ib1p;
# keyfile profiles ib0/ib1 (interface-name=, ipv4 manual 172.16.34.1/16 and
# .2/16) name them. NetworkManager's udev rule (85-nm-unmanaged.rules, line
# `ENV{ID_NET_DRIVER}=="veth", ENV{INTERFACE}!="eth[0-9]*", NM_UNMANAGED=1` in
# both 1.42 and 1.52) marks veth devices unmanaged wherever udev runs (these
# minbase roots have no udevd); a [device] section with managed=1 for
# interface-name:ib0/ib1 overrides it either way, and [keyfile]
# unmanaged-devices keeps NetworkManager off the peers. The ib-hook watcher (ib-hook.service) is stopped and
# masked, so that every change seen here is the dispatcher's doing.
#
# Output: "ok - ..." / "not ok - ..." per check. Exit 0 all passed, 1 a check
# failed, 77 a prerequisite is missing.
set -u
export LC_ALL=C.UTF-8
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
SUITE=${1:?suite}
DEB=${2:?deb}
TIME_LIMIT=${E2E_TIME_LIMIT:-400}
here=$(cd "$(dirname "$0")" && pwd)

skip() { echo "SKIP: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "must run as root"
for t in mmdebstrap systemd-nspawn nsenter tar timeout; do
	command -v "$t" >/dev/null 2>&1 || skip "'$t' is missing"
done
[ -f "$DEB" ] || { echo "not ok - no .deb '$DEB'"; exit 1; }
DEB=$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")

FAILS=0
ok() { echo "ok - $*"; }
notok() { FAILS=$((FAILS + 1)); echo "not ok - $*"; }
diag() { sed 's/^/#   /'; }
REASON=
check() { local d=$1; shift; if "$@"; then ok "$d"; else notok "$d${REASON:+: $REASON}"; fi; REASON=; }
# shellcheck source=tests/e2e/container.sh
. "$here/container.sh"

WORK='' WATCHDOG=''
MACHINE=ibhook-nm-$$
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	[ -n "$WATCHDOG" ] && kill "$WATCHDOG" 2>/dev/null
	remove_work
	exit $rc
}
trap cleanup EXIT
trap 'echo "not ok - interrupted"; exit 1' INT
trap 'echo "not ok - time limit of ${TIME_LIMIT}s exceeded"; exit 1' TERM
start_watchdog "$TIME_LIMIT"

echo "# ib-hook end-to-end test: NetworkManager in a booted $SUITE container"
TAR=$("$here/root.sh" nm "$SUITE") || { rc=$?; [ $rc = 77 ] && skip "no Debian mirror configured"; echo "not ok - building the $SUITE root"; exit 1; }
ok "$SUITE root with NetworkManager ($(basename "$TAR"), ${SECONDS}s)"
unpack_root "$TAR" ib-hook-nm || { echo "not ok - unpacking $TAR"; exit 1; }
veth_unit "$ROOT" NetworkManager.service
systemctl --root="$ROOT" enable NetworkManager.service >/dev/null 2>&1
systemctl --root="$ROOT" disable NetworkManager-wait-online.service >/dev/null 2>&1
mkdir -p "$ROOT/etc/NetworkManager/conf.d" "$ROOT/etc/NetworkManager/system-connections"
cat >"$ROOT/etc/NetworkManager/conf.d/90-ib-e2e.conf" <<'EOF'
[keyfile]
unmanaged-devices=interface-name:ib0p;interface-name:ib1p;interface-name:host0

[device-ib-e2e]
match-device=interface-name:ib0;interface-name:ib1
managed=1
EOF
for i in 0 1; do
	cat >"$ROOT/etc/NetworkManager/system-connections/ib$i.nmconnection" <<EOF
[connection]
id=ib$i
type=ethernet
interface-name=ib$i
autoconnect=true

[ethernet]

[ipv4]
method=manual
address1=172.16.34.$((i + 1))/16

[ipv6]
method=disabled
EOF
	chmod 0600 "$ROOT/etc/NetworkManager/system-connections/ib$i.nmconnection"
done
# the configuration the package's install finds (kept with --force-confold)
printf '[Match]\nName=ib0 ib1\n' >"$ROOT/etc/ib-hook.conf"
cp "$DEB" "$ROOT/root/ib-hook.deb"

boot_checked() {
	boot || { notok "container did not boot"; tail -n 30 "$CONSOLE" | diag; exit 1; }
}
connected() {
	[ "$(ct nmcli -g GENERAL.STATE device show ib0 2>/dev/null)" = "100 (connected)" ] &&
		[ "$(ct nmcli -g GENERAL.STATE device show ib1 2>/dev/null)" = "100 (connected)" ]
}

boot_checked
ok "booted $SUITE: $(ct NetworkManager --version)"
if wait_until 40 connected; then
	ok "NetworkManager activated ib0 and ib1 from their keyfile profiles"
else
	notok "NetworkManager did not activate ib0/ib1"
	ct nmcli device | diag
	ct journalctl -b -u NetworkManager --no-pager -n 30 | diag
	exit 1
fi
BRIDGE=no
ct test -e /etc/NetworkManager/dispatcher.d/01-ifupdown && BRIDGE=yes
echo "# 01-ifupdown bridge present: $BRIDGE"

CT_TIMEOUT=120 ct dpkg -i --force-confold /root/ib-hook.deb >"$WORK/dpkg.log" 2>&1 ||
	{ notok "dpkg -i failed"; diag <"$WORK/dpkg.log"; exit 1; }
ok "dpkg -i $(basename "$DEB")"
# the watcher would repair everything itself: take it out of the picture
ct systemctl disable --now ib-hook.service >/dev/null 2>&1
ct systemctl mask ib-hook.service >/dev/null 2>&1
check "entry /usr/lib/NetworkManager/dispatcher.d/90-ib-hook resolves to /usr/sbin/ib-hook" \
	test "$(ct readlink -f /usr/lib/NetworkManager/dispatcher.d/90-ib-hook)" = /usr/sbin/ib-hook

tables() {
	T0=$((1000 + $(ct cat /sys/class/net/ib0/ifindex)))
	T1=$((1000 + $(ct cat /sys/class/net/ib1/ifindex)))
}
# state A0 A1: exactly the rules "from A0 lookup T0", "from A1 lookup T1"
# (an empty A: none for that port) and the matching table routes
state() {
	local a0=$1 a1=$2 rules want=""
	tables
	rules=$(ct ip -4 rule show | grep -v -e 'lookup local$' -e 'lookup main$' -e 'lookup default$' |
		sed 's/^[0-9]*:[[:space:]]*//; s/[[:space:]]*$//' | sort)
	[ -n "$a0" ] && want="from $a0 lookup $T0"
	[ -n "$a1" ] && want="$want${want:+
}from $a1 lookup $T1"
	if [ "$rules" != "$want" ]; then REASON="rules '$(echo "$rules" | tr '\n' '|')', wanted '$(echo "$want" | tr '\n' '|')'"; return 1; fi
	if [ -n "$a1" ] && [ "$(ct ip -4 route show table "$T1" | sed 's/[[:space:]]*$//')" != "172.16.0.0/16 dev ib1 proto kernel scope link src $a1" ]; then
		REASON="table $T1: '$(ct ip -4 route show table "$T1" | tr '\n' '|')'"; return 1
	fi
	if [ -z "$a1" ] && [ -n "$(ct ip -4 route show table "$T1" 2>/dev/null)" ]; then
		REASON="table $T1 not empty"; return 1
	fi
	if [ -n "$a1" ]; then
		case $(ct ip -4 route get 172.16.16.1 from "$a1") in
		*" dev ib1 "*) ;;
		*) REASON="route get from $a1 not via ib1"; return 1 ;;
		esac
	fi
	return 0
}
settled() { wait_until 20 state "$@" || return 1; sleep 2; state "$@"; }

check "(1) after dpkg -i: the reference state" settled 172.16.34.1 172.16.34.2

ct systemctl restart NetworkManager
wait_until 40 connected
check "(2) after systemctl restart NetworkManager: the state" settled 172.16.34.1 172.16.34.2

ct nmcli connection down ib1 >/dev/null 2>&1
check "(4) nmcli connection down ib1 removes ib1's rule and table" settled 172.16.34.1 ''
ct nmcli connection up ib1 >/dev/null 2>&1
check "(2) nmcli connection up ib1 puts them back" settled 172.16.34.1 172.16.34.2

# one `nmcli connection up`: on bookworm 90-ib-hook and 01-ifupdown's two
# runs (inet, inet6) of if-up.d/ib-hook; whichever comes first adds, the
# others say nothing: exactly one "added rule" in the journal, no warning
ct nmcli connection down ib1 >/dev/null 2>&1
settled 172.16.34.1 '' >/dev/null
since=$(ct date '+%Y-%m-%d %H:%M:%S.%N' | cut -c1-23)
sleep 1
ct nmcli connection up ib1 >/dev/null 2>&1
settled 172.16.34.1 172.16.34.2 >/dev/null
sleep 2
adds=$(ct journalctl -t ib-hook -o cat --no-pager --since "$since" | grep -c '^ib1: added rule from 172.16.34.2 ')
warns=$(ct journalctl -t ib-hook -p warning -o cat --no-pager --since "$since" | grep -c .)
REASON="$adds added-rule lines, $warns warnings"
check "one nmcli connection up (01-ifupdown bridge: $BRIDGE): one change logged, any extra run quiet" \
	test "$adds" = 1 -a "$warns" = 0

ct nmcli device reapply ib1 >/dev/null 2>&1
check "(2) nmcli device reapply ib1: the state" settled 172.16.34.1 172.16.34.2

ct nmcli connection modify ib1 ipv4.addresses 172.16.34.3/16 >/dev/null 2>&1
ct nmcli connection up ib1 >/dev/null 2>&1
check "(2) address changed to 172.16.34.3 (modify + up): the rule follows, no stale one" \
	settled 172.16.34.1 172.16.34.3
ct nmcli connection modify ib1 ipv4.addresses 172.16.34.2/16 >/dev/null 2>&1
ct nmcli connection up ib1 >/dev/null 2>&1
check "(2) and back to 172.16.34.2" settled 172.16.34.1 172.16.34.2

# (5) one journal entry per change, with its fields: the one that added the
# rule for the changed address names ib1, its action and its table
J=$(ct journalctl -t ib-hook -o export --no-pager INTERFACE=ib1 2>/dev/null)
check "(5) journalctl -t ib-hook: the new rule of 172.16.34.3 with INTERFACE=ib1, IB_HOOK_ACTION, IB_HOOK_TABLE=$T1" \
	sh -c 'echo "$1" | awk -v RS= "/MESSAGE=ib1: added rule from 172.16.34.3 /" | grep -q "^IB_HOOK_TABLE=$2\$" &&
		echo "$1" | awk -v RS= "/MESSAGE=ib1: added rule from 172.16.34.3 /" | grep -q "^IB_HOOK_ACTION="' sh "$J" "$T1"
check "(5) journalctl -t ib-hook: the removal at nmcli connection down ib1" \
	sh -c 'echo "$1" | grep -q "^MESSAGE=ib1: deleted rule from 172.16.34.2 lookup $2"' sh "$J" "$T1"
ct journalctl -t ib-hook -o cat --no-pager 2>/dev/null | tail -n 12 | diag
N=$(ct journalctl -u NetworkManager-dispatcher --no-pager 2>/dev/null | grep -c "Cannot execute")
check "NetworkManager-dispatcher refused no entry" test "$N" = 0

# (3) reboot with the package installed. --volatile=overlay forgets what the
# running system wrote, so the package is installed into the root itself (a
# chroot in a private netns, as on a real disk), the watcher masked there, and
# the root booted again: only NetworkManager and its dispatcher run ib-hook.
stop_container
install_deb "$ROOT" "$DEB" >"$WORK/dpkg-chroot.log" 2>&1 || { notok "dpkg -i in the root failed"; diag <"$WORK/dpkg-chroot.log"; exit 1; }
ln -sf /dev/null "$ROOT/etc/systemd/system/ib-hook.service"
boot_checked
wait_until 40 connected || notok "NetworkManager did not activate ib0/ib1 after the reboot"
check "(3) after a reboot with the package installed: the reference state, no manual step" \
	settled 172.16.34.1 172.16.34.2
check "(3) the dispatcher ran ib-hook at boot (journal)" \
	sh -c 'test -n "$(nsenter -t "$1" -a journalctl -b -t ib-hook -o cat --no-pager 2>/dev/null)"' sh "$LEADER"

ct nmcli connection down ib1 >/dev/null 2>&1
check "(4) nmcli connection down ib1 removes ib1's rules" settled 172.16.34.1 ''
CT_TIMEOUT=120 ct dpkg -P ib-hook >"$WORK/purge.log" 2>&1 || { notok "dpkg -P failed"; diag <"$WORK/purge.log"; }
check "(4) dpkg -P: no rule, no table left" settled '' ''
left=$(ct sh -c 'ls -d /usr/lib/NetworkManager/dispatcher.d/90-ib-hook /etc/network/if-*.d/ib-hook /usr/sbin/ib-hook 2>/dev/null')
REASON="left: $left"
check "(4) dpkg -P: no file of the package left" test -z "$left"

[ $FAILS = 0 ] && echo "# all checks passed in ${SECONDS}s" && exit 0
echo "# $FAILS checks failed (${SECONDS}s)"
exit 1
