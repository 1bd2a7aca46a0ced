#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPEC sections 3 and 9: copies next to foreign routes. Main holds a default
# with every attribute (metric, mtu, advmss, initcwnd, congctl, onlink), a
# tos route, an IPv6 route with pref, mtu and hoplimit, and multipath routes
# with hops through both ports (two of them through ib0); T(ib0) holds the
# user's own routes, one of them for a copy's destination. The copies are
# exact, the user's routes stay byte-identical through apply, a change in
# main, a second run and remove, and remove takes back only the copies.
. "$(dirname "$0")/../netns/common.sh"
t_require

port_host h ib0 10.0.0.1/31 ib1 10.1.0.1/31
m=$(ns h)
ip -n "$m" addr add fd00:0:a::2/64 dev ib0 nodad
t0=$(table_of h ib0) t1=$(table_of h ib1)
ip -n "$m" route add default via 10.0.0.0 dev ib0 proto static metric 100 mtu lock 1400 \
	advmss 1360 initcwnd 10 congctl reno onlink
ip -n "$m" route add default via 10.1.0.0 dev ib1 proto static metric 101
ip -n "$m" route add 10.40.0.0/16 tos 0x10 via 10.0.0.0 dev ib0 proto static
ip -n "$m" -6 route add fd77::/16 via fe80::1 dev ib0 proto static metric 300 pref high mtu 1300 \
	hoplimit 9
ip -n "$m" route add 10.20.0.0/16 proto static nexthop via 10.0.0.0 dev ib0 weight 2 \
	nexthop via 10.1.0.0 dev ib1 weight 3
ip -n "$m" route add 10.21.0.0/16 proto static nexthop via 10.0.0.0 dev ib0 \
	nexthop via 10.0.0.9 dev ib0 onlink weight 4 nexthop via 10.1.0.0 dev ib1
# the user's own routes in T(ib0): ib-hook's neighbours, never its own
ip -n "$m" route add 10.30.0.0/16 via 10.0.0.0 dev ib0 table "$t0" metric 7
ip -n "$m" route add unreachable 10.31.0.0/16 table "$t0"
ip -n "$m" route add default via 10.0.0.0 dev ib0 table "$t0" proto static metric 5
ip -n "$m" route add 10.20.0.0/16 via 10.0.0.0 dev ib0 table "$t0" metric 1
ip -n "$m" -6 route add fd66::/16 dev ib0 table "$t0" metric 9

t() {
	ip -n "$m" route show table "$1" | sed 's/ *$//'
	ip -n "$m" -6 route show table "$1" | sed 's/ *$//'
}
foreign=$(t "$t0")
# main and the rules (the user's routes in T(ib0) are checked on their own)
mainstate() {
	ip -n "$m" route show table main
	ip -n "$m" -6 route show table main
	ip -n "$m" rule show | grep -v -e "lookup $t0" -e "lookup $t1"
	ip -n "$m" -6 rule show | grep -v -e "lookup $t0" -e "lookup $t1"
}
main_before=$(mainstate)

for port in ib0 ib1; do
	expect_rc "the hook applies $port" 0 hook h "$T_DIR/h.conf" IFACE=$port STATE=routable \
		ADDR=dummy OperationalState=routable AdministrativeState=configured
done
expect_eq "T(ib0): the user's routes, the prefix routes and the exact copies" \
	"default via 10.0.0.0 dev ib0 proto static metric 5
default via 10.0.0.0 dev ib0 proto kernel metric 100 onlink mtu lock 1400 advmss 1360 initcwnd 10 congctl reno
10.0.0.0/31 dev ib0 proto kernel scope link src 10.0.0.1
10.20.0.0/16 via 10.0.0.0 dev ib0 proto kernel
10.20.0.0/16 via 10.0.0.0 dev ib0 metric 1
10.21.0.0/16 proto kernel
	nexthop via 10.0.0.0 dev ib0 weight 1
	nexthop via 10.0.0.9 dev ib0 weight 4 onlink
10.30.0.0/16 via 10.0.0.0 dev ib0 metric 7
unreachable 10.31.0.0/16
10.40.0.0/16 tos 0x10 via 10.0.0.0 dev ib0 proto kernel
fd00:0:a::/64 dev ib0 proto kernel metric 1024 pref medium
fd66::/16 dev ib0 metric 9 pref medium
fd77::/16 via fe80::1 dev ib0 proto kernel metric 300 mtu 1300 hoplimit 9 pref high" "$(t "$t0")"
expect_eq "T(ib1): the prefix route and its copies (its hop of each multipath route)" \
	"default via 10.1.0.0 dev ib1 proto kernel metric 101
10.1.0.0/31 dev ib1 proto kernel scope link src 10.1.0.1
10.20.0.0/16 via 10.1.0.0 dev ib1 proto kernel
10.21.0.0/16 via 10.1.0.0 dev ib1 proto kernel" "$(t "$t1" 2>/dev/null)"
expect_eq "main and every other table are byte-identical" "$main_before" \
	"$(mainstate)"
after=$(state h)
expect_rc "a second run" 0 hook h "$T_DIR/h.conf" IFACE=ib0 STATE=routable ADDR=dummy \
	OperationalState=routable AdministrativeState=configured
expect_eq "  says nothing" "" "$(cat "$T_DIR/err")"
expect_eq "  changes nothing" "$after" "$(state h)"

# main changes: the copies follow, the user's routes stay
ip -n "$m" route del 10.21.0.0/16
ip -n "$m" route del default via 10.0.0.0 dev ib0
ip -n "$m" route add default via 10.0.0.0 dev ib0 proto static metric 100 mtu 1500
expect_rc "ib-hook --all after main changed" 0 ibh h --config "$T_DIR/h.conf" --all
check "  the copy of a deleted multipath route goes" \
	lacks '^10.21.0.0/16' ip -n "$m" route show table "$t0"
