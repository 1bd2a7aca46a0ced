#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# NetworkManager's own dispatcher (nm-dispatcher), one case per namespace: it
# runs each entry of dispatcher.d as ENTRY INTERFACE ACTION with its own
# variables (NM_DISPATCHER_ACTION, DEVICE_IFACE, DEVICE_IP_IFACE, IP4_*...) and
# no IFACE. up, dhcp4-change, dhcp6-change and reapply apply; down and
# pre-down remove; every other action, an empty interface, an interface the
# config does not match and a name no link can have exit 0 and say nothing.
# The entry here is a link named 90-ib-hook to the binary under test, as the
# package installs it.
. "$(dirname "$0")/../lib.sh"
t_require

CONF=$T_DIR/matrix.conf
conf matrix <<'EOF'
[Match]
Name=ib*

[Tables]
ib0=941
ib1=942
EOF

RULES_IB0='1000:	from 172.16.34.1 lookup 941
1000:	from fd00:34::1 lookup 941'
TABLE_IB0='172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1
fd00:34::/64 dev ib0 proto kernel'

mkdir -p "$T_DIR/dispatcher.d" && ln -s "$IB_HOOK" "$T_DIR/dispatcher.d/90-ib-hook" || exit 1
ENTRY=$T_DIR/dispatcher.d/90-ib-hook

# host NS: ib0 and ib1 (peers pib0, pib1) and eth0 (peer peth0, not matched by
# the config), with an IPv4 and an IPv6 address each, as NetworkManager
# configured them
host() {
	ns_new "$1"
	veth "$1" ib0 pib0
	veth "$1" ib1 pib1
	veth "$1" eth0 peth0
	addr "$1" ib0 172.16.34.1/16
	addr "$1" ib1 172.16.34.2/16
	addr "$1" eth0 172.16.35.1/16
	ip -n "$(ns "$1")" addr add fd00:34::1/64 dev ib0 nodad || exit 1
	ip -n "$(ns "$1")" addr add fd00:34::2/64 dev ib1 nodad || exit 1
}

rules() {
	{
		ip -n "$(ns "$1")" rule show
		ip -n "$(ns "$1")" -6 rule show
	} | grep -v -e 'lookup local$' -e 'lookup main$' -e 'lookup default$'
}

table() {
	{
		ip -n "$(ns "$1")" route show table "$2"
		ip -n "$(ns "$1")" -6 route show table "$2"
	} 2>/dev/null | sed -e 's/ metric [0-9]*//' -e 's/ pref medium//' -e 's/ *$//'
}

# what nm-dispatcher exports for a device IF and ACTION (NetworkManager 1.42 to
# 1.52); the IP4_/IP6_ lists are deliberately stale: addresses come from netlink
nm_env() {
	local ifc=$1 action=$2
	ENV=(NM_DISPATCHER_ACTION="$action" CONNECTION_UUID=0b7e9c4e-3f4a-4d1c-9a55-5d6f0f3b9a11
		CONNECTION_ID="$ifc" CONNECTION_DBUS_PATH=/org/freedesktop/NetworkManager/Settings/3
		CONNECTION_FILENAME="/etc/NetworkManager/system-connections/$ifc.nmconnection"
		DEVICE_IFACE="$ifc" DEVICE_IP_IFACE="$ifc" CONNECTIVITY_STATE=FULL)
	case $action in
	up | dhcp4-change | dhcp6-change | reapply)
		ENV+=(IP4_NUM_ADDRESSES=1 "IP4_ADDRESS_0=172.16.34.99/16 0.0.0.0" IP4_NUM_ROUTES=0
			IP6_NUM_ADDRESSES=1 "IP6_ADDRESS_0=fd00:34::99/64 ::" IP6_NUM_ROUTES=0)
		;;
	esac
}

