#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Rules and tables ib-hook did not make are byte-identical after apply and
# remove, even when they look like ib-hook's (same priority, same source).
. "$(dirname "$0")/common.sh"
t_require

memserver34 mem
m=$(ns mem)
ip -n "$m" rule add fwmark 0x10 lookup 100 priority 900
ip -n "$m" rule add to 10.1.0.0/16 lookup 200 priority 1000
ip -n "$m" rule add from 172.16.34.2 lookup 300 priority 1000
ip -n "$m" rule add from 172.16.34.2 lookup 2000 priority 1000
ip -n "$m" rule add from 172.16.34.1 iif ib0 lookup 1500 priority 1000
ip -n "$m" -6 rule add from 2001:db8::1 lookup 5000 priority 1000
ip -n "$m" route add 10.1.0.0/16 dev pib0 table 200
ip -n "$m" route add 10.2.0.0/16 dev ib1 table 300
ip -n "$m" route add default via 172.16.0.254 dev ib1 table 2000
before=$(state mem)
foreign_rules=$( (ip -n "$m" -d rule; ip -n "$m" -d -6 rule) | grep -e 'lookup 100\b' -e 'lookup 200\b' -e 'lookup 300\b' -e 'lookup 2000\b' -e 'lookup 1500\b' -e 'lookup 5000\b')
foreign_tables=$(table mem 100; table mem 200; table mem 300; table mem 2000)

expect_rc "apply" 0 ibh mem --config "$T_DIR/default.conf" --all
expect_eq "foreign rules unchanged after apply" "$foreign_rules" \
	"$( (ip -n "$m" -d rule; ip -n "$m" -d -6 rule) | grep -e 'lookup 100\b' -e 'lookup 200\b' -e 'lookup 300\b' -e 'lookup 2000\b' -e 'lookup 1500\b' -e 'lookup 5000\b')"
expect_eq "foreign tables unchanged after apply" "$foreign_tables" \
	"$(table mem 100; table mem 200; table mem 300; table mem 2000)"
expect_eq "ib-hook's own rule is there once" 1 "$(ip -n "$m" rule | grep -c "from 172.16.34.2 lookup $(table_of mem ib1)\$")"
expect_rc "a second apply" 0 ibh mem --config "$T_DIR/default.conf" --all
expect_eq "  is silent" "" "$(cat "$T_DIR/err")"
expect_rc "remove" 0 ibh mem --config "$T_DIR/default.conf" --all --remove
expect_eq "everything byte-identical after remove" "$before" "$(state mem)"
done_testing
