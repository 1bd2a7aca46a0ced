#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 33, item 5: the cost of following main does not grow with main. A
# host whose main holds 200 000 routes through an unmanaged uplink (a BGP
# host) and a default through each of two rails. Counted, not timed: every
# dump of main that ib-hook asks the kernel for (strace decodes its netlink
# requests) and every managed link the watcher looks at (-v). A one-shot run
# dumps main at most once per port; with the watcher running, routes of main
# through the uplink make it look at nothing, and a route through a port, a
# default replaced, a port's bounce, are followed without a dump of main.
. "$(dirname "$0")/common.sh"
t_require strace unshare
# every run here is traced, and LeakSanitizer cannot run under ptrace (it
# stops with a fatal error): under CI's sanitize step, leaks are left to the
# other tests' runs, which are not traced
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

N=${FLAT_ROUTES:-200000}
port_host h ib0 10.200.0.1/31 ib1 10.200.0.3/31
h=$(ns h)
veth h eth0 peth0
addr h eth0 192.0.2.1/24
ip -n "$h" route add default via 10.200.0.0 dev ib0 proto static metric 100
ip -n "$h" route add default via 10.200.0.2 dev ib1 proto static metric 101
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
	printf "route add %d.%d.%d.0/24 via 192.0.2.2 dev eth0 proto bgp\n", 32 + int(i / 65536), int(i / 256) % 256, i % 256 }' |
	ip -n "$h" -batch - || exit 1
t0=$(table_of h ib0) t1=$(table_of h ib1)

# dumps FILE: the dumps of main in an strace log of netlink requests
dumps() {
	grep -c 'RTM_GETROUTE, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP.*rtm_table=RT_TABLE_MAIN' "$1"
}
traced() {
	local out=$1
	shift
	ip netns exec "$h" strace -f -qq -o "$out" -e trace=sendmsg,sendto "$@"
}

traced "$T_DIR/all.trace" "$IB_HOOK" -c "$T_DIR/h.conf" --all
expect_eq "--all over 2 ports: one dump of main per port" 2 "$(dumps "$T_DIR/all.trace")"
traced "$T_DIR/status.trace" "$IB_HOOK" -c "$T_DIR/h.conf" --status >/dev/null
expect_eq "--status over 2 ports: one dump of main per port" 2 "$(dumps "$T_DIR/status.trace")"
traced "$T_DIR/one.trace" "$IB_HOOK" -c "$T_DIR/h.conf" -i ib1
# ib1's own, and ib0's: a gateway of ib0's routes may lie in ib1's prefixes (issue 44)
expect_eq "-i ib1: one dump of main per port" 2 "$(dumps "$T_DIR/one.trace")"

# its -v lines on stderr, not in the host's journal (a mount namespace of its own)
ip netns exec "$h" unshare -m sh -c '
	if [ -d /run/systemd/journal ]; then mount -t tmpfs tmpfs /run/systemd/journal || exit 90; fi
	exec "$@"' sh strace -f -qq -o "$T_DIR/watch.trace" -e trace=sendmsg,sendto \
	"$IB_HOOK" -c "$T_DIR/h.conf" --watch -v >"$T_DIR/h.log" 2>&1 &
W_PID=$!
# its first pass reads main through each port once: ready when the watcher says so
within 30 grep -q 'ib1: ifindex' "$T_DIR/h.log" || not_ok "the watcher did not start"
within 10 grep -q 'ib0: ifindex' "$T_DIR/h.log" || not_ok "the watcher did not look at ib0"
start=$(dumps "$T_DIR/watch.trace")
expect_eq "the watcher's first pass: one dump of main per port" 2 "$start"
# a hook or --iface run leaves T(X)'s copies to the watcher that follows main (issue 38, item 11)
traced "$T_DIR/one-watched.trace" "$IB_HOOK" -c "$T_DIR/h.conf" -i ib1
expect_eq "-i ib1 while the watcher runs: main not dumped" 0 "$(dumps "$T_DIR/one-watched.trace")"
runs0() { grep -c 'ib0: ifindex' "$T_DIR/h.log"; }
runs1() { grep -c 'ib1: ifindex' "$T_DIR/h.log"; }
# the passes below are counted from a settled namespace: no IPv6 address of
# the ports still in DAD, no link event to come, the watcher asleep with
# nothing to read (the end of ib1's DAD during the churn is a pass over ib1
# of its own: issue 41's CI run counted 3 for 2 in a run of 2 s). W_PID is
# strace here; settled looks at the watcher, its child.
strace_pid=$W_PID
W_PID=$(pgrep -P "$strace_pid" -x ib-hook | head -n 1)
[ -n "$W_PID" ] || W_PID=$strace_pid
settle h
W_PID=$strace_pid
before0=$(runs0) before1=$(runs1) lines=$(wc -l <"$T_DIR/h.log")

# the uplink's churn: added, replaced, deleted; then a route through ib1 as
# the barrier (the watcher reads notifications in order)
for i in 1 2 3; do
	ip -n "$h" route add 198.51.$i.0/24 via 192.0.2.2 dev eth0 proto bgp
	ip -n "$h" route replace 32.0.$i.0/24 via 192.0.2.3 dev eth0 proto bgp
	ip -n "$h" route del 32.1.$i.0/24
done
ip -n "$h" route add 10.9.0.0/16 via 10.200.0.2 dev ib1 proto static
eventually "a route through ib1 added to main: copied into T(ib1)" 10 \
	sh -c "ip -n $h route show table $t1 | grep -q '^10.9.0.0/16 via 10.200.0.2 dev ib1'"
expect_eq "9 routes of main through the uplink: ib0 not looked at" "$before0" "$(runs0)"
after1=$(runs1)
expect_eq "... and ib1 once, for its own route" $((before1 + 1)) "$after1"
[ "$after1" = $((before1 + 1)) ] ||
	tail -n "+$((lines + 1))" "$T_DIR/h.log" | head -n 30 | sed 's/^/#   watcher: /'
expect_eq "... and main not dumped" "$start" "$(dumps "$T_DIR/watch.trace")"

ip -n "$h" route replace default via 10.200.0.0 dev ib0 proto static metric 100 mtu 1400
eventually "ib0's default replaced in main: T(ib0) follows" 10 \
	sh -c "ip -n $h route show table $t0 | grep -q '^default via 10.200.0.0 dev ib0 .*mtu 1400'"
ip -n "$h" route del 10.9.0.0/16
eventually "a route through ib1 deleted from main: its copy goes" 10 \
	lacks '^10.9.0.0/16' ip -n "$h" route show table "$t1"
# a bounce: the kernel takes ib1's default out of main without a word (IPv4);
# the network manager puts it back when the link is up again
ip -n "$h" link set ib1 down
eventually "ib1 down: its copies go with the link" 10 \
	lacks default ip -n "$h" route show table "$t1"
ip -n "$h" link set ib1 up
ip -n "$h" route add default via 10.200.0.2 dev ib1 proto static metric 101
eventually "ib1 up, its default back in main: copied again" 10 \
	sh -c "ip -n $h route show table $t1 | grep -q '^default via 10.200.0.2 dev ib1'"
expect_eq "a default replaced, a route deleted, a bounce: main not dumped" "$start" \
	"$(dumps "$T_DIR/watch.trace")"
stop_watcher
done_testing
