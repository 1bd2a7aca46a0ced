#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Dispatchers run hooks in parallel (parallel ifup, NetworkManager and
# networkd-dispatcher at once): 50 overlapping runs over two interfaces must
# all succeed, serialised by the lock, and leave exactly one rule per address;
# the runs that send requests send them one run after the other. The lock is
# the real one under /run, shared with whatever else runs now. Then, against a
# private /run, without sleeps: a run paused inside its first request holds
# the lock and a run for the other port waits for it (/proc/locks lists it as
# a waiter) and sends nothing until the first is done; a run that cannot get
# the lock gives up after --wait seconds, no sooner; a run that waits does
# its work when the lock comes free. Each of these fails with the lock
# disabled. The runs are ib-hook-test (tests/seam.c), which logs every rule
# and route request.
. "$(dirname "$0")/../lib.sh"
t_require flock
LOCK=${IB_HOOK_LOCK:-/run/ib-hook.lock}
RUNS=50
IB_HOOK_TEST=${IB_HOOK_TEST:-$(dirname "$IB_HOOK")/../tests/ib-hook-test}
[ -x "$IB_HOOK_TEST" ] || skip "no ib-hook-test binary at $IB_HOOK_TEST"

port_host h ib0 172.16.34.1/16 ib1 172.16.34.2/16
ip -n "$(ns h)" addr add fd00:34::1/64 dev ib0 nodad
ip -n "$(ns h)" addr add fd00:34::2/64 dev ib1 nodad
printf '[Tables]\nib0=941\nib1=942\n' >>"$T_DIR/h.conf"

rules() {
	ip -n "$(ns h)" rule show
	ip -n "$(ns h)" -6 rule show
}

# requests NAME: the requests the runs of burst NAME sent, "PID KIND" a line
requests() { cat "$T_DIR/$1.seam" 2>/dev/null; }
# interleaved NAME: how many times a run's requests follow another's that
# follow its own (0 when every run's requests are one block)
interleaved() {
	requests "$1" | awk '$1 != last { if (seen[$1]++) n++; last = $1 } END { print n + 0 }'
}

