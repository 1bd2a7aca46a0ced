#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hook mode, one case per namespace: ib-hook run with no arguments and exactly
# the variables networkd-dispatcher, ifupdown and NetworkManager's 01-ifupdown
# bridge set. Each case checks the exit code, the rules and table routes left
# behind, and that a run with nothing to do says nothing.
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
conf everything <<'EOF'
[Match]
Name=*
EOF

RULES_IB0='1000:	from 172.16.34.1 lookup 941
1000:	from fd00:34::1 lookup 941'
TABLE_IB0='172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1
fd00:34::/64 dev ib0 proto kernel'
RULES_BOTH='1000:	from 172.16.34.1 lookup 941
1000:	from 172.16.34.2 lookup 942
1000:	from fd00:34::1 lookup 941
1000:	from fd00:34::2 lookup 942'

# host NS: ib0 and ib1 (peers pib0, pib1 are not managed) with an IPv4 and an
# IPv6 address each, as after the dispatcher's own configuration
host() {
	ns_new "$1"
	veth "$1" ib0 pib0
	veth "$1" ib1 pib1
	addr "$1" ib0 172.16.34.1/16
	addr "$1" ib1 172.16.34.2/16
	ip -n "$(ns "$1")" addr add fd00:34::1/64 dev ib0 nodad || exit 1
	ip -n "$(ns "$1")" addr add fd00:34::2/64 dev ib1 nodad || exit 1
}

# every rule but the kernel's three defaults
rules() {
	{
		ip -n "$(ns "$1")" rule show
		ip -n "$(ns "$1")" -6 rule show
	} | grep -v -e 'lookup local$' -e 'lookup main$' -e 'lookup default$'
}

# table T's routes, without the IPv6 metric and preference noise
table() {
	{
		ip -n "$(ns "$1")" route show table "$2"
		ip -n "$(ns "$1")" -6 route show table "$2"
	} 2>/dev/null | sed -e 's/ metric [0-9]*//' -e 's/ pref medium//' -e 's/ *$//'
}

# networkd-dispatcher's variables for IF entering STATE (OperationalState,
# AdministrativeState as networkctl shows them); the address lists are read
# from the namespace as the dispatcher would, without prefix lengths
nd_env() {
	local n=$1 ifc=$2 state=$3 oper=$4 admin=$5 v4 v6
	v4=$(ip -n "$(ns "$n")" -4 -o addr show dev "$ifc" | awk '{ sub("/.*", "", $4); print $4 }' | xargs)
	v6=$(ip -n "$(ns "$n")" -6 -o addr show dev "$ifc" | awk '{ sub("/.*", "", $4); print $4 }' | xargs)
	ENV=(IFACE="$ifc" STATE="$state" ADDR="${v4%% *}" ESSID= IP_ADDRS="$v4" IP6_ADDRS="$v6"
		OperationalState="$oper" AdministrativeState="$admin"
		json="{\"Name\": \"$ifc\", \"Type\": \"ether\", \"Driver\": \"veth\", \"OperationalState\": \"$oper\", \"AdministrativeState\": \"$admin\"}")
}

# what ifupdown 0.8 exports to if-up.d / if-post-down.d for a static stanza
ifupdown_env() {
	local ifc=$1 fam=$2 mode=$3 phase=$4 a=$5
	ENV=(IFACE="$ifc" LOGICAL="$ifc" ADDRFAM="$fam" METHOD=static MODE="$mode" PHASE="$phase"
		VERBOSITY=0 "IFUPDOWN_$ifc=$phase")
	[ "$mode" = start ] && ENV+=(CLASS=auto)
	if [ "$fam" = inet ]; then
		ENV+=(IF_ADDRESS="$a" IF_NETMASK=255.255.0.0 IF_BROADCAST=172.16.255.255)
	else
		ENV+=(IF_ADDRESS="$a" IF_NETMASK=64 IF_AUTOCONF=0 IF_DAD_ATTEMPTS=60 IF_DAD_INTERVAL=0.1)
	fi
}