# nm NS DESC RC IFACE-ARG ACTION-ARG: the entry as nm-dispatcher runs it, with ${ENV[@]}
nm() {
	local n=$1 d=$2 want=$3
	shift 3
	[ -d "$IB_HOOK_SYSCONFDIR" ] || skip "no $IB_HOOK_SYSCONFDIR to mount the test config on"
	expect_rc "$d" "$want" ip netns exec "$T_PFX$n" sh -c '
		cfg=$1 dir=$2 entry=$3 iface=$4 action=$5
		shift 5
		mount -t tmpfs -o mode=0755 tmpfs "$dir" || exit 90
		cp "$cfg" "$dir/ib-hook.conf"
		if [ -d /run/systemd/journal ]; then mount -t tmpfs tmpfs /run/systemd/journal; fi
		exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" "$entry" "$iface" "$action"
	' nm "$CONF" "$IB_HOOK_SYSCONFDIR" "$ENTRY" "$@" "${ENV[@]}"
}

silent() {
	check "$1: says nothing" test ! -s "$T_DIR/out" -a ! -s "$T_DIR/err"
}

spoke() {
	check "$1: reports its changes on stderr" grep -q "^$2: " "$T_DIR/err"
}

applied_ib0() {
	expect_eq "$2: one rule per address of ib0 (from netlink, not IP4_ADDRESS_0)" \
		"$RULES_IB0" "$(rules "$1")"
	expect_eq "$2: table 941 holds ib0's prefixes" "$TABLE_IB0" "$(table "$1" 941)"
}

untouched() {
	expect_eq "$2: no rule" "" "$(rules "$1")"
	expect_eq "$2: no table" "" "$(table "$1" 941)$(table "$1" 942)"
}

# the actions that apply: a first run reports, a second is a quiet no-op
for a in up dhcp4-change dhcp6-change reapply; do
	c=nm-$a
	host $c
	nm_env ib0 $a
	nm $c "$c: apply" 0 ib0 $a
	spoke $c ib0
	applied_ib0 $c $c
	expect_eq "$c: ib1 untouched" "" "$(table $c 942)"
	nm $c "$c: the same event again" 0 ib0 $a
	silent "$c: the same event again"
	applied_ib0 $c "$c: the same event again"
done

# down (after NetworkManager took the addresses and the link down) removes
c=nm-down
host $c
nm_env ib0 up
nm $c "$c: up" 0 ib0 up
ip -n "$(ns $c)" addr flush dev ib0
ip -n "$(ns $c)" link set ib0 down
nm_env ib0 down
nm $c "$c: down" 0 ib0 down
spoke $c ib0
untouched $c "$c: down"
nm $c "$c: down again" 0 ib0 down
silent "$c: down again"

# pre-down (addresses still there) removes too
c=nm-pre-down
host $c
nm_env ib0 up
nm $c "$c: up" 0 ib0 up
nm_env ib0 pre-down
nm $c "$c: pre-down" 0 ib0 pre-down
spoke $c ib0
untouched $c "$c: pre-down"

# the ib1 of a host whose ib0 is applied: down on ib1 leaves ib0 alone
c=nm-down-other
host $c
nm_env ib0 up
nm $c "$c: ib0 up" 0 ib0 up
nm_env ib1 up
nm $c "$c: ib1 up" 0 ib1 up
nm_env ib1 down
nm $c "$c: ib1 down" 0 ib1 down
applied_ib0 $c "$c: ib1 down"
expect_eq "$c: table 942 empty" "" "$(table $c 942)"

# every other action: nothing, quietly (hostname names the interface "none",
# connectivity-change none at all)
c=nm-other
host $c
for a in pre-up vpn-up vpn-down vpn-pre-up vpn-pre-down hostname connectivity-change UP 'up ' ''; do
	nm_env ib0 "$a"
	nm $c "$c: action '$a'" 0 ib0 "$a"
	silent "$c: action '$a'"
done
nm_env '' hostname
nm $c "$c: hostname with interface none" 0 none hostname
silent "$c: hostname with interface none"
nm_env '' connectivity-change
nm $c "$c: connectivity-change with no interface" 0 '' connectivity-change
silent "$c: connectivity-change with no interface"
untouched $c "$c: other actions"

