#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPEC sections 3 and 9: what ib-hook reads of main is main's, whatever the
# rules do to the kernel's lookup. A user's rule before main that takes
# lookups without a source to another table (`from all lookup T`) does not
# hide X's prefix route from MainRoute=delete.
. "$(dirname "$0")/../netns/common.sh"
t_require

# MainRoute=delete with `from all lookup T(ib1)` before main: T(ib1) answers
# the lookup for ib1's prefix once ib-hook filled it
port_host d ib1 172.16.34.2/16
md=$(ns d)
t1=$(table_of d ib1)
printf '[Match]\nName=ib1\n[Routing]\nMainRoute=delete\n' | conf d
ip -n "$md" rule add from all lookup "$t1" pref 500
expect_rc "MainRoute=delete under a user's rule: apply" 0 ibh d --config "$T_DIR/d.conf" --iface ib1
expect_eq "  main's prefix route is gone" "" "$(ip -n "$md" route show table main)"
# as the kernel puts it back when the link comes up again
ip -n "$md" route add 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2
expect_rc "  the kernel's prefix route is back: --status is drift" 1 ibh d --config "$T_DIR/d.conf" \
	--status --iface ib1
check "  --status names main's route" grep -q "main route present, to be deleted" "$T_DIR/out"
expect_rc "  apply again" 0 ibh d --config "$T_DIR/d.conf" --iface ib1
expect_eq "  main's prefix route is gone again" "" "$(ip -n "$md" route show table main)"
expect_eq "  the user's rule is untouched" "500:	from all lookup $t1" \
	"$(ip -n "$md" rule show pref 500)"
expect_rc "  --status" 0 ibh d --config "$T_DIR/d.conf" --status --iface ib1
check "  --status says main's route is deleted" grep -q "main route deleted" "$T_DIR/out"
after=$(state d)
expect_rc "  a third run" 0 ibh d --config "$T_DIR/d.conf" --iface ib1
expect_eq "  changes nothing" "$after" "$(state d)"

# `not from A lookup 77` before main, and 77 refuses ib1's prefix: the lookup
# answers with an error, not with main's route
port_host u ib1 172.16.34.2/16
mu=$(ns u)
printf '[Match]\nName=ib1\n[Routing]\nMainRoute=delete\n' | conf u
ip -n "$mu" route add unreachable 172.16.0.0/16 table 77
ip -n "$mu" rule add not from 10.9.9.9 lookup 77 pref 400
foreign=$(ip -n "$mu" route show table 77; ip -n "$mu" rule show pref 400)
expect_rc "MainRoute=delete, the lookup refused by a user's table: apply" 0 \
	ibh u --config "$T_DIR/u.conf" --iface ib1
expect_eq "  main's prefix route is gone" "" "$(ip -n "$mu" route show table main)"
expect_eq "  the user's rule and table are untouched" "$foreign" \
	"$(ip -n "$mu" route show table 77; ip -n "$mu" rule show pref 400)"
expect_rc "  --status" 0 ibh u --config "$T_DIR/u.conf" --status --iface ib1
check "  --status says main's route is deleted" grep -q "main route deleted" "$T_DIR/out"

done_testing
