# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the watcher's tests, on top of tests/lib.sh: one watcher at a
# time, run in the background and killed on every exit path.
. "$(dirname "$0")/../lib.sh"

W_PID=
stop_watcher() {
	[ -n "$W_PID" ] && kill -KILL "$W_PID" 2>/dev/null && wait "$W_PID" 2>/dev/null
	W_PID=
}
trap 'stop_watcher; t_cleanup' EXIT

# start_watcher NS CONF [VAR=VALUE...]: ib-hook --watch (or $W_BIN) in the
# background with those variables, its output in $T_DIR/NS.log
start_watcher() {
	local n=$1 c=$2
	shift 2
	ip netns exec "$(ns "$n")" env "$@" "${W_BIN:-$IB_HOOK}" --config "$c" --watch \
		>"$T_DIR/$n.log" 2>&1 &
	W_PID=$!
}

# eventually DESCRIPTION [SECONDS] CMD...: CMD succeeds within SECONDS (3 if
# not given; times $T_SCALE); the watcher's last lines when it does not
eventually() {
	local d=$1 s=3 i
	shift
	case $1 in '' | *[!0-9]*) ;; *) s=$1 && shift ;; esac
	for ((i = 0; i < s * T_SCALE * 20; i++)); do
		if "$@" >/dev/null 2>&1; then
			ok "$d ($((i * 50)) ms)"
			return
		fi
		sleep 0.05
	done
	not_ok "$d"
	cat "$T_DIR"/*.log 2>/dev/null | sed 's/^/#  watcher: /' | tail -n 20
}

# within SECONDS CMD...: quietly, CMD succeeds within SECONDS (times
# $T_SCALE; status 1 if not)
within() {
	local s=$1 i
	shift
	for ((i = 0; i < s * T_SCALE * 20; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	return 1
}

# watcher_idle: the watcher (W_PID) has read every notification and has
# no pass ahead of it: it sleeps in poll() without a timeout (a pass owed
# to a burst, a hold or a retry sleeps with one), none of its netlink
# sockets holds an unread message, and it did not wake up while this was
# read (its context switches unchanged). Only then does a --dry-run show
# what the watcher left undone, rather than what it has not done yet.
watcher_idle() {
	local p=$W_PID before nr timeout want inodes
	before=$(grep ctxt_switches "/proc/$p/status") || return 1
	read -r nr _ _ timeout _ <"/proc/$p/syscall" || return 1
	case $(uname -m) in
	x86_64) want="7 0xffffffff" ;;                   # poll(fds, n, -1)
	aarch64 | riscv64 | loongarch64) want="73 0x0" ;; # ppoll(fds, n, NULL, ...)
	*) want=$(grep -q poll "/proc/$p/wchan" && echo "$nr $timeout") ;; # in poll, timeout not read
	esac
	# poll's int timeout of -1 as the kernel shows the register: glibc 2.36
	# (Debian 12) passes it zero-extended, 2.41 (Debian 13) sign-extended
	[ "$timeout" = 0xffffffffffffffff ] && timeout=0xffffffff
	[ "$nr $timeout" = "$want" ] || return 1
	inodes=$(find "/proc/$p/fd" -lname 'socket:*' -printf '%l ' | tr -dc '0-9 ')
	# /proc/PID/net/netlink: sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
	awk -v inodes="$inodes" 'BEGIN { n = split(inodes, a, " "); for (i = 1; i <= n; i++) ours[a[i]] = 1 }
		NR > 1 && ($10 in ours) && $5 != 0 { busy = 1 } END { exit busy }' "/proc/$p/net/netlink" ||
		return 1
	[ "$(grep ctxt_switches "/proc/$p/status")" = "$before" ]
}

has_rule() { ip -n "$(ns "$1")" rule | grep -q "from $2 lookup $3"; }

# settled NS: nothing the watcher would act on is still to come in NS: no
# IPv6 address in DAD (its end is an address event, a second or two after
# the link came up), no link whose carrier came and whose operational state
# has yet to follow (a link event, up to a second later), and the watcher
# ($W_PID) asleep with no notification waiting on its sockets
settled() {
	local n state
	n=$(ns "$1")
	[ -z "$(ip -n "$n" -6 addr show tentative)" ] || return 1
	ip -n "$n" -o link show | awk '{
		flags = $0; sub(/^[^<]*</, "", flags); sub(/>.*/, "", flags)
		state = $0; sub(/.* state /, "", state); sub(/ .*/, "", state)
		if (("," flags ",") ~ /,UP,/ && ("," flags ",") ~ /,LOWER_UP,/ &&
		    state != "UP" && state != "UNKNOWN")
			bad = 1
	} END { exit bad }' || return 1
	[ -n "$W_PID" ] || return 0
	read -r state <"/proc/$W_PID/stat" || return 1
	state=${state##*) }
	[ "${state%% *}" = S ] || return 1
	find "/proc/$W_PID/fd" -lname 'socket:*' -printf '%l\n' |
		awk 'FILENAME == "-" { gsub(/[^0-9]/, ""); mine[$0] = 1; next }
		     FNR > 1 && ($10 in mine) && $5 != 0 { busy = 1 } END { exit busy }' \
			- "/proc/$W_PID/net/netlink"
}

# settle NS: wait (10 s at most) until NS is settled, two looks in a row,
# before a change whose own notifications a check says the watcher follows:
# otherwise an earlier event's late pass (the end of a port's DAD, a link
# that came up) repairs what the change broke, and the check passes with
# the watcher deaf to the change
settle() {
	local i good=0
	for ((i = 0; i < 200 * T_SCALE; i++)); do
		if settled "$1"; then
			good=$((good + 1))
			[ "$good" -lt 2 ] || return 0
		else
			good=0
		fi
		sleep 0.05
	done
	not_ok "$1 did not settle within 10 s (an IPv6 address in DAD, a link's state, the watcher busy)"
}

# fight SECONDS CMD...: run CMD again and again for SECONDS
fight() {
	local end=$((SECONDS + $1))
	shift
	while [ "$SECONDS" -lt "$end" ]; do
		"$@" 2>/dev/null
	done
}

# repaired NS BEFORE PATTERN: the watcher's lines matching PATTERN after line BEFORE
repaired() {
	tail -n +"$(($2 + 1))" "$T_DIR/$1.log" | grep -c "$3"
}

# the documented back-off against a fight of FIGHT_S seconds: FIGHT_RUNS
# repairs at once, one more that starts the first hold, one after each hold
# that ends within the fight (1 s, 2 s, 4 s...), and the one after the fight
# that converges
FIGHT_S=4
FIGHT_RUNS=8
fight_bound=$((FIGHT_RUNS + 1 + 1))
for ((hold = 1, held = 1; held <= FIGHT_S; hold *= 2, held += hold)); do
	fight_bound=$((fight_bound + 1))
done
