#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 48, item 1: a watcher answers SIGTERM during a long pass. ib0 and ib1
# in one /16, 40 000 routes of main via a gateway through ib0, copied into
# T(ib0) and (the gateway lies in ib1's prefix) T(ib1). ib0 goes (a driver
# reload): the watcher's pass deletes T(ib1)'s 40 000 copies, whose originals
# left main with the port, which takes seconds. SIGTERM in the middle of it:
# the watcher stops before the rest of the deletions (a plan stops only where
# nothing but deletions is left), exits 0, and the next run makes them; the
# record stays true (--status after it: 0). Before, every signal waited for
# the whole pass (30 s for 100 000 copies; one with 200 000 spun for an hour).
# No time is asserted: that copies were left proves the pass was cut.
. "$(dirname "$0")/common.sh"
t_require awk

N=40000
port_host h ib0 172.16.34.1/16 ib1 172.16.34.2/16
h=$(ns h)
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
	printf "route add 10.%d.%d.0/24 via 172.16.0.1 dev ib0 proto static\n", int(i / 256), i % 256 }' \
	>"$T_DIR/routes.batch"
ip -n "$h" -batch "$T_DIR/routes.batch" || exit 1
t1=$(table_of h ib1)
copies() { ip -n "$h" -4 route show table "$t1" | grep -c ' via 172.16.0.1 '; }

expect_rc "--all copies main's routes" 0 ibh h --config "$T_DIR/h.conf" --all
expect_eq "  T(ib1) holds a copy of each" "$N" "$(copies)"

start_watcher h "$T_DIR/h.conf"
eventually "the watcher has made its first pass" 60 watcher_idle
settle h
ip -n "$h" link del ib0
# SIGTERM as soon as the deletions have begun
for ((i = 0; i < 600 * T_SCALE; i++)); do
	[ "$(copies)" -lt "$N" ] && break
	sleep 0.05
done
left_at_term=$(copies)
kill -TERM "$W_PID"
wait "$W_PID"
rc=$?
W_PID=
left=$(copies)
echo "# copies left: $left_at_term when SIGTERM was sent, $left when the watcher exited"
check "the watcher began deleting the copies (ib0 gone)" test "$left_at_term" -lt "$N"
expect_eq "the watcher exits 0 on SIGTERM" 0 "$rc"
check "  before its pass ended: copies are left in T(ib1)" test "$left" -gt 0
check "  and says it stopped" grep -q "stopping, as asked, before [0-9]* deletions" "$T_DIR/h.log"
expect_rc "the next run makes the rest" 0 ibh h --config "$T_DIR/h.conf" --all
expect_eq "  no copy is left in T(ib1)" 0 "$(copies)"
expect_rc "  and --status says all is as applied" 0 ibh h --config "$T_DIR/h.conf" --status
done_testing
