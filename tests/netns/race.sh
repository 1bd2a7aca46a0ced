#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The world moves between observe and apply (issue 25), deterministically:
# ib-hook-test (tests/seam.c) runs a command before each rule or route
# request, which removes the address the plan has just seen, replaces it,
# takes the link down or deletes the rule first. A pass that meets such a
# refusal observes again: it ends in the state of the world as it now is,
# exits 0, says nothing about the race (only -v does), and its record names
# nothing the kernel lacks, and the kernel has nothing of ib-hook's that the
# record does not name. A refusal that persists against fresh
# observations is a failure, said once, after a bounded number of tries.
. "$(dirname "$0")/../lib.sh"
IB_HOOK_TEST=${IB_HOOK_TEST:-$(dirname "$IB_HOOK")/../tests/ib-hook-test}
t_require
[ -x "$IB_HOOK_TEST" ] || skip "no ib-hook-test binary at $IB_HOOK_TEST"

W_PID=
trap '[ -n "$W_PID" ] && kill -KILL "$W_PID" 2>/dev/null; t_cleanup' EXIT

port_host h ib0 172.16.34.1/16 ib1 172.16.34.2/16
hn=$(ns h)
t0=$(table_of h ib0)
t1=$(table_of h ib1)
cfg=$T_DIR/h.conf

# seamed CMD ARGS...: ib-hook-test by hand in h, CMD run before each request
seamed() {
	local cmd=$1
	shift
	ip netns exec "$hn" env IB_HOOK_TEST_SEAM="$cmd" "$IB_HOOK_TEST" --config "$cfg" "$@"
}

# seamed_hook CMD VAR=VALUE...: ib-hook-test as networkd-dispatcher runs it
seamed_hook() {
	local cmd=$1
	shift
	IB_HOOK=$IB_HOOK_TEST hook h "$cfg" "IB_HOOK_TEST_SEAM=$cmd" "$@"
}

# ib-hook's rules and the routes of T(ib0) and T(ib1)
ours() {
	{
		ip -n "$hn" rule show | grep -v -e 'lookup local' -e 'lookup main' -e 'lookup default'
		ip -n "$hn" route show table "$t0"
		ip -n "$hn" route show table "$t1"
	} | sed 's/ *$//'
}

record_path() {
	ibh h --config "$cfg" --status | sed -n 's/.*; record: \([^ ]*\) .*/\1/p'
}

# ib-hook's rules (to T(ib0) or T(ib1)) and the routes of those tables that
# the record does not name, one per line
record_misses() {
	local rec src t dst dev psrc
	rec=$(record_path)
	[ -n "$rec" ] || { echo "--status names no record"; return; }
	if [ ! -f "$rec" ]; then
		[ -z "$(ours)" ] || echo "no record at '$rec'"
		return
	fi
	# rule IF INDEX SRC/32 TABLE PRIORITY
	ip -n "$hn" rule show | sed -n "s/^[0-9]*:[[:space:]]*from \([0-9.]*\) lookup \($t0\|$t1\) *\$/\1 \2/p" |
		while read -r src t; do
			grep -q "^rule [^ ]* [0-9]* $src/32 $t " "$rec" || echo "rule from $src lookup $t"
		done
	# route IF INDEX DST OIF TABLE SRC ...
	for t in "$t0" "$t1"; do
		ip -n "$hn" route show table "$t" | sed -n 's/^\([^ ]*\) dev \([^ ]*\) .* src \([^ ]*\).*/\1 \2 \3/p' |
			while read -r dst dev psrc; do
				cat "$rec".routes-* 2>/dev/null | grep -q "^route $dev [0-9]* $dst [0-9]* $t $psrc " ||
					echo "route $dst dev $dev table $t src $psrc"
			done
	done
}

