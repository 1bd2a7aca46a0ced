#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Someone else deletes one of ib-hook's rules or table routes (or resets a
# sysctl) between two runs: --status reports it by name and exits 1, the next
# apply (as networkd-dispatcher runs it) restores exactly what is missing and
# says so, and --status exits 0 again. Nothing is duplicated on the way.
. "$(dirname "$0")/../lib.sh"
t_require

port_host h ib0 172.16.34.1/16 ib1 172.16.34.2/16
hn=$(ns h)
ip -n "$hn" addr add 2001:db8:34::2/64 dev ib1 nodad
t1=$(table_of h ib1)

status() {
	ibh h --config "$T_DIR/h.conf" --status
}

# restored WHAT MESSAGE: status names the damage, apply repairs it, status is ok
restored() {
	what=$1
	msg=$2
	expect_rc "--status after $what" 1 status
	check "  names it" grep -qF "$3" "$T_DIR/out"
	check "  gives the command that repairs it" grep -qF "pending: $4" "$T_DIR/out"
	check "  verdict drift" grep -q 'verdict: drift' "$T_DIR/out"
	expect_rc "apply after $what" 0 hook h "$T_DIR/h.conf" IFACE=ib1 STATE=routable
	check "  reports what it restored" grep -qF "$msg" "$T_DIR/err"
	expect_eq "  changes nothing else" 1 "$(wc -l <"$T_DIR/err")"
	expect_rc "--status after the repair" 0 status
	expect_eq "state as after the first apply" "$good" "$(state h)"
}

expect_rc "first apply" 0 ibh h --config "$T_DIR/h.conf" --all
expect_rc "--status" 0 status
good=$(state h)

ip -n "$hn" rule del from 172.16.34.2 lookup "$t1" priority 1000
restored "ip rule del (IPv4)" "ib1: added rule from 172.16.34.2 lookup $t1 priority 1000" \
	"address 172.16.34.2/16: rule missing" \
	"ip rule add from 172.16.34.2 lookup $t1 priority 1000"

ip -n "$hn" -6 rule del from 2001:db8:34::2 lookup "$t1" priority 1000
restored "ip -6 rule del" "ib1: added rule from 2001:db8:34::2 lookup $t1 priority 1000" \
	"address 2001:db8:34::2/64: rule missing" \
	"ip -6 rule add from 2001:db8:34::2 lookup $t1 priority 1000"

ip -n "$hn" route del 172.16.0.0/16 table "$t1"
restored "ip route del in table $t1" "ib1: added route 172.16.0.0/16 src 172.16.34.2 in table $t1" \
	"table route 172.16.0.0/16 missing" \
	"ip route append 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 table $t1"

ip -n "$hn" -6 route del 2001:db8:34::/64 table "$t1"
restored "ip -6 route del in table $t1" "ib1: added route 2001:db8:34::/64 in table $t1" \
	"table route 2001:db8:34::/64 missing" \
	"ip -6 route append 2001:db8:34::/64 dev ib1 proto kernel metric 1024 table $t1"

ip netns exec "$hn" sysctl -qw net.ipv4.conf.ib1.arp_ignore=0
restored "arp_ignore reset to 0" "ib1: set arp_ignore=2" \
	"arp_ignore=0 (wanted 2)" "sysctl -w net.ipv4.conf.ib1.arp_ignore=2"

ip -n "$hn" rule del from 172.16.34.2 lookup "$t1" priority 1000
ip -n "$hn" route del 172.16.0.0/16 table "$t1"
expect_rc "--status after rule and route are both gone" 1 status
expect_rc "apply" 0 hook h "$T_DIR/h.conf" IFACE=ib1 STATE=configured
expect_eq "restores both" \
	"ib1: added route 172.16.0.0/16 src 172.16.34.2 in table $t1
ib1: added rule from 172.16.34.2 lookup $t1 priority 1000" "$(cat "$T_DIR/err")"
expect_rc "--status" 0 status
expect_eq "exactly one rule per address" "1 1" \
	"$(rules_from h 172.16.34.1) $(rules_from h 172.16.34.2)"
expect_rc "remove" 0 ibh h --config "$T_DIR/h.conf" --all --remove
expect_eq "no rule of ib-hook left" "" "$( (ip -n "$hn" rule; ip -n "$hn" -6 rule) | grep '^1000:')"
done_testing
