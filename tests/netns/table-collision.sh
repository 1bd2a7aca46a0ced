#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A [Tables] entry pointing at a table that routes through another device:
# ib-hook refuses, exits 1, names the table and the device, changes nothing.
. "$(dirname "$0")/common.sh"
t_require

conf collide <<'CONF'
[Match]
Name=ib0 ib1
[Tables]
ib1=500
CONF
memserver34 mem
m=$(ns mem)
ip -n "$m" route add 10.5.0.0/16 dev pib0 table 500
ip -n "$m" rule add from 10.5.0.1 lookup 500 priority 1000
before=$(state mem; sysctls mem ib1)
expect_rc "apply to the taken table" 1 ibh mem --config "$T_DIR/collide.conf" --iface ib1
check "the message names ib1, table 500 and pib0, and the way out" \
	grep -q "ib1: refusing to apply table 500: table 500 holds route 10.5.0.0/16 dev pib0 proto boot that ib-hook did not install; give ib1 another table in \[Tables\]\$" "$T_DIR/err"
expect_eq "nothing changed" "$before" "$(state mem; sysctls mem ib1)"
expect_rc "the hook says the same" 1 hook mem "$T_DIR/collide.conf" IFACE=ib1 STATE=routable
expect_eq "nothing changed" "$before" "$(state mem; sysctls mem ib1)"
expect_rc "remove refuses too" 1 ibh mem --config "$T_DIR/collide.conf" --iface ib1 --remove
expect_eq "nothing changed" "$before" "$(state mem; sysctls mem ib1)"
expect_rc "--status reports it" 1 ibh mem --config "$T_DIR/collide.conf" --status --iface ib1
check "  as refused" grep -q "refused: table 500 holds route 10.5.0.0/16 dev pib0 proto boot that ib-hook did not install" "$T_DIR/out"
expect_rc "ib0 with its own table still works" 0 ibh mem --config "$T_DIR/collide.conf" --iface ib0

# the table TableBase + ifindex picks, taken by a route through another
# device (netplan's `routes: table:`, tests/e2e/netplan.sh): the message says
# how the table came about
t0=$(table_of mem ib0)
printf '[Match]\nName=ib0 ib1\n[Tables]\nib1=500\n' | conf base
ip -n "$m" route add 10.6.0.0/16 dev pib1 proto static table "$t0"
before=$(state mem; sysctls mem ib0)
expect_rc "apply to ib0, whose table TableBase + ifindex is taken" 1 ibh mem --config "$T_DIR/base.conf" --iface ib0
idx0=$(ip -n "$m" -o link show ib0 | cut -d: -f1)
check "  names the route, TableBase and ifindex, and the way out" grep -qx \
	"ib-hook: ib0: refusing to apply table $t0: table $t0 holds route 10.6.0.0/16 dev pib1 proto static that ib-hook did not install; table $t0 is TableBase 1000 + ifindex $idx0: give ib0 a table in \[Tables\]" \
	"$T_DIR/err"
expect_eq "  ib-hook's own rule and route for ib0 stay, nothing changed" "$before" "$(state mem; sysctls mem ib0)"
ip -n "$m" route del 10.6.0.0/16 dev pib1 proto static table "$t0"

# TableBase + ifindex landing on a reserved table: the message names the
# table that was computed, not 0
idx1=$(ip -n "$m" -o link show ib1 | cut -d: -f1)
# ib0 keeps the table it has, so that nothing of it becomes a leftover
printf '[Match]\nName=ib0 ib1\n[Routing]\nTableBase=%s\n[Tables]\nib0=%s\n' \
	$((255 - idx1)) "$(table_of mem ib0)" | conf reserved
before=$(state mem; sysctls mem ib1)
expect_rc "apply when TableBase + ifindex is 255" 1 ibh mem --config "$T_DIR/reserved.conf" --iface ib1
expect_eq "  one line naming table 255 and how it came about" \
	"ib-hook: ib1: refusing to apply: table 255 (TableBase $((255 - idx1)) + ifindex $idx1) is reserved (0, 253-255); give ib1 a table in [Tables]" \
	"$(cat "$T_DIR/err")"
expect_eq "  nothing changed" "$before" "$(state mem; sysctls mem ib1)"
expect_rc "--status reports it" 1 ibh mem --config "$T_DIR/reserved.conf" --status --iface ib1
check "  as refused, naming table 255" grep -q "verdict: refused: table 255 (TableBase" "$T_DIR/out"
done_testing