# an empty interface with an action that applies: nothing to apply it to
c=nm-empty
host $c
nm_env '' up
nm $c "$c: up with an empty interface" 0 '' up
silent "$c: up with an empty interface"
untouched $c "$c: empty interface"

# an interface the config does not match: nothing, quietly
c=nm-unmanaged
host $c
for a in up reapply down; do
	nm_env eth0 $a
	nm $c "$c: eth0 $a" 0 eth0 $a
	silent "$c: eth0 $a"
done
nm_env lo up
nm $c "$c: lo up" 0 lo up
silent "$c: lo up"
untouched $c "$c: unmanaged"

# hostile arguments: a name no link can have, or one that looks like an
# option, is nobody's link; no option is taken from nm-dispatcher's arguments
c=nm-hostile
host $c
long=$(printf 'ib%.0s' $(seq 2048))
for i in "$long" "ib0/../ib0" "../../../etc/passwd" $'ib0\nib1' 'ib0 ' 'ib0:1' '..' \
	'-c/dev/null' '--all' '--remove' '-v'; do
	nm_env "$i" up
	nm $c "$c: up on '${i:0:24}'" 0 "$i" up
	silent "$c: up on '${i:0:24}'"
done
untouched $c "$c: hostile names"
nm_env ib0 up
nm $c "$c: ib0 up after them" 0 ib0 up
applied_ib0 $c "$c: ib0 up after them"
for i in "$long" '--all' '-r' $'ib0\n'; do
	nm_env "$i" down
	nm $c "$c: down on '${i:0:24}'" 0 "$i" down
	silent "$c: down on '${i:0:24}'"
done
applied_ib0 $c "$c: ib0 survives hostile downs"
# a hostile action next to a good interface
nm_env ib0 $'up\ndown'
nm $c "$c: action with a newline" 0 ib0 $'up\ndown'
silent "$c: action with a newline"
applied_ib0 $c "$c: action with a newline"

# bookworm: nm-dispatcher runs 90-ib-hook and 01-ifupdown, whose run-parts runs
# /etc/network/if-up.d/ib-hook with no argument, once per address family; the
# entry sorts after 01-ifupdown, whichever ran first, the others are quiet
c=nm-bookworm
host $c
bridge() {
	ENV+=(IFACE="$1" LOGICAL="$1" METHOD=NetworkManager VERBOSITY=0 ADDRFAM="$2" MODE="$3" PHASE="$4")
	expect_rc "$c: 01-ifupdown's run ($2 $3)" 0 hook $c "$CONF" "${ENV[@]}"
}
nm_env ib0 up
bridge ib0 inet start post-up
spoke $c ib0
nm_env ib0 up
bridge ib0 inet6 start post-up
silent "$c: 01-ifupdown's inet6 run"
nm_env ib0 up
nm $c "$c: 90-ib-hook after the bridge" 0 ib0 up
silent "$c: 90-ib-hook after the bridge"
applied_ib0 $c "$c: both entries"
ip -n "$(ns $c)" addr flush dev ib0
ip -n "$(ns $c)" link set ib0 down
nm_env ib0 down
bridge ib0 inet stop post-down
spoke $c ib0
nm_env ib0 down
bridge ib0 inet6 stop post-down
silent "$c: 01-ifupdown's inet6 down run"
nm_env ib0 down
nm $c "$c: 90-ib-hook down after the bridge" 0 ib0 down
silent "$c: 90-ib-hook down after the bridge"
untouched $c "$c: both entries down"

# the variables but a wrong number of arguments: not NetworkManager's convention
c=nm-argc
host $c
nm_env ib0 up
expect_rc "$c: one argument" 2 ip netns exec "$T_PFX$c" env -i "${ENV[@]}" "$ENTRY" -c "$CONF" ib0
untouched $c "$c: one argument"

done_testing
