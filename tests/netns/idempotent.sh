#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Three runs leave exactly the state of one run, and the later runs say
# nothing; the first run's state is checked against what apply must leave.
. "$(dirname "$0")/common.sh"
t_require

memserver34 mem
nsx mem ip -6 addr add 2001:db8:34::2/64 dev ib1 nodad
for port in ib0 ib1; do
	expect_rc "run 1 for $port exits 0" 0 hook mem "$T_DIR/default.conf" IFACE=$port STATE=routable
	check "  and says what it did" grep -q "^$port: added rule" "$T_DIR/out" "$T_DIR/err"
done
expect_applied "run 1 applied both ports" mem
one=$(state mem; sysctls mem ib0; sysctls mem ib1)
for run in 2 3; do
	for port in ib0 ib1; do
		hook mem "$T_DIR/default.conf" IFACE=$port STATE=routable >"$T_DIR/out" 2>"$T_DIR/err"
		expect_eq "run $run for $port exits 0" 0 $?
		expect_eq "run $run for $port is silent" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
	done
	ibh mem --config "$T_DIR/default.conf" --all >"$T_DIR/out" 2>&1
	expect_eq "run $run by hand (--all) is silent" "" "$(cat "$T_DIR/out")"
done
expect_eq "state after three runs is the state after one" "$one" "$(state mem; sysctls mem ib0; sysctls mem ib1)"
expect_eq "one IPv6 rule" 1 "$(ip -n "$(ns mem)" -6 rule show | grep -c 'from 2001:db8:34::2 lookup')"
expect_eq "--dry-run prints nothing: nothing to do" "" "$(ibh mem --config "$T_DIR/default.conf" --dry-run --all)"
done_testing
