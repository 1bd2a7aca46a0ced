#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The interface has no address yet (only its IPv6 link-local one, which
# ib-hook never manages): apply is a silent no-op that exits 0, by hand and as
# a dispatcher. Once an address appears, the next apply installs everything.
. "$(dirname "$0")/../lib.sh"
t_require

port_host h ib0 -
hn=$(ns h)
t=$(table_of h ib0)
before=$(state h)
sysctls_before=$(sysctls h ib0)

expect_rc "apply without an address (by hand)" 0 ibh h --config "$T_DIR/h.conf" --iface ib0
expect_eq "  prints nothing" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
expect_rc "apply without an address (networkd-dispatcher)" 0 \
	hook h "$T_DIR/h.conf" IFACE=ib0 STATE=routable
expect_eq "  prints nothing" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
expect_rc "apply without an address (ifupdown)" 0 \
	hook h "$T_DIR/h.conf" IFACE=ib0 LOGICAL=ib0 ADDRFAM=inet METHOD=manual MODE=start PHASE=post-up
expect_eq "  prints nothing" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
expect_eq "no rule, no table, no route added" "$before" "$(state h)"
expect_eq "sysctls left alone (no IPv4 address)" "$sysctls_before" "$(sysctls h ib0)"
expect_rc "--status without an address" 0 ibh h --config "$T_DIR/h.conf" --status --iface ib0
check "  says so" grep -q 'no address' "$T_DIR/out"
expect_rc "--dry-run without an address" 0 ibh h --config "$T_DIR/h.conf" --dry-run --iface ib0
expect_eq "  prints nothing: nothing to do" "" "$(cat "$T_DIR/out")"

addr h ib0 172.16.34.1/16
ip -n "$hn" addr add 2001:db8:34::1/64 dev ib0 nodad
expect_rc "apply after the addresses appeared (networkd-dispatcher)" 0 \
	hook h "$T_DIR/h.conf" IFACE=ib0 STATE=routable
check "  reports its changes" grep -q "rule from 172.16.34.1 lookup $t" "$T_DIR/err"
expect_eq "IPv4 rule installed once" 1 "$(rules_from h 172.16.34.1)"
expect_eq "IPv6 rule installed once" 1 "$(ip -n "$hn" -6 rule show | grep -c "from 2001:db8:34::1 lookup $t")"
expect_eq "table $t holds the prefix routes" \
	"172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1
2001:db8:34::/64 dev ib0 proto kernel metric 1024 pref medium" \
	"$(ip -n "$hn" route show table "$t" | sed 's/ *$//'; ip -n "$hn" -6 route show table "$t" | sed 's/ *$//')"
expect_eq "sysctls set" "arp_ignore=2 arp_announce=2 " \
	"$(sysctls h ib0 | sed 's/rp_filter=.*//')"
expect_rc "--status is ok" 0 ibh h --config "$T_DIR/h.conf" --status --iface ib0
expect_rc "a second apply" 0 hook h "$T_DIR/h.conf" IFACE=ib0 STATE=configured
expect_eq "  is silent" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
expect_rc "remove" 0 ibh h --config "$T_DIR/h.conf" --remove --iface ib0
expect_eq "no rule of ib-hook left" 0 "$( (ip -n "$hn" rule; ip -n "$hn" -6 rule) | grep -c "lookup $t")"
done_testing