# the record's rules and routes that the kernel does not have, one per line
record_lies() {
	local rec
	rec=$(record_path)
	[ -f "$rec" ] || {
		echo "no record at '$rec'"
		return
	}
	# rule IF INDEX SRC TABLE PRIORITY; route IF INDEX DST OIF TABLE SRC ...
	while read -r kind ifname _ what f5 f6 f7 _; do
		case $kind in
		rule)
			ip -n "$hn" rule show | grep -q "from ${what%/32} lookup $f5" ||
				echo "rule $ifname $what $f5"
			;;
		route)
			ip -n "$hn" route show table "$f6" | grep -q "^$what dev $ifname .*src $f7" ||
				echo "route $ifname $what table $f6 src $f7"
			;;
		esac
	done < <(cat "$rec" "$rec".routes-* 2>/dev/null)
}

# ib0 applied, ib1 up with its address and nothing installed for it
reset() {
	ibh h --config "$cfg" --all --remove >/dev/null 2>&1
	ip -n "$hn" link set ib1 up
	ip -n "$hn" addr flush dev ib1
	ip -n "$hn" addr add 172.16.34.2/16 dev ib1
	hook h "$cfg" IFACE=ib0 STATE=routable 2>/dev/null
	rm -rf "$T_DIR/once"
}

ib0_only="1000:	from 172.16.34.1 lookup $t0
172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1"
reference="1000:	from 172.16.34.1 lookup $t0
1000:	from 172.16.34.2 lookup $t1
172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1
172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2"

reset

# 1. NetworkManager takes the address away after ib-hook read it
gone="ip addr del 172.16.34.2/16 dev ib1"
expect_rc "the address goes before the first request: dispatcher exits 0" 0 \
	seamed_hook "[ \$1 = 1 ] && $gone; exit 0" IFACE=ib1 STATE=routable
expect_eq "  and says nothing" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
expect_eq "  nothing installed for the address that went" "$ib0_only" "$(ours)"
expect_eq "  the record names nothing the kernel lacks" "" "$(record_lies)"
expect_eq "  the kernel has nothing of ib-hook's the record lacks" "" "$(record_misses)"
ip -n "$hn" addr add 172.16.34.2/16 dev ib1
expect_rc "  the address is back: the next run applies" 0 hook h "$cfg" IFACE=ib1 STATE=routable
expect_eq "  the reference state" "$reference" "$(ours)"
reset

# 2. ... and -v says what happened
expect_rc "the same with -v: exits 0" 0 seamed "[ \$1 = 1 ] && $gone; exit 0" -v --iface ib1
check "  -v says it observed again" grep -q "ib1: .*observing it again" "$T_DIR/err"
check "  and no 'failed'" sh -c "! grep -q failed '$T_DIR/err'"
reset

# 2b. a SIGTERM that arrives while the address goes: the run ends before its
# second look, its record already true
expect_rc "SIGTERM during the race ends the run" 143 \
	seamed_hook "[ \$1 = 1 ] && $gone && kill -TERM \$PPID; exit 0" IFACE=ib1 STATE=routable
expect_eq "  the record names nothing the kernel lacks" "" "$(record_lies)"
expect_eq "  the kernel has nothing of ib-hook's the record lacks" "" "$(record_misses)"
reset

# 3. a reconnect gives the link another address: the second look installs that one
expect_rc "the address is replaced before the first request: exit 0" 0 \
	seamed_hook "[ \$1 = 1 ] && $gone && ip addr add 172.16.34.22/16 dev ib1; exit 0" \
	IFACE=ib1 STATE=routable
check "  no 'failed'" sh -c "! grep -q failed '$T_DIR/err'"
expect_eq "  the new address is installed" "1000:	from 172.16.34.1 lookup $t0
1000:	from 172.16.34.22 lookup $t1
172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1
172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.22" "$(ours)"
check "  and reported, once" test "$(grep -c "added rule from 172.16.34.22 lookup $t1" "$T_DIR/err")" = 1
expect_eq "  the record names nothing the kernel lacks" "" "$(record_lies)"
expect_eq "  the kernel has nothing of ib-hook's the record lacks" "" "$(record_misses)"
reset

# 4. the link goes down after ib-hook read it
expect_rc "the link goes down before the first request: exit 0" 0 \
	seamed_hook "[ \$1 = 1 ] && ip link set ib1 down; exit 0" IFACE=ib1 STATE=routable
