#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Remove restores the namespace's rules and tables to what they were.
. "$(dirname "$0")/common.sh"
t_require

memserver34 mem
nsx mem ip -6 addr add 2001:db8:34::2/64 dev ib1 nodad
before=$(state mem)
expect_rc "apply --all" 0 ibh mem --config "$T_DIR/default.conf" --all
expect_applied "apply applied both ports" mem
expect_rc "networkd-dispatcher off removes ib1" 0 hook mem "$T_DIR/default.conf" IFACE=ib1 STATE=off
expect_eq "ib1's rules are gone" "" "$( (ip -n "$(ns mem)" rule; ip -n "$(ns mem)" -6 rule) | grep -e 172.16.34.2 -e 2001:db8:34::2)"
expect_eq "ib1's table is empty" "" "$(table mem "$(table_of mem ib1)")"
expect_eq "ib0 untouched" 1 "$(rules_from mem 172.16.34.1)"
expect_rc "--remove --iface ib0" 0 ibh mem --config "$T_DIR/default.conf" --remove --iface ib0
expect_eq "rules and tables as before the first run" "$before" "$(state mem)"
expect_rc "a second remove is a no-op" 0 ibh mem --config "$T_DIR/default.conf" --remove --all
expect_eq "  and silent" "" "$(cat "$T_DIR/err" "$T_DIR/out")"

# ifupdown's post-down runs after the addresses went: the rules still go
expect_rc "apply --all again" 0 ibh mem --config "$T_DIR/default.conf" --all
expect_applied "  applied both ports" mem
nsx mem ip addr flush dev ib1
nsx mem ip link set ib1 down
expect_rc "ifupdown post-down after ifdown" 0 hook mem "$T_DIR/default.conf" IFACE=ib1 LOGICAL=ib1 \
	ADDRFAM=inet METHOD=static MODE=stop PHASE=post-down
expect_eq "rule of the flushed address is gone" 0 "$(rules_from mem 172.16.34.2)"
done_testing
