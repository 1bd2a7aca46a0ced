#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 44, item 2: a copy in T(X) whose original left main goes, also when
# the route of main that replaced it no longer leaves through X. A replace
# notification names the new route's devices only (an IPv6 blackhole, `dev
# lo`): the links the old route left must get their pass all the same. In a
# settled namespace (so that no earlier event's pass repairs it), each change
# below must be followed within the watcher's latency (a bounded poll): T(X)
# loses the copy, the lookup from X's address takes main's new route, and
# `--status` exits 0 again. Main is never changed.
. "$(dirname "$0")/common.sh"
t_require

port_host h ib0 10.200.0.1/31 ib1 10.200.0.3/31 ib2 10.200.0.5/31
h=$(ns h)
ip -n "$h" -6 addr add fd00:200::1/64 dev ib0 nodad
ip -n "$h" -6 addr add fd00:201::1/64 dev ib1 nodad
ip -n "$h" -6 addr add fd00:202::1/64 dev ib2 nodad
t0=$(table_of h ib0) t1=$(table_of h ib1) t2=$(table_of h ib2)

ip -n "$h" route add 10.90.0.0/16 proto static \
	nexthop via 10.200.0.0 dev ib0 nexthop via 10.200.0.2 dev ib1
ip -n "$h" -6 route add 2001:db8:51::/48 via fe80::1 dev ib0 proto static metric 100
ip -n "$h" -6 route add 2001:db8:51::/48 via fe80::1 dev ib0 proto static metric 200
ip -n "$h" route add 10.91.0.0/16 via 10.200.0.0 dev ib0 proto static
ip -n "$h" -6 route add 2001:db8:53::/48 via fe80::1 dev ib0 proto static
ip -n "$h" route add 10.92.0.0/16 via 10.200.0.0 dev ib0 proto static
ip -n "$h" route add 10.93.0.0/16 via 10.200.0.0 dev ib0 proto static
ip -n "$h" -6 route add 2001:db8:54::/48 via fe80::1 dev ib0 proto static
ip -n "$h" -6 route add 2001:db8:55::/48 via fe80::1 dev ib0 proto static

# routes T: table T's routes, IPv4 and IPv6; "FAILED" when ip fails
routes() {
	{ ip -n "$h" route show table "$1" && ip -n "$h" -6 route show table "$1"; } || echo FAILED
}
# has T DST [METRIC]: T holds a route to DST (with that metric)
has() { routes "$1" | grep -qE "^$2 .*${3:+metric $3( |\$)}"; }
# gone T DST [METRIC]: T holds no such route (a failed query is no absence)
gone() {
	local out
	out=$(routes "$1")
	! grep -qE -e "^$2 .*${3:+metric $3( |\$)}" -e FAILED <<<"$out"
}
# leaves DST FROM DEV: the kernel's lookup of DST from FROM leaves through DEV
leaves() { ip -n "$h" route get "$1" from "$2" 2>&1 | grep -q " dev $3 "; }
# refused DST FROM: the kernel's lookup of DST from FROM ends in a reject
# route (unreachable, prohibit, blackhole), not in a way out of a port
refused() {
	local out
	out=$(ip -n "$h" route get "$1" from "$2" 2>&1)
	grep -qiE 'unreachable|prohibit|blackhole|no route to host|permission denied|invalid argument' <<<"$out" &&
		! grep -q ' dev ib' <<<"$out"
}
status_ok() { ibh h --config "$T_DIR/h.conf" --status >/dev/null 2>&1; }

start_watcher h "$T_DIR/h.conf"
eventually "the watcher copies main's routes through ib0 into T(ib0)" 30 \
	sh -c "$(declare -f routes has); h=$h; has $t0 10.90.0.0/16 && has $t0 2001:db8:51::/48 200 &&
		has $t0 2001:db8:51::/48 100 && has $t0 10.91.0.0/16 && has $t0 2001:db8:53::/48 &&
		has $t0 10.92.0.0/16 && has $t0 10.93.0.0/16 && has $t0 2001:db8:54::/48 &&
		has $t0 2001:db8:55::/48 && has $t1 10.90.0.0/16"
eventually "  --status exits 0" 10 status_ok
main_routes() { ip -n "$h" route show table main && ip -n "$h" -6 route show table main; }

