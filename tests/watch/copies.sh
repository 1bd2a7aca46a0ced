#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 38, item 11: a hook run while the watcher of its namespace runs (with
# the same configuration) leaves T(X)'s copies of main's routes to the
# watcher, which follows main anyway: the run does not walk main. Where no
# watcher runs, or it died (SIGKILL leaves its .watch file, unlocked), the
# hook run copies itself. The watcher is frozen (SIGSTOP: alive, its lock
# held) while the hook runs, so that what the run itself did can be seen.
. "$(dirname "$0")/common.sh"
t_require

port_host h ib0 10.200.0.1/31 ib1 10.200.0.3/31
h=$(ns h)
ip -n "$h" route add default via 10.200.0.0 dev ib0 proto static metric 100
ip -n "$h" route add 10.9.0.0/16 via 10.200.0.0 dev ib0 proto static
t0=$(table_of h ib0) t1=$(table_of h ib1)
run_hook() {
	hook h "$T_DIR/h.conf" IFACE=ib1 STATE=routable ADDR=dummy \
		OperationalState=routable AdministrativeState=configured
}
# the table's routes; "FAILED" when ip fails, so that no check passes by it
routes_of() { ip -n "$h" route show table "$1" || echo FAILED; }
copy_in() { routes_of "$1" | grep -q "^$2 "; }
lacks() { ! grep -q -e "$1" -e FAILED <<<"$2"; }
# whether the watcher holds the run lock (a pass under way). Not "whether the
# lock is free": the other tests of a meson run share /run, and their runs
# take the same lock at any moment.
watcher_locked() {
	local ino
	ino=$(stat -c %i /run/ib-hook.lock 2>/dev/null) || return 1
	awk -v p="$W_PID" -v i="$ino" '$2 == "FLOCK" && $5 == p {
		n = split($6, a, ":"); if (a[n] == i) f = 1 } END { exit !f }' /proc/locks
}

start_watcher h "$T_DIR/h.conf"
eventually "the watcher copies main's routes through ib0 into T(ib0)" 30 copy_in "$t0" 10.9.0.0/16
# frozen between passes: alive, its .watch lock held, the run lock not its
frozen=
for ((i = 0; i < 200; i++)); do
	kill -STOP "$W_PID"
	watcher_locked || { frozen=1 && break; }
	kill -CONT "$W_PID"
	sleep 0.05
done
check "the watcher is frozen between passes (try $i)" [ -n "$frozen" ]

# main gets routes through ib1's gateway while the watcher sleeps
ip -n "$h" route add 10.10.0.0/16 via 10.200.0.2 dev ib1 proto static
out=$(ibh h -c "$T_DIR/h.conf" -i ib1 --dry-run 2>&1)
check "dry-run with the watcher: the copies are the watcher's" \
	grep -q "^# ib1: the copies of main's routes in table $t1 are the watcher's (pid $W_PID)" <<<"$out"
check "dry-run with the watcher: no copy planned" lacks "via 10.200.0.2" "$out"
printf '[Match]\nName=ib0 ib1\n[Routing]\nPriority=1001\n' | conf other
out=$(ibh h -c "$T_DIR/other.conf" -i ib1 --dry-run 2>&1)
check "dry-run with another configuration than the watcher's: copies planned" \
	grep -q "10.10.0.0/16 via 10.200.0.2 dev ib1 .*table $t1" <<<"$out"
expect_rc "the hook applies ib1 while the watcher runs" 0 run_hook
check "  its rule is there" has_rule h 10.200.0.3 "$t1"
check "  it left the copy to the watcher (frozen: T(ib1) has none yet)" \
	lacks via "$(routes_of "$t1")"
kill -CONT "$W_PID"
eventually "the watcher, thawed, copies main's route through ib1 into T(ib1)" 10 \
	copy_in "$t1" 10.10.0.0/16
eventually "  T(ib0) keeps its copy" 10 \
	copy_in "$t0" 10.9.0.0/16

# killed by SIGKILL: its .watch file stays, unlocked; the next hook run copies itself
kill -KILL "$W_PID"
wait "$W_PID" 2>/dev/null
W_PID=
ip -n "$h" route add 10.11.0.0/16 via 10.200.0.2 dev ib1 proto static
out=$(ibh h -c "$T_DIR/h.conf" -i ib1 --dry-run 2>&1)
check "dry-run after the watcher's SIGKILL: the copy planned" \
	grep -q "10.11.0.0/16 via 10.200.0.2 dev ib1 .*table $t1" <<<"$out"
expect_rc "the hook applies ib1 after the watcher's SIGKILL" 0 run_hook
check "  it copied main's new route through ib1 itself" copy_in "$t1" 10.11.0.0/16

# stopped as systemd stops it (SIGTERM): no watcher, the hook run copies
start_watcher h "$T_DIR/h.conf"
eventually "a new watcher is up (its .watch file locked)" 30 \
	sh -c "ip netns exec $h $IB_HOOK -c $T_DIR/h.conf -i ib1 --dry-run 2>&1 | grep -q \"watcher's (pid $W_PID)\""
kill -TERM "$W_PID"
wait "$W_PID" 2>/dev/null
W_PID=
ip -n "$h" route add 10.12.0.0/16 via 10.200.0.2 dev ib1 proto static
expect_rc "the hook applies ib1 with no watcher" 0 run_hook
check "  it copied main's new route through ib1 itself" copy_in "$t1" 10.12.0.0/16
check "  and the one before" copy_in "$t1" 10.11.0.0/16
done_testing
