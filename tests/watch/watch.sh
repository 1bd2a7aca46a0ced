#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ib-hook --watch (issue 13) in a namespace of its own: it applies at start,
# follows addresses, link bounces, a deleted rule, a flushed table and a new
# port, repairs at start what changed while it was not running, leaves
# foreign rules alone, converges after a burst and after lost notifications,
# keeps its configuration on a bad SIGHUP and leaves the kernel state as it is
# on SIGTERM.
. "$(dirname "$0")/common.sh"
t_require

rule_is() { # rule_is NS ADDR TABLE: exactly one plain rule from ADDR, and it is to TABLE
	[ "$(ip -n "$(ns "$1")" rule | grep -cE "from $2 lookup [0-9]+ ?\$")" = 1 ] &&
		ip -n "$(ns "$1")" rule | grep -qE "from $2 lookup $3 ?\$"
}
no_rule() { lacks "from $2 " ip -n "$(ns "$1")" rule; }
table_has() { ip -n "$(ns "$1")" route show table "$2" | grep -q "$3"; }

port_host w ib0 172.16.34.1/16 ib1 172.16.34.2/16
printf '[Match]\nName=ib*\n' | conf w
m=$(ns w)
t0=$(table_of w ib0)
t1=$(table_of w ib1)
ip -n "$m" rule add from 172.16.34.2 iif ib0 lookup "$t1" priority 1000
ip -n "$m" rule add from 172.16.34.9 lookup 7777 priority 1000 proto kernel
foreign=$(ip -n "$m" -d rule | grep -e 'iif ib0' -e 'lookup 7777')

start_watcher w "$T_DIR/w.conf"
eventually "start: both ports applied" sh -c "$(declare -f rule_is ns); T_PFX=$T_PFX; rule_is w 172.16.34.1 $t0 && rule_is w 172.16.34.2 $t1"

# each change below is made in a settled namespace (settle): its own
# notifications are what the watcher acts on, not the end of an earlier DAD
settle w
ip -n "$m" addr add 172.16.34.20/16 dev ib1
eventually "a new address gets its rule" sh -c "$(declare -f rule_is ns); T_PFX=$T_PFX; rule_is w 172.16.34.20 $t1"
settle w
ip -n "$m" addr del 172.16.34.20/16 dev ib1
eventually "a removed address takes its rule with it" no_rule w 172.16.34.20

settle w
ip -n "$m" link set ib1 down
ip -n "$m" link set ib1 up
eventually "link down/up: T(ib1) restored" sh -c "$(declare -f table_has ns); T_PFX=$T_PFX; table_has w $t1 'src 172.16.34.2'"
# (the watcher takes a down port's rule back, so the bounce removes it too)
eventually "  and its rule" sh -c "$(declare -f rule_is ns); T_PFX=$T_PFX; rule_is w 172.16.34.2 $t1"

# a rule deleted by hand: the watcher puts it back on the rule's own
# notification. ib0's (a delete of ib1's would match the foreign iif rule
# first), once the bounce above has settled: the end of ib1's DAD, its
# link's state, would make a pass that repairs it too
settle w
check "ib0's rule deleted by hand" ip -n "$m" rule del from 172.16.34.1 lookup "$t0"
eventually "ib0's rule deleted by hand: restored" sh -c "$(declare -f rule_is ns); T_PFX=$T_PFX; rule_is w 172.16.34.1 $t0"

settle w
ip -n "$m" route flush table "$t1"
eventually "T(ib1) flushed by hand: restored" sh -c "$(declare -f table_has ns); T_PFX=$T_PFX; table_has w $t1 'src 172.16.34.2'"

settle w
veth w ib2 pib2
addr w ib2 172.16.34.3/16
t2=$(table_of w ib2)
eventually "a port that appears later is applied" sh -c "$(declare -f rule_is ns); T_PFX=$T_PFX; rule_is w 172.16.34.3 $t2"

expect_eq "foreign rules untouched throughout" "$foreign" "$(ip -n "$m" -d rule | grep -e 'iif ib0' -e 'lookup 7777')"

# a burst: 1000 address events, gathered into few passes. The addresses go
# in the reverse order: 10.9.0.1/16, the first, is the primary address of
# its subnet, and deleting it deletes every secondary one with it (ip
# -batch then stopped at the next delete: a burst of 502 events that left
# 249 IPv6 addresses behind)
cpu_before=$(awk '{print $14 + $15}' "/proc/$W_PID/stat")
for i in $(seq 0 249); do
	echo "addr add 10.9.$((i / 250)).$((i % 250 + 1))/16 dev ib0"
	echo "addr add 2001:db8:9::$(printf %x $((i + 1)))/64 dev ib0 nodad"