# 1. multipath through ib0 and ib1 to one hop through ib2
settle h
ip -n "$h" route replace 10.90.0.0/16 via 10.200.0.4 dev ib2
eventually "multipath (ib0, ib1) replaced by a hop through ib2: T(ib0) loses its copy" gone "$t0" 10.90.0.0/16
eventually "  T(ib1) loses its copy" gone "$t1" 10.90.0.0/16
eventually "  T(ib2) gets one" has "$t2" 10.90.0.0/16
check "  traffic from ib0's address to 10.90/16 takes main's route, out of ib2" \
	leaves 10.90.1.1 10.200.0.1 ib2
eventually "  --status exits 0" status_ok

# 2. IPv6 metric twins: the metric-100 one deleted, then the metric-200 one
# replaced by a blackhole (`dev lo` in its notification)
settle h
ip -n "$h" -6 route del 2001:db8:51::/48 via fe80::1 dev ib0 metric 100
eventually "IPv6 metric-100 twin deleted: its copy goes" gone "$t0" 2001:db8:51::/48 100
check "  the metric-200 copy stays" has "$t0" 2001:db8:51::/48 200
settle h
ip -n "$h" -6 route replace blackhole 2001:db8:51::/48 metric 200
eventually "IPv6 metric-200 twin replaced by a blackhole: T(ib0) loses its copy" \
	gone "$t0" 2001:db8:51::/48
check "  traffic from ib0's address to 2001:db8:51::/48 meets main's blackhole" \
	refused 2001:db8:51::1 fd00:200::1
eventually "  --status exits 0" status_ok

# 3. device to device, IPv4 and IPv6
settle h
ip -n "$h" route replace 10.91.0.0/16 via 10.200.0.4 dev ib2 proto static
eventually "IPv4 ib0 to ib2: T(ib0) loses its copy" gone "$t0" 10.91.0.0/16
eventually "  T(ib2) gets one" has "$t2" 10.91.0.0/16
check "  traffic from ib0's address leaves ib2" leaves 10.91.1.1 10.200.0.1 ib2
eventually "  --status exits 0" status_ok
settle h
ip -n "$h" -6 route replace 2001:db8:53::/48 via fe80::1 dev ib1 proto static
eventually "IPv6 ib0 to ib1: T(ib0) loses its copy" gone "$t0" 2001:db8:53::/48
eventually "  T(ib1) gets one" has "$t1" 2001:db8:53::/48
check "  traffic from ib0's address leaves ib1" leaves 2001:db8:53::1 fd00:200::1 ib1
eventually "  --status exits 0" status_ok

# 4. unicast to unreachable and prohibit, IPv4 and IPv6
tried=0
for change in "4 unreachable 10.92.0.0/16 10.92.1.1" "4 prohibit 10.93.0.0/16 10.93.1.1" \
	"6 unreachable 2001:db8:54::/48 2001:db8:54::1" "6 prohibit 2001:db8:55::/48 2001:db8:55::1"; do
	read -r fam type dst probe <<<"$change"
	src=10.200.0.1
	[ "$fam" = 6 ] && src=fd00:200::1
	settle h
	ip -n "$h" -"$fam" route replace "$type" "$dst"
	eventually "IPv$fam $dst through ib0 replaced by $type: T(ib0) loses its copy" gone "$t0" "$dst"
	check "  traffic from ib0's address meets main's $type" refused "$probe" "$src"
	eventually "  --status exits 0" status_ok
	tried=$((tried + 1))
done
expect_eq "every reject kind was tried" 4 "$tried"

expect_eq "main holds what the test made of it" "$(sort <<EOF
unreachable 10.92.0.0/16
prohibit 10.93.0.0/16
blackhole 2001:db8:51::/48 dev lo metric 200 pref medium
2001:db8:53::/48 via fe80::1 dev ib1 proto static metric 1024 pref medium
unreachable 2001:db8:54::/48 dev lo metric 1024 pref medium
prohibit 2001:db8:55::/48 dev lo metric 1024 pref medium
10.90.0.0/16 via 10.200.0.4 dev ib2
10.91.0.0/16 via 10.200.0.4 dev ib2 proto static
EOF
)" "$(main_routes | grep -e '^10\.9' -e '2001:db8' -e '^unreachable' -e '^prohibit' \
	-e '^blackhole' | sed 's/ *$//' | sort)"
kill -TERM "$W_PID"
wait "$W_PID"
expect_eq "the watcher exits 0 on SIGTERM" 0 "$?"
W_PID=
check "the watcher logged no error" lacks 'error|fail' cat "$T_DIR/h.log"
done_testing
