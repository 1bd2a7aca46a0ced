#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --remove while the watcher runs (issue 29, item 10): the watcher keeps every
# managed port as apply leaves it, so it puts back what --remove deleted.
# --remove says so, with the watcher's pid and the command that stops it; a
# watcher of another namespace, or one that has ended, is not named.
. "$(dirname "$0")/common.sh"
t_require

port_host w ib0 172.16.34.1/16 ib1 172.16.34.2/16
port_host other ib0 172.16.35.1/16
printf '[Match]\nName=ib*\n' | conf w
m=$(ns w)
t1=$(table_of w ib1)
rule_from() { ip -n "$1" rule | grep -q "from $2 lookup"; }

start_watcher w "$T_DIR/w.conf"
eventually "the watcher applies at start" rule_from "$m" 172.16.34.2

# settled (no DAD still to end, whose event would repair ib1 too): what puts
# the rule back below is the watcher following --remove's own deletes
settle w
expect_rc "--remove --iface ib1 with the watcher running" 0 \
	ibh w --config "$T_DIR/w.conf" --remove --iface ib1
check "  reports what it deleted" grep -q "^ib1: deleted " "$T_DIR/err"
check "  says the watcher puts it back, with its pid and how to stop it" \
	grep -q "warning: the watcher (ib-hook --watch, pid $W_PID) puts it back at its next pass; to keep it removed, stop the watcher first: kill $W_PID\$" "$T_DIR/err"
eventually "  which is what happens" rule_from "$m" 172.16.34.2

expect_rc "--remove in another namespace" 0 ibh other --config "$T_DIR/w.conf" --remove --iface ib0
check "  names no watcher" sh -c "! grep -q watcher '$T_DIR/err'"
expect_rc "--status with the watcher running" 0 ibh w --config "$T_DIR/w.conf" --status
expect_rc "--remove --dry-run" 0 ibh w --config "$T_DIR/w.conf" --remove --dry-run --iface ib1
check "  warns of nothing (it changes nothing)" sh -c "! grep -q watcher '$T_DIR/err'"

kill -TERM "$W_PID"
wait "$W_PID"
W_PID=
expect_rc "--remove after the watcher ended" 0 ibh w --config "$T_DIR/w.conf" --remove --iface ib1
check "  deletes" grep -q "^ib1: deleted " "$T_DIR/err"
check "  and names no watcher" sh -c "! grep -q watcher '$T_DIR/err'"
check "  the removal holds" lacks "from 172.16.34.2 lookup $t1" ip -n "$m" rule

# a watcher killed (SIGKILL) leaves its file: no lock, no watcher
start_watcher w "$T_DIR/w.conf"
eventually "a new watcher applies again" rule_from "$m" 172.16.34.2
kill -KILL "$W_PID"
wait "$W_PID" 2>/dev/null
W_PID=
expect_rc "--remove after the watcher was killed" 0 ibh w --config "$T_DIR/w.conf" --remove --iface ib1
check "  names no watcher" sh -c "! grep -q watcher '$T_DIR/err'"
done_testing
