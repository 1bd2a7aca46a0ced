#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Addresses change under ib-hook: the next run follows them and leaves no
# stale rule; an IPv6 global address gets its rule and route, link-local none.
. "$(dirname "$0")/common.sh"
t_require

memserver34 mem
t1=$(table_of mem ib1)
hook mem "$T_DIR/default.conf" IFACE=ib1 STATE=routable 2>/dev/null

nsx mem ip addr del 172.16.34.2/16 dev ib1
nsx mem ip addr add 172.16.34.20/16 dev ib1
expect_rc "routable after the address was replaced" 0 hook mem "$T_DIR/default.conf" IFACE=ib1 STATE=routable
expect_eq "no rule for the old address" 0 "$(rules_from mem 172.16.34.2)"
expect_eq "one rule for the new address" 1 "$(rules_from mem 172.16.34.20)"
expect_eq "table follows" "172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.20" "$(table mem "$t1")"
expect_eq "route get from the new address" ib1 "$(route_dev mem 172.16.16.1 172.16.34.20)"

nsx mem ip addr add 10.9.0.2/24 dev ib1
nsx mem ip -6 addr add 2001:db8:34::2/64 dev ib1 nodad
expect_rc "routable after addresses were added" 0 hook mem "$T_DIR/default.conf" IFACE=ib1 STATE=configured
expect_eq "one rule for the added IPv4 address" 1 "$(rules_from mem 10.9.0.2)"
expect_eq "table holds both prefixes and the IPv6 one" "10.9.0.0/24 dev ib1 proto kernel scope link src 10.9.0.2
172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.20
2001:db8:34::/64 dev ib1 proto kernel metric 1024 pref medium" "$(table mem "$t1")"
expect_eq "one IPv6 rule" "1000:	from 2001:db8:34::2 lookup $t1" "$(ip -n "$(ns mem)" -6 rule show | grep 2001:db8 | sed 's/ *$//')"
expect_eq "no rule for the link-local address" "" "$(ip -n "$(ns mem)" -6 rule show | grep fe80)"
expect_eq "IPv6 route get from the global address" ib1 \
	"$(ip -n "$(ns mem)" -6 route get 2001:db8:34::99 from 2001:db8:34::2 | sed -n 's/.* dev \([^ ]*\).*/\1/p')"

# a second address in the same prefix: its own rule, the one table route
nsx mem ip addr add 172.16.34.21/16 dev ib1
hook mem "$T_DIR/default.conf" IFACE=ib1 STATE=routable 2>/dev/null
expect_eq "rule for the secondary address" 1 "$(rules_from mem 172.16.34.21)"
expect_eq "still one 172.16.0.0/16 route in the table" 1 "$(table mem "$t1" | grep -c '^172.16.0.0/16')"

nsx mem ip addr del 10.9.0.2/24 dev ib1
nsx mem ip -6 addr del 2001:db8:34::2/64 dev ib1
hook mem "$T_DIR/default.conf" IFACE=ib1 STATE=routable 2>/dev/null
expect_eq "removed addresses leave no rule" "" \
	"$( (ip -n "$(ns mem)" rule; ip -n "$(ns mem)" -6 rule) | grep -e 10.9.0.2 -e 2001:db8)"
expect_eq "nor route" "172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.20" "$(table mem "$t1")"
expect_rc "--status: ok" 0 ibh mem --config "$T_DIR/default.conf" --status --iface ib1
done_testing