expect_eq "  and says nothing" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
expect_eq "  nothing installed for ib1" "$ib0_only" "$(ours)"
expect_eq "  the record names nothing the kernel lacks" "" "$(record_lies)"
expect_eq "  the kernel has nothing of ib-hook's the record lacks" "" "$(record_misses)"
reset

# the first request for T(ib1) only
first1="[ \$3 = $t1 ] && mkdir '$T_DIR/once' 2>/dev/null"

# 5. --all (the watcher's start and --all by hand plan every link first)
expect_rc "--all, the address goes before ib1's first request: exit 0" 0 \
	seamed "$first1 && $gone; exit 0" --all
check "  no 'failed'" sh -c "! grep -q failed '$T_DIR/err'"
expect_eq "  ib0 applied, nothing for the address that went" "$ib0_only" "$(ours)"
expect_eq "  the record names nothing the kernel lacks" "" "$(record_lies)"
expect_eq "  the kernel has nothing of ib-hook's the record lacks" "" "$(record_misses)"
reset

# 6. somebody deletes ib-hook's rule before ib-hook does
hook h "$cfg" IFACE=ib1 STATE=routable 2>/dev/null
expect_rc "remove, the rule is deleted first by somebody else: exit 0" 0 \
	seamed "[ \$2 = rule-del ] && ip rule del from 172.16.34.2 lookup $t1 priority 1000; exit 0" \
	--remove --iface ib1
check "  no 'failed'" sh -c "! grep -q failed '$T_DIR/err'"
check "  no claim to have deleted it" sh -c "! grep 'deleted rule from 172.16.34.2' '$T_DIR/err'"
expect_eq "  ib1's routing is gone" "$ib0_only" "$(ours)"
expect_eq "  the record names nothing the kernel lacks" "" "$(record_lies)"
expect_eq "  the kernel has nothing of ib-hook's the record lacks" "" "$(record_misses)"
reset

# 7. the watcher's start pass races the address away; the address comes back
ip netns exec "$hn" env IB_HOOK_TEST_SEAM="$first1 && $gone; exit 0" \
	"$IB_HOOK_TEST" --config "$cfg" --watch >"$T_DIR/watch.log" 2>&1 &
W_PID=$!
for _ in $(seq 60); do
	[ "$(ours)" = "$ib0_only" ] && ! ip -n "$hn" addr show dev ib1 | grep -q 172.16.34.2 && break
	sleep 0.05
done
expect_eq "watcher: the address went during its first pass, ib0 applied" "$ib0_only" "$(ours)"
expect_eq "  the record names nothing the kernel lacks" "" "$(record_lies)"
expect_eq "  the kernel has nothing of ib-hook's the record lacks" "" "$(record_misses)"
ip -n "$hn" addr add 172.16.34.2/16 dev ib1
for _ in $(seq 60); do
	[ "$(ours)" = "$reference" ] && break
	sleep 0.05
done
expect_eq "  the address is back: the reference state" "$reference" "$(ours)"
kill -TERM "$W_PID"
wait "$W_PID"
W_PID=
expect_eq "  the watcher said no 'failed'" "" "$(grep failed "$T_DIR/watch.log")"
reset

# 8. a refusal that persists against fresh observations is a failure
: >"$T_DIR/tries"
expect_rc "the kernel refuses ib1's route every time: exit 1" 1 \
	seamed_hook "[ \$2 = route-add ] && echo \$1 >>'$T_DIR/tries' && exit 22; exit 0" \
	IFACE=ib1 STATE=routable
expect_eq "  one 'failed' line, naming the route and why" \
	"ib-hook: ib1: failed: added route 172.16.0.0/16 src 172.16.34.2 in table $t1: Invalid argument" \
	"$(grep failed "$T_DIR/err")"
expect_eq "  after 3 tries" 3 "$(wc -l <"$T_DIR/tries")"
expect_eq "  the record names nothing the kernel lacks" "" "$(record_lies)"
expect_eq "  the kernel has nothing of ib-hook's the record lacks" "" "$(record_misses)"
expect_eq "  nothing installed for ib1" "$ib0_only" "$(ours)"
done_testing