# what NetworkManager's dispatcher and Debian's 01-ifupdown export: the
# dispatcher's own variables, then the faked ifupdown ones, one run per family
nm_env() {
	local ifc=$1 action=$2 fam=$3
	ENV=(CONNECTION_UUID=0b7e9c4e-3f4a-4d1c-9a55-5d6f0f3b9a11 CONNECTION_ID="$ifc"
		CONNECTION_DBUS_PATH=/org/freedesktop/NetworkManager/Settings/3
		CONNECTION_FILENAME="/etc/NetworkManager/system-connections/$ifc.nmconnection"
		DEVICE_IFACE="$ifc" DEVICE_IP_IFACE="$ifc" NM_DISPATCHER_ACTION="$action"
		CONNECTIVITY_STATE=FULL
		IFACE="$ifc" LOGICAL="$ifc" METHOD=NetworkManager VERBOSITY=0 ADDRFAM="$fam")
	if [ "$action" = up ]; then
		ENV+=(IP4_NUM_ADDRESSES=1 "IP4_ADDRESS_0=172.16.34.1/16 0.0.0.0" IP4_NUM_ROUTES=0
			IP6_NUM_ADDRESSES=1 "IP6_ADDRESS_0=fd00:34::1/64 ::" IP6_NUM_ROUTES=0
			MODE=start PHASE=post-up)
	else
		ENV+=(MODE=stop PHASE=post-down)
	fi
}

# run NS DESC RC [CONF]: the hook with ${ENV[@]}, expecting exit RC
run() {
	expect_rc "$2" "$3" hook "$1" "${4:-$CONF}" "${ENV[@]}"
}

silent() {
	check "$1: says nothing" test ! -s "$T_DIR/out" -a ! -s "$T_DIR/err"
}

# one message line per change, the interface first
spoke() {
	check "$1: reports its changes on stderr" grep -q "^$2: " "$T_DIR/err"
}

applied_ib0() {
	expect_eq "$2: one rule per address of ib0" "$RULES_IB0" "$(rules "$1")"
	expect_eq "$2: table 941 holds ib0's prefixes" "$TABLE_IB0" "$(table "$1" 941)"
}

removed() {
	expect_eq "$2: rules as before" "$3" "$(rules "$1")"
	expect_eq "$2: table 941 empty" "" "$(table "$1" 941)"
}

apply_ib0() {
	nd_env "$1" ib0 routable routable configured
	hook "$1" "$CONF" "${ENV[@]}" 2>/dev/null || not_ok "$1: setting up ib0 failed"
}

# networkd-dispatcher: routable applies, a repeated event changes nothing
c=nd-routable
host $c
nd_env $c ib0 routable routable configured
run $c "$c: apply" 0
spoke $c ib0
applied_ib0 $c $c
expect_eq "$c: ib1 untouched" "" "$(table $c 942)"
run $c "$c: the same event again" 0
silent "$c: the same event again"
applied_ib0 $c "$c: the same event again"
nd_env $c ib1 routable routable configured
run $c "$c: ib1" 0
expect_eq "$c: reference rules for both ports" "$RULES_BOTH" "$(rules $c | sort)"
check "$c: traffic from ib1's address leaves through ib1" \
	sh -c "ip -n $(ns $c) route get 172.16.16.1 from 172.16.34.2 | grep -q ' dev ib1 '"

# configured applies too (routable may come before the last address)
c=nd-configured
host $c
nd_env $c ib0 configured routable configured
run $c "$c: apply" 0
spoke $c ib0
applied_ib0 $c $c
nd_env $c ib0 routable routable configured
run $c "$c: routable after configured" 0
silent "$c: routable after configured"

# the addresses come from netlink: a stale ADDR/IP_ADDRS is ignored
c=nd-stale-addr
host $c
nd_env $c ib0 routable routable configured
ENV+=(ADDR=172.16.34.99 IP_ADDRS=172.16.34.99 IP6_ADDRS=fd00:34::99)
run $c "$c: apply" 0
applied_ib0 $c $c