# burst NAME ENV-OF-RUN-I: $RUNS hooks at once, each one's exit code in a file
burst() {
	local i
	mkdir "$T_DIR/$1"
	for i in $(seq 1 $RUNS); do
		(
			"$2" "$i"
			IB_HOOK=$IB_HOOK_TEST hook h "$T_DIR/h.conf" "${ENV[@]}" \
				"IB_HOOK_TEST_SEAM=echo \$PPID \$2 >>$T_DIR/$1.seam" >"$T_DIR/$1/$i.out" 2>&1
			echo $? >"$T_DIR/$1/$i.rc"
		) &
	done
	wait
	expect_eq "$1: all $RUNS runs exit 0" "$RUNS" "$(cat "$T_DIR/$1"/*.rc | grep -cx 0)"
	grep -h . "$T_DIR/$1"/*.out | grep -v '^ib[01]: ' | sed 's/^/# unexpected: /' | head -5
	check "$1: some run sent requests" test -n "$(requests "$1")"
	expect_eq "$1: the requests of each run are not interleaved with another's" 0 "$(interleaved "$1")"
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
expect_eq "  and sent by one run per port" 2 "$(requests apply | cut -d' ' -f1 | sort -u | wc -l)"

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
check "no run is left over" lacks . ip netns pids "$(ns h)"
check "the lock is free ($LOCK)" flock -w 10 "$LOCK" true

# --- against a private /run: the shared lock is not held, nothing else waits
# on this one. private SCRIPT: SCRIPT in the namespace with a tmpfs on the
# lock's directory; $lock, $bin (ib-hook-test), $cfg, $d ($T_DIR) are set,
# and held_by_waiter PID / waiting PID / hold / release are defined.
private() {
	ip netns exec "$(ns h)" bash -c '
		lock=$1 bin=$2 cfg=$3 d=$4
		mount -t tmpfs -o mode=0755 tmpfs "${lock%/*}" || exit 90
		mkfifo "$d/locked" "$d/release" "$d/inside" || exit 90
		# waiting PID: PID is in /proc/locks, blocked on a lock (its line has
		# "->"); 1 when PID ended first or after 10 s (a bounded poll)
		waiting() {
			local i
			for i in $(seq 200); do
				grep -q -- "-> FLOCK *ADVISORY *WRITE *$1 " /proc/locks && return 0
				kill -0 "$1" 2>/dev/null || return 1
				sleep 0.05
			done
			return 1
		}
		# hold: flock(1) holds the lock until release; returns once it has it
		hold() {
			flock "$lock" sh -c "echo >$d/locked; read x <$d/release" &
			timeout 10 sh -c "read x <$d/locked"
		}
		release() { timeout 10 sh -c "echo >$d/release"; }
		eval "$5"
	' private "$LOCK" "$IB_HOOK_TEST" "$T_DIR/h.conf" "$T_DIR" "$1"
	local rc=$?
	rm -f "$T_DIR/locked" "$T_DIR/release" "$T_DIR/inside"
	return $rc
}

# run A (applies ib1) paused inside its first request, holding the lock; run
# B (takes ib0 back) must wait
private '
	IB_HOOK_TEST_SEAM="echo \$PPID \$2 >>$d/pair.seam; [ \$1 != 1 ] || { echo >$d/inside; read x <$d/release; }" \
		"$bin" --config "$cfg" --iface ib1 >"$d/a.out" 2>&1 &
	a=$!
	timeout 10 sh -c "read x <$d/inside" || { echo "A never sent a request"; exit 1; }
	IB_HOOK_TEST_SEAM="echo \$PPID \$2 >>$d/pair.seam" \
		"$bin" --config "$cfg" --remove --iface ib0 >"$d/b.out" 2>&1 &
	b=$!
	if waiting "$b"; then w=waited; else w=ran; fi
	release
	wait "$a"
	ra=$?
	wait "$b"
	echo "$a $b $w $ra $?"
' >"$T_DIR/pair"
read -r a b how ra rb < <(tail -n 1 "$T_DIR/pair")
expect_eq "a run for ib0 waits for the lock while a run for ib1 is inside a request" waited "$how"
expect_eq "  both exit 0" "0 0" "$ra $rb"
# ib0's requests, then ib1's: B sent nothing before A was done
expect_eq "  ib0's requests come after all of ib1's" \
	"$(grep -c "^$a " "$T_DIR/pair.seam") $(grep -c "^$b " "$T_DIR/pair.seam")" \
	"$(awk -v a="$a" -v b="$b" '$1 == a && !nb { na++ } $1 == b { nb++ } END { print na + 0, nb + 0 }' "$T_DIR/pair.seam")"
check "  each sent some" sh -c '[ "$(cut -d" " -f1 "$1" | sort -u | wc -l)" = 2 ]' - "$T_DIR/pair.seam"
expect_eq "  ib1 applied" 2 "$(rules | grep -c 'lookup 942$')"
expect_eq "  ib0 taken back" 0 "$(rules | grep -c 'lookup 941$')"

# the bounded wait: given up after --wait 1, not before
private '
	hold || exit 1
	t=$(date +%s%N)
	"$bin" --config "$cfg" --wait 1 --iface ib0 >"$d/wait.out" 2>"$d/wait.err"
	rc=$?
	t=$(( ($(date +%s%N) - t) / 1000000 ))
	release
	wait
	echo "$rc $t"
' >"$T_DIR/gaveup"
read -r rc ms < <(tail -n 1 "$T_DIR/gaveup")
expect_eq "a run that cannot get the lock gives up with exit 1" 1 "$rc"
check "it says why" grep -q 'ib-hook\.lock' "$T_DIR/wait.err"
check "it waited --wait seconds: 1000 ms <= ${ms} ms < 4000 ms" test "${ms:-0}" -ge 1000 -a "${ms:-0}" -lt 4000
expect_eq "  and changed nothing" 0 "$(rules | grep -c 'lookup 941$')"

# a waiting run: still waiting, and ib0 without rules, until the lock is free
private '
	hold || exit 1
	"$bin" --config "$cfg" --wait 10 --iface ib0 >"$d/wait.out" 2>"$d/wait.err" &
	p=$!
	if waiting "$p"; then w=waited; else w=ran; fi
	n=$(ip rule show; ip -6 rule show)
	n=$(printf "%s\n" "$n" | grep -c "lookup 941$")
	release
	wait "$p"
	echo "$w $n $?"
' >"$T_DIR/waiter"
read -r how n rc < <(tail -n 1 "$T_DIR/waiter")
expect_eq "a run waits for the lock instead of dropping the event" waited "$how"
expect_eq "  with nothing done while it waits" 0 "$n"
expect_eq "  then exits 0" 0 "$rc"
expect_eq "  and does its work" 2 "$(rules | grep -c 'lookup 941$')"

done_testing
