#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A network manager reconnecting while ib-hook works (issue 25): one loop
# removes and re-adds ib1's address as fast as ip(8) goes while the watcher
# runs and dispatcher runs apply ib1, for FAULT_SECONDS (default 5). A pass
# that observed the address and then met the kernel's refusal of a route
# whose source is gone observes again: no "failed" line from the watcher or
# from a hook, every hook exits 0, and once the loop stops the namespace
# settles in the reference state with a record that names nothing the kernel
# lacks.
. "$(dirname "$0")/../lib.sh"
t_require

seconds=${FAULT_SECONDS:-5}
W_PID=
trap '[ -n "$W_PID" ] && kill -KILL "$W_PID" 2>/dev/null; t_cleanup' EXIT

port_host h ib0 172.16.34.1/16 ib1 172.16.34.2/16
hn=$(ns h)
t0=$(table_of h ib0)
t1=$(table_of h ib1)

# the reference state of ib-hook's rules and tables
reference() {
	{
		ip -n "$hn" rule show | grep -v -e 'lookup local' -e 'lookup main' -e 'lookup default'
		ip -n "$hn" route show table "$t0"
		ip -n "$hn" route show table "$t1"
	} 2>/dev/null | sed 's/ *$//'
}
want="1000:	from 172.16.34.1 lookup $t0
1000:	from 172.16.34.2 lookup $t1
172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1
172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2"

ip netns exec "$hn" "$IB_HOOK" --config "$T_DIR/h.conf" --watch >"$T_DIR/watch.log" 2>&1 &
W_PID=$!
for _ in $(seq 60); do
	[ "$(reference)" = "$want" ] && break
	sleep 0.05
done
expect_eq "the watcher applied at start" "$want" "$(reference)"

churn() {
	local end=$((SECONDS + seconds)) n=0
	while [ "$SECONDS" -lt "$end" ]; do
		ip -n "$hn" addr del 172.16.34.2/16 dev ib1
		ip -n "$hn" addr add 172.16.34.2/16 dev ib1
		n=$((n + 1))
	done
	echo "$n" >"$T_DIR/cycles"
}
churn &
churner=$!

: >"$T_DIR/rcs"
: >"$T_DIR/hooks.log"
runs=0
end=$((SECONDS + seconds))
while [ "$SECONDS" -lt "$end" ]; do
	hook h "$T_DIR/h.conf" IFACE=ib1 STATE=routable >/dev/null 2>>"$T_DIR/hooks.log"
	echo "$?" >>"$T_DIR/rcs"
	runs=$((runs + 1))
done
wait "$churner"
echo "# $(cat "$T_DIR/cycles") address cycles, $runs dispatcher runs, exits: $(sort "$T_DIR/rcs" | uniq -c | tr -s ' \n' ' ')"

# the watcher settles: the last notification was the address coming back;
# then it is stopped, so that no pass still under way can change what is
# checked below
for _ in $(seq 100); do
	[ "$(reference)" = "$want" ] && break
	sleep 0.05
done
check "the watcher still runs" kill -0 "$W_PID"
kill -TERM "$W_PID"
wait "$W_PID"
expect_eq "  and exits 0 on SIGTERM" 0 "$?"
W_PID=
expect_eq "after the race: the reference state" "$want" "$(reference)"
failed=$(grep -h failed "$T_DIR/watch.log" "$T_DIR/hooks.log")
echo "# $(printf '%s' "$failed" | grep -c .) 'failed' line(s); the watcher said:"
sed 's/[0-9]\{1,\}/N/g' "$T_DIR/watch.log" | sort | uniq -c | sort -rn | head -5 | sed 's/^/#  /'
expect_eq "no 'failed' line from the watcher or a hook" "" "$failed"
expect_eq "every dispatcher run exits 0" "" "$(grep -vx 0 "$T_DIR/rcs" | sort | uniq -c)"

expect_rc "--status: ok, nothing left over" 0 ibh h --config "$T_DIR/h.conf" --status
rec=$(sed -n 's/.*; record: \([^ ]*\) .*/\1/p' "$T_DIR/out")
expect_eq "the record names what the kernel has, no more" \
	"link ib0
link ib1
route ib0 172.16.0.0/16 $t0 172.16.34.1
route ib1 172.16.0.0/16 $t1 172.16.34.2
rule ib0 172.16.34.1/32 $t0
rule ib1 172.16.34.2/32 $t1" \
	"$(awk '$1 == "rule" { print $1, $2, $4, $5 } $1 == "route" { print $1, $2, $4, $6, $7 }
		$1 == "link" { print $1, $2 }' "$rec" "$rec".routes-* | sort)"
expect_rc "--dry-run: nothing to do" 0 ibh h --config "$T_DIR/h.conf" --dry-run --all
expect_eq "  prints nothing" "" "$(cat "$T_DIR/out")"
done_testing