check "  the changed default is copied anew" \
	grep -q 'proto kernel metric 100 mtu 1500' <(ip -n "$m" route show table "$t0")
check "  the stale copy goes" lacks 'mtu lock 1400' ip -n "$m" route show table "$t0"
expect_eq "  the user's routes are all there, unchanged" "$foreign" \
	"$(t "$t0" | grep -F -x -f <(printf '%s\n' "$foreign"))"
ibh h --config "$T_DIR/h.conf" --status >"$T_DIR/status" 2>&1
expect_eq "--status: ok" 0 "$?"
check "  it shows the copies" grep -q "^  copy 0.0.0.0/0 via 10.0.0.0 dev ib0 proto kernel metric 100 mtu 1500: ok" \
	"$T_DIR/status"
ibh h --config "$T_DIR/h.conf" --status --json >"$T_DIR/status.json" 2>/dev/null
src_root=${IB_HOOK_SOURCE_ROOT:-$(dirname "$0")/../..}
check "--status --json: valid by doc/ib-hook.schema.json, the copies listed" \
	sh -c "python3 '$src_root/tests/validate-json.py' '$src_root/doc/ib-hook.schema.json' status <'$T_DIR/status.json'"
check "  with their state" grep -q '"copies":\[{"route":"0.0.0.0/0 via 10.0.0.0 dev ib0 proto kernel metric 100 mtu 1500","state":"ok"}' "$T_DIR/status.json"

# a copy gone behind ib-hook's back
ip -n "$m" route del default via 10.1.0.0 dev ib1 table "$t1" proto kernel metric 101
ibh h --config "$T_DIR/h.conf" --status >"$T_DIR/status" 2>&1
expect_eq "--status: a missing copy is drift" 1 "$?"
check "  and names it" grep -q "^  copy 0.0.0.0/0 via 10.1.0.0 dev ib1 proto kernel metric 101: missing" \
	"$T_DIR/status"

for port in ib0 ib1; do
	expect_rc "remove $port" 0 ibh h --config "$T_DIR/h.conf" --remove --iface $port
done
expect_eq "remove leaves T(ib0) with the user's routes only" "$foreign" "$(t "$t0")"
expect_eq "  and T(ib1) empty" "" "$(t "$t1" 2>/dev/null)"

# [Gateways]: a port main routes nothing through gets a default through its /31 peer
ip -n "$m" route del default via 10.1.0.0 dev ib1
ip -n "$m" route del 10.20.0.0/16
printf '[Match]\nName=ib0 ib1\n[Gateways]\nib1=peer\n' | conf gw
main_before=$(mainstate)
expect_rc "--all with [Gateways] ib1=peer" 0 ibh h --config "$T_DIR/gw.conf" --all
expect_eq "  T(ib1) gets a default through 10.1.0.0" \
	"default via 10.1.0.0 dev ib1 proto kernel
10.1.0.0/31 dev ib1 proto kernel scope link src 10.1.0.1" "$(t "$t1" 2>/dev/null)"
expect_eq "  main gets nothing" "$main_before" "$(mainstate)"
printf '[Match]\nName=ib0 ib1\n[Routing]\nGatewayRoutes=no\n' | conf off
expect_rc "GatewayRoutes=no" 0 ibh h --config "$T_DIR/off.conf" --all
expect_eq "  takes the copies back: prefix routes only" \
	"10.1.0.0/31 dev ib1 proto kernel scope link src 10.1.0.1" "$(t "$t1" 2>/dev/null)"
check "  and T(ib0)'s copies" lacks 'proto kernel metric 100' ip -n "$m" route show table "$t0"
check "  not the user's routes" grep -q 'metric 7' <(ip -n "$m" route show table "$t0")

# main's IPv6 default changes in its MTU alone (a router advertisement's MTU
# option): to IPv6 the new copy has the old one's next hop, so the old one goes
# first (found by tests/random/ownership.py, seed 17: ib-hook refused, naming
# its own copy as a route it did not install)
ip -n "$m" -6 route add default via fe80::1 dev ib0 proto ra metric 1024
expect_rc "an RA default in main: copied" 0 ibh h --config "$T_DIR/h.conf" --iface ib0
ip -n "$m" -6 route replace default via fe80::1 dev ib0 proto ra metric 1024 mtu 1400
expect_rc "  its MTU changes: the next run" 0 ibh h --config "$T_DIR/h.conf" --iface ib0
expect_eq "  T(ib0) holds the copy with the new MTU, and no other" \
	"default via fe80::1 dev ib0 proto kernel metric 1024 mtu 1400 pref medium" \
	"$(ip -n "$m" -6 route show table "$t0" default | sed 's/ *$//')"
ip -n "$m" -6 route del default via fe80::1 dev ib0

# a reject default in main answers the kernel's lookup for the one-subnet
# layout's default with its error (blackhole EINVAL, prohibit EACCES): there
# is nothing to copy, and ib1 (no gateway route of its own) is applied all
# the same (found by tests/random/ownership.py, seed 11: every run failed)
for kind in blackhole prohibit; do
	ip -n "$m" route add "$kind" default
	ip -n "$m" -6 route add "$kind" default metric 1
	expect_rc "a $kind default in main: ib1 applies" 0 ibh h --config "$T_DIR/h.conf" --iface ib1
	ip -n "$m" route del "$kind" default
	ip -n "$m" -6 route del "$kind" default metric 1
done
done_testing