# off (administratively down) removes
c=nd-off
host $c
base=$(rules $c)
apply_ib0 $c
ip -n "$(ns $c)" link set ib0 down
nd_env $c ib0 off off configured
run $c "$c: remove" 0
spoke $c ib0
removed $c $c "$base"

# no-carrier (the cable is gone, the addresses stay) removes
c=nd-no-carrier
host $c
base=$(rules $c)
apply_ib0 $c
ip -n "$(ns $c)" link set pib0 down
nd_env $c ib0 no-carrier no-carrier configured
run $c "$c: remove" 0
spoke $c ib0
removed $c $c "$base"
run $c "$c: the same event again" 0
silent "$c: the same event again"

# every other state leaves things as they are
for s in degraded carrier; do
	c=nd-$s
	host $c
	base=$(rules $c)
	nd_env $c ib0 $s $s configured
	run $c "$c: on a fresh host" 0
	silent "$c: on a fresh host"
	expect_eq "$c: installs nothing" "$base" "$(rules $c)"
	apply_ib0 $c
	nd_env $c ib0 $s $s configured
	run $c "$c: after apply" 0
	silent "$c: after apply"
	applied_ib0 $c "$c: removes nothing"
done

# ifupdown: post-up of the inet stanza applies every address, the inet6
# stanza's post-up then has nothing left to do
c=ifupdown-up
host $c
ifupdown_env ib0 inet start post-up 172.16.34.1
run $c "$c: inet post-up" 0
spoke $c ib0
applied_ib0 $c "$c: inet"
ifupdown_env ib0 inet6 start post-up fd00:34::1
run $c "$c: inet6 post-up" 0
silent "$c: inet6 post-up"
applied_ib0 $c "$c: inet6"

# ... and in the order ifupdown really works, the inet6 address arrives after
# the inet post-up: the inet6 call adds its rule, the IPv4 rule stays single
c=ifupdown-dual
ns_new $c
veth $c ib0 pib0
addr $c ib0 172.16.34.1/16
ifupdown_env ib0 inet start post-up 172.16.34.1
run $c "$c: inet post-up" 0
ip -n "$(ns $c)" addr add fd00:34::1/64 dev ib0 nodad
ifupdown_env ib0 inet6 start post-up fd00:34::1
run $c "$c: inet6 post-up" 0
applied_ib0 $c "$c: inet then inet6"

# stop/post-down: ifdown has already taken the addresses and the link down
c=ifupdown-down
host $c
base=$(rules $c)
ifupdown_env ib0 inet start post-up 172.16.34.1
hook $c "$CONF" "${ENV[@]}" 2>/dev/null
ip -n "$(ns $c)" addr flush dev ib0
ip -n "$(ns $c)" link set ib0 down
ifupdown_env ib0 inet stop post-down 172.16.34.1
run $c "$c: inet post-down" 0
spoke $c ib0
removed $c $c "$base"
ifupdown_env ib0 inet6 stop post-down fd00:34::1
run $c "$c: inet6 post-down" 0
silent "$c: inet6 post-down"

# an alias stanza (`iface ib1:0 inet static`, address 172.16.34.12/16): ifupdown
# adds the address to ib1 with the label ib1:0 and runs the hook with
# IFACE=LOGICAL=ib1:0; ifdown ib1:0 takes only that address, ib1 stays up
c=ifupdown-alias
host $c
ip -n "$(ns $c)" addr add 172.16.34.12/16 dev ib1 label ib1:0 || exit 1
ifupdown_env ib1:0 inet start post-up 172.16.34.12
run $c "$c: inet post-up of ib1:0" 0
spoke $c ib1
expect_eq "$c: the alias's address has its rule to ib1's table" 1 \
	"$(rules $c | grep -c 'from 172.16.34.12 lookup 942$')"