done >"$T_DIR/add.batch"
tac "$T_DIR/add.batch" | sed 's/^addr add/addr del/' | cat "$T_DIR/add.batch" - >"$T_DIR/burst.batch"
burst_clean() { # no burst address left, nor a rule of one (IPv4 and IPv6); a failed ip fails it
	lacks ' (10\.9\.0\.|2001:db8:9::)' ip -n "$m" addr show dev ib0 &&
		lacks 'from (10\.9\.0\.|2001:db8:9::)' ip -n "$m" rule &&
		lacks 'from (10\.9\.0\.|2001:db8:9::)' ip -n "$m" -6 rule
}
check "a burst of 1000 address events (ip -batch: each one done)" ip -n "$m" -batch "$T_DIR/burst.batch"
ip -n "$m" addr add 10.9.100.1/16 dev ib0
eventually "after a burst of 1000 address events: converged" sh -c "$(declare -f rule_is ns); T_PFX=$T_PFX; rule_is w 10.9.100.1 $t0"
eventually "  no rule of a burst address is left" burst_clean
cpu_after=$(awk '{print $14 + $15}' "/proc/$W_PID/stat")
cpu_ms=$(( (cpu_after - cpu_before) * 1000 / $(getconf CLK_TCK) ))
echo "# watcher CPU time for the burst: ${cpu_ms} ms"
check "  CPU time bounded (${cpu_ms} ms < 3000 ms)" test "$cpu_ms" -lt 3000
# what the watcher left undone, once it has nothing more to read or do
eventually "  the watcher is idle" 10 watcher_idle
expect_rc "--dry-run after all this: nothing to do" 0 ibh w --config "$T_DIR/w.conf" --dry-run --all
expect_eq "  prints nothing" "" "$(cat "$T_DIR/out")"

# SIGHUP with a bad configuration keeps the one in use
cp "$T_DIR/w.conf" "$T_DIR/w.conf.good"
printf '[Routing]\nTableBase=banana\n' >>"$T_DIR/w.conf"
kill -HUP "$W_PID"
eventually "SIGHUP with a bad config: says why and keeps the old one" grep -q "keeping the configuration in use" "$T_DIR/w.log"
check "  still running" kill -0 "$W_PID"
settle w
ip -n "$m" addr add 172.16.34.21/16 dev ib1
eventually "  and keeps working" sh -c "$(declare -f rule_is ns); T_PFX=$T_PFX; rule_is w 172.16.34.21 $t1"
cp "$T_DIR/w.conf.good" "$T_DIR/w.conf"
printf '[Routing]\nPriority=900\n' >>"$T_DIR/w.conf"
kill -HUP "$W_PID"
eventually "SIGHUP with a new priority: rules move" sh -c "ip -n $m rule | grep -q '^900:	from 172.16.34.2 lookup $t1'"
eventually "  and the old ones are taken back" lacks "^1000:	from 172.16.34.2 lookup $t1" ip -n "$m" rule

# SIGTERM: exit 0 within a second (times $T_SCALE), the rules stay
kill -TERM "$W_PID"
for i in $(seq $((20 * T_SCALE))); do kill -0 "$W_PID" 2>/dev/null || break; sleep 0.05; done
check "SIGTERM: exits within $T_SCALE s" sh -c "! kill -0 $W_PID 2>/dev/null"
wait "$W_PID"
expect_eq "  with status 0" 0 "$?"
W_PID=
check "  and leaves the rules" sh -c "ip -n $m rule | grep -q 'from 172.16.34.2 lookup $t1'"

# a rule deleted while no watcher runs is put back by its first pass, which
# comes after it subscribed: from then on no notification is missed
check "ib1's rule deleted by hand, the watcher stopped" ip -n "$m" rule del from 172.16.34.2 lookup "$t1" priority 900
# notifications lost (a tiny receive buffer and a storm): everything is read again
start_watcher w "$T_DIR/w.conf" IB_HOOK_WATCH_RCVBUF=1024
eventually "start: a rule deleted while it was stopped is restored" sh -c "ip -n $m rule | grep -q '^900:	from 172.16.34.2 lookup $t1'"
ip -n "$m" route flush table "$t0"
check "a storm of 1000 address events" ip -n "$m" -batch "$T_DIR/burst.batch"
# T(ib0) may be restored before the storm (its own notification, read
# before the buffer overflowed), and the resync says so before it reads: the
# watcher may still be reading when both are seen
eventually "lost notifications: resync, T(ib0) restored" sh -c "$(declare -f table_has ns); T_PFX=$T_PFX; table_has w $t0 'src 172.16.34.1'"
eventually "  it said so" grep -q "notifications were lost" "$T_DIR/w.log"
eventually "  no rule of a storm address is left" burst_clean
eventually "  the watcher is idle" 10 watcher_idle
expect_rc "  --dry-run: nothing to do" 0 ibh w --config "$T_DIR/w.conf" --dry-run --all
expect_eq "  prints nothing" "" "$(cat "$T_DIR/out")"
stop_watcher
done_testing
