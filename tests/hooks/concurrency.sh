#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Dispatchers run hooks in parallel (parallel ifup, NetworkManager and
# networkd-dispatcher at once): 50 overlapping runs over two interfaces must
# all succeed, serialised by the lock, and leave exactly one rule per address.
# The lock is the real one under /run, shared with whatever else runs now.
. "$(dirname "$0")/../lib.sh"
t_require flock
LOCK=${IB_HOOK_LOCK:-/run/ib-hook.lock}
RUNS=50

port_host h ib0 172.16.34.1/16 ib1 172.16.34.2/16
ip -n "$(ns h)" addr add fd00:34::1/64 dev ib0 nodad
ip -n "$(ns h)" addr add fd00:34::2/64 dev ib1 nodad
printf '[Tables]\nib0=941\nib1=942\n' >>"$T_DIR/h.conf"

rules() {
	ip -n "$(ns h)" rule show
	ip -n "$(ns h)" -6 rule show
}

# burst NAME ENV-OF-RUN-I: $RUNS hooks at once, each one's exit code in a file
burst() {
	local i
	mkdir "$T_DIR/$1"
	for i in $(seq 1 $RUNS); do
		(
			"$2" "$i"
			hook h "$T_DIR/h.conf" "${ENV[@]}" >"$T_DIR/$1/$i.out" 2>&1
			echo $? >"$T_DIR/$1/$i.rc"
		) &
	done
	wait
	expect_eq "$1: all $RUNS runs exit 0" "$RUNS" "$(cat "$T_DIR/$1"/*.rc | grep -cx 0)"
	grep -h . "$T_DIR/$1"/*.out | grep -v '^ib[01]: ' | sed 's/^/# unexpected: /' | head -5
}

# networkd-dispatcher and ifupdown events for ib0 and ib1, interleaved
apply_events() {
	local ifc=ib$(($1 % 2))
	if [ $(($1 % 4)) -lt 2 ]; then
		ENV=(IFACE="$ifc" STATE=routable OperationalState=routable AdministrativeState=configured)
	else
		ENV=(IFACE="$ifc" LOGICAL="$ifc" ADDRFAM=inet METHOD=static MODE=start PHASE=post-up
			VERBOSITY=0)
	fi
}

burst apply apply_events
for a in 172.16.34.1 172.16.34.2 fd00:34::1 fd00:34::2; do
	expect_eq "one rule from $a" 1 "$(rules | grep -c "from $a ")"
done
expect_eq "table 941" "172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1" \
	"$(ip -n "$(ns h)" route show table 941 | sed 's/ *$//')"
expect_eq "table 942" "172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2" \
	"$(ip -n "$(ns h)" route show table 942 | sed 's/ *$//')"
expect_eq "every change reported once" 4 \
	"$(cat "$T_DIR/apply"/*.out | grep -c '^ib[01]: added rule')"

# ib0 applied while ib1 goes away, again all at once
mixed_events() {
	if [ $(($1 % 2)) = 0 ]; then
		ENV=(IFACE=ib0 STATE=configured OperationalState=routable AdministrativeState=configured)
	else
		ENV=(IFACE=ib1 STATE=no-carrier OperationalState=no-carrier
			AdministrativeState=configured)
	fi
}

burst mixed mixed_events
expect_eq "ib0 keeps its two rules" 2 "$(rules | grep -c 'lookup 941$')"
expect_eq "ib1's rules are gone" 0 "$(rules | grep -c 'lookup 942$')"
expect_eq "table 942 is empty" "" "$(ip -n "$(ns h)" route show table 942)"

# every run has ended and released the lock: a waiter needs no more than the
# length of another test's run
check "no run is left over" sh -c "! ip netns pids $(ns h) | grep -q ."
check "the lock is free ($LOCK)" flock -w 10 "$LOCK" true

# the bounded wait, against a private /run so the shared lock is not held
hold() {
	ip netns exec "$(ns h)" sh -c '
		mount -t tmpfs -o mode=0755 tmpfs "${0%/*}" || exit 90
		flock "$0" sleep "$1" &
		sleep 0.3
		shift
		"$@"
	' "$LOCK" "$@"
}
start=$(date +%s)
expect_rc "a run that cannot get the lock gives up" 1 \
	hold 5 "$IB_HOOK" --config "$T_DIR/h.conf" --wait 1 --iface ib1
check "it says why" grep -q 'ib-hook\.lock' "$T_DIR/err"
check "it waited about --wait seconds" test $(($(date +%s) - start)) -le 4
expect_rc "a run waits for the lock instead of dropping the event" 0 \
	hold 1 "$IB_HOOK" --config "$T_DIR/h.conf" --wait 10 --iface ib1
expect_eq "the waiting run did its work" 2 "$(rules | grep -c 'lookup 942$')"

done_testing
