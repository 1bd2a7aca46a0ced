#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A failure that no notification follows (issue 29, item 2): the kernel
# answers ENOBUFS, or /run is full for a moment, while an address is added.
# The watcher tries the link again, later and later, until it succeeds,
# without any further event; it says so once, and the error once.
. "$(dirname "$0")/common.sh"
t_require unshare nsenter
IB_HOOK_TEST=${IB_HOOK_TEST:-$(dirname "$IB_HOOK")/../tests/ib-hook-test}
[ -x "$IB_HOOK_TEST" ] || skip "no ib-hook-test binary at $IB_HOOK_TEST"

# said_once DESCRIPTION PATTERN LOG [BEFORE]: one line after line BEFORE of LOG matches
# no_ipv6 NS: no IPv6 address whose DAD ends later, an event that would hide a missing retry
no_ipv6() {
	nsx "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	for l in ib0 pib0 ib1 pib1; do
		nsx "$1" sysctl -qw "net.ipv6.conf.$l.disable_ipv6=1"
	done
}
said_once() { expect_eq "$1" 1 "$(tail -n +"$((${4:-0} + 1))" "$3" | grep -c "$2")"; }

# -- the kernel refuses the first three rule requests with ENOBUFS ------------
port_host k ib0 172.16.34.1/16 ib1 -
no_ipv6 k
t1=$(table_of k ib1)
# the seam's "seam N KIND TABLE": fail (errno 105) the first 3 rule-adds, counted in a file
seam="[ \"\$2\" != rule-add ] || { echo >>'$T_DIR/adds'; [ \$(wc -l <'$T_DIR/adds') -gt 3 ] || exit 105; }"
W_BIN=$IB_HOOK_TEST start_watcher k "$T_DIR/k.conf" IB_HOOK_TEST_SEAM="$seam"
eventually "ENOBUFS: the watcher applied ib0 (its 4th rule request)" 3 has_rule k 172.16.34.1 \
	"$(table_of k ib0)"
# settled: no link event of the ports' creation still to come, that would
# make the pass the retry is for
settle k
: >"$T_DIR/adds"
before=$(wc -l <"$T_DIR/k.log")
ip -n "$(ns k)" addr add 172.16.34.2/16 dev ib1
eventually "  an address added while the kernel refuses gets its rule without another event" 10 \
	has_rule k 172.16.34.2 "$t1"
said_once "  the failure is said once" "No buffer space available" "$T_DIR/k.log" "$before"
said_once "  and that it is tried again, once" "interface [0-9]*: the run failed; trying again" \
	"$T_DIR/k.log" "$before"
said_once "  and that it worked" "interface [0-9]*: applied after 3 failed run" "$T_DIR/k.log" \
	"$before"
stop_watcher

# -- /run/ib-hook full for a moment -------------------------------------------
port_host f ib0 172.16.34.1/16 ib1 -
no_ipv6 f
t1=$(table_of f ib1)
# the watcher's own mount namespace, with a tmpfs of eight pages on the record's
# directory (the record, ib0's routes beside it and the .watch file take three;
# a write needs a page for the new file before rename(2) frees the old one)
ip netns exec "$(ns f)" unshare -m sh -c '
	mount --make-rprivate / && mkdir -p /run/ib-hook &&
	mount -t tmpfs -o size=32k,mode=0755 tmpfs /run/ib-hook || exit 90
	exec "$@"' sh "$IB_HOOK" --config "$T_DIR/f.conf" --watch >"$T_DIR/f.log" 2>&1 &
W_PID=$!
eventually "ENOSPC: the watcher applied ib0" 3 has_rule f 172.16.34.1 "$(table_of f ib0)"
# -r: the watcher's root too (setns to a mount namespace moves to its root, which
# in a chroot, as the quick start's test runs, is not the chroot's)
inw() { nsenter -t "$W_PID" -m -r "$@"; }
rec=$(inw sh -c 'ls /run/ib-hook/netns-*')
check "  its record is in the tmpfs" test -n "$rec"
# fill the pages that the record does not use: the next write finds no space
inw sh -c 'cat /dev/zero >/run/ib-hook/filler' 2>/dev/null
settle f
ip -n "$(ns f)" addr add 172.16.34.2/16 dev ib1
check "  the record cannot be written" \
	within 3 grep -q "cannot write .*: No space left on device" "$T_DIR/f.log"
check "  and no rule for the address yet" lacks 'from 172.16.34.2 ' ip -n "$(ns f)" rule
settle f
inw rm /run/ib-hook/filler
eventually "  once space returns, the rule comes without another event" 10 \
	has_rule f 172.16.34.2 "$t1"
said_once "  the failure is said once" "No space left on device" "$T_DIR/f.log"
said_once "  and that it is tried again, once" "interface [0-9]*: the run failed; trying again" \
	"$T_DIR/f.log"
done_testing