expect_eq "$c: so has ib1's own" 1 "$(rules $c | grep -c 'from 172.16.34.2 lookup 942$')"
check "$c: traffic from the alias's address leaves through ib1" \
	sh -c "ip -n $(ns $c) route get 172.16.16.1 from 172.16.34.12 | grep -q ' dev ib1 '"
ip -n "$(ns $c)" addr del 172.16.34.12/16 dev ib1
ifupdown_env ib1:0 inet stop post-down 172.16.34.12
run $c "$c: inet post-down of ib1:0" 0
expect_eq "$c: the alias's rule went with its address" 0 \
	"$(rules $c | grep -c 'from 172.16.34.12 ')"
expect_eq "$c: ib1's own rule stays (ib1 is still up)" 1 \
	"$(rules $c | grep -c 'from 172.16.34.2 lookup 942$')"
expect_eq "$c: ib1's table route stays" "172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2" \
	"$(table $c 942 | grep '^172')"

# the calls around `ifup -a` / `ifdown -a`
c=ifupdown-all
host $c
base=$(rules $c)
ENV=(IFACE=--all LOGICAL=auto ADDRFAM=meta METHOD=none MODE=start PHASE=post-up VERBOSITY=0
	CLASS=auto)
run $c "$c: --all meta post-up" 0
silent "$c: --all meta post-up"
expect_eq "$c: installs nothing" "$base" "$(rules $c)"
apply_ib0 $c
ENV=(IFACE=--all LOGICAL=auto ADDRFAM=meta METHOD=none MODE=stop PHASE=post-down VERBOSITY=0)
run $c "$c: --all meta post-down" 0
silent "$c: --all meta post-down"
applied_ib0 $c "$c: removes nothing"

# lo, even with a config that matches every name
c=ifupdown-lo
host $c
base=$(rules $c)
ENV=(IFACE=lo LOGICAL=lo ADDRFAM=inet METHOD=loopback MODE=start PHASE=post-up VERBOSITY=0
	CLASS=auto IFUPDOWN_lo=post-up)
run $c "$c: post-up" 0 "$T_DIR/everything.conf"
silent "$c: post-up"
expect_eq "$c: installs nothing" "$base" "$(rules $c)"

# an interface that does not match, and one that is already gone
c=ifupdown-other
host $c
base=$(rules $c)
ifupdown_env pib0 inet start post-up 172.16.99.1
run $c "$c: unmanaged pib0" 0
silent "$c: unmanaged pib0"
ifupdown_env ib7 inet stop post-down 172.16.34.7
run $c "$c: vanished ib7" 0
silent "$c: vanished ib7"
expect_eq "$c: rules as before" "$base" "$(rules $c)"

# NetworkManager through 01-ifupdown: one run per family, up then down
c=nm-bridge
host $c
base=$(rules $c)
nm_env ib0 up inet
run $c "$c: up inet" 0
spoke $c ib0
applied_ib0 $c "$c: up inet"
nm_env ib0 up inet6
run $c "$c: up inet6" 0
silent "$c: up inet6"
applied_ib0 $c "$c: up inet6"
ip -n "$(ns $c)" addr flush dev ib0
ip -n "$(ns $c)" link set ib0 down
nm_env ib0 down inet
run $c "$c: down" 0
spoke $c ib0
removed $c "$c: down" "$base"

# no IFACE and no arguments: not a hook run but a mistake
c=no-iface
host $c
base=$(rules $c)
ENV=()
run $c "$c: empty environment" 2
check "$c: says what is missing on stderr" grep -q '^ib-hook: no interface: give --iface IF or --all' "$T_DIR/err"
ENV=(LOGICAL=ib0 ADDRFAM=inet METHOD=static MODE=start PHASE=post-up VERBOSITY=0)
run $c "$c: ifupdown variables without IFACE" 2
ENV=(STATE=routable OperationalState=routable AdministrativeState=configured)
run $c "$c: networkd-dispatcher variables without IFACE" 2
expect_eq "$c: nothing changed" "$base" "$(rules $c)"

done_testing
