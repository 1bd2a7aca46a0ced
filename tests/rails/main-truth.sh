#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPEC sections 3 and 9: what ib-hook reads of main is main's, whatever the
# rules do to the kernel's lookup. A user's rule before main that takes
# lookups without a source to another table (`from all lookup T`) hides
# neither X's prefix route (MainRoute=delete) nor main's default (the
# one-subnet layout's copies).
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

# the one-subnet layout with `from all lookup T(ib1)` before main: once the
# run copied main's default into T(ib1), T(ib1) answers the lookup for it
port_host s ib0 172.16.34.1/16 ib1 172.16.34.2/16
ms=$(ns s)
s1=$(table_of s ib1)
ip -n "$ms" route add default via 172.16.0.254 dev ib0 proto static
ip -n "$ms" rule add from all lookup "$s1" pref 500
expect_rc "one subnet under a user's rule: apply" 0 ibh s --config "$T_DIR/s.conf" --all
expect_eq "  T(ib1) holds main's default through ib1" \
	"default via 172.16.0.254 dev ib1 proto kernel" \
	"$(ip -n "$ms" route show table "$s1" default | sed "s/ *$//")"
after=$(state s)
expect_rc "  --dry-run plans nothing" 0 ibh s --config "$T_DIR/s.conf" --dry-run --all
expect_eq "  (its plan)" "" "$(grep -v '^ip neigh flush ' "$T_DIR/out")"
expect_rc "  a second run" 0 ibh s --config "$T_DIR/s.conf" --all
expect_eq "  changes nothing" "$after" "$(state s)"
expect_rc "  --status" 0 ibh s --config "$T_DIR/s.conf" --status --all

# SPEC section 9: main's IPv6 default through ib1 stays when ib1's address
# goes; its gateway is then not reachable through ib1, and the kernel refuses
# a copy: not ib-hook's fault, and no reason to fail the port
port_host g ib1 172.16.34.2/16
mg=$(ns g)
g1=$(table_of g ib1)
ip -n "$mg" addr add 2001:db8:34::2/64 dev ib1 nodad
ip -n "$mg" -6 route add default via 2001:db8:34::fe dev ib1 proto static
ip -n "$mg" -6 addr del 2001:db8:34::2/64 dev ib1
main_before=$(ip -n "$mg" -6 route show table main)
expect_rc "an unreachable gateway: apply" 0 ibh g --config "$T_DIR/g.conf" --iface ib1
expect_eq "  the rule from ib1's address is there" 1 "$(rules_from g 172.16.34.2)"
expect_eq "  T(ib1) holds no IPv6 copy" "" "$(ip -n "$mg" -6 route show table "$g1" 2>/dev/null)"
expect_eq "  main is untouched" "$main_before" "$(ip -n "$mg" -6 route show table main)"
expect_rc "  --status" 0 ibh g --config "$T_DIR/g.conf" --status --iface ib1
check "  --status says why there is no copy" grep -q \
	"copy of ::/0 via 2001:db8:34::fe dev ib1 proto static metric 1024: none, ib1 does not reach its gateway" \
	"$T_DIR/out"
expect_rc "  --status --json" 0 ibh g --config "$T_DIR/g.conf" --status --json --iface ib1
check "  names it unreachable" grep -q '"state":"unreachable"' "$T_DIR/out"
after=$(state g)
expect_rc "  a second run" 0 ibh g --config "$T_DIR/g.conf" --iface ib1
expect_eq "  changes nothing" "$after" "$(state g)"
# the address comes back: the copy follows
ip -n "$mg" addr add 2001:db8:34::2/64 dev ib1 nodad
expect_rc "  the address is back: apply" 0 ibh g --config "$T_DIR/g.conf" --iface ib1
expect_eq "  T(ib1) holds the copy" "default via 2001:db8:34::fe dev ib1 proto kernel metric 1024 pref medium" \
	"$(ip -n "$mg" -6 route show table "$g1" default | sed 's/ *$//')"

done_testing
