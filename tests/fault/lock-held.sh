#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The lock is held by a stuck process: a change waits --wait seconds, then
# exits 1 with a message naming the lock, and changes nothing. --status and
# --dry-run change nothing and do not wait. Once the holder is gone, the next
# run applies. The lock's directory is a tmpfs private to one `ip netns exec`
# (its own mount namespace), so other tests and the host's real lock are never
# blocked.
. "$(dirname "$0")/../lib.sh"
t_require flock mount

port_host h ib0 172.16.34.1/16
hn=$(ns h)
t0=$(table_of h ib0)
# RUNSTATEDIR of this build (meson option runstatedir, /run by default)
lock=$(grep -ao '/[[:alnum:]/._-]*/ib-hook\.lock' "$IB_HOOK" | head -n 1)
lock=${lock:-/run/ib-hook.lock}
before=$(state h)

# locked NS CMD...: CMD in NS while a stuck process holds the lock. Prints
# "elapsed MS" on fd 3; CMD's stdout and stderr are left as they are.
locked() {
	ip netns exec "$(ns "$1")" bash -c '
		lock=$1
		shift
		mount -t tmpfs -o mode=0755 tmpfs "${lock%/*}" || exit 90
		# the stuck holder: it takes the lock on fd 4, says so on a FIFO,
		# and stays (the same process: killing it frees the lock)
		mkfifo "${lock%/*}/held" || exit 90
		(
			exec 4>>"$lock"
			flock 4 || exit 1
			echo >"${lock%/*}/held"
			exec sleep 3600
		) &
		holder=$!
		timeout 10 cat "${lock%/*}/held" >/dev/null || exit 91
		flock -n "$lock" true && exit 92
		start=$(date +%s%N)
		"$@"
		rc=$?
		echo "elapsed $((($(date +%s%N) - start) / 1000000))" >&3
		kill "$holder"
		wait "$holder" 2>/dev/null
		exit "$rc"
	' locked "$lock" "${@:2}"
}

expect_rc "apply while a stuck process holds $lock (--wait 2)" 1 \
	locked h "$IB_HOOK" --config "$T_DIR/h.conf" --wait 2 --iface ib0 3>"$T_DIR/elapsed"
ms=$(sed -n 's/^elapsed //p' "$T_DIR/elapsed")
echo "# gave up after ${ms:-?} ms"
check "  gives up after about 2 s (2000-3500 ms, was ${ms:-?})" \
	test "${ms:-0}" -ge 1900 -a "${ms:-0}" -le 3500
check "  names the lock and the wait" \
	grep -q "another ib-hook run held '$lock' for 2 s; giving up" "$T_DIR/err"
expect_eq "  one line on stderr, nothing on stdout" "1 0" \
	"$(wc -l <"$T_DIR/err") $(wc -c <"$T_DIR/out")"
expect_eq "  changed nothing" "$before" "$(state h)"

expect_rc "remove while the lock is held (--wait 1)" 1 \
	locked h "$IB_HOOK" --config "$T_DIR/h.conf" --wait 1 --remove --iface ib0 3>/dev/null
check "  names the lock" grep -q "'$lock'" "$T_DIR/err"

expect_rc "--status while the lock is held: no wait, drift" 1 \
	locked h "$IB_HOOK" --config "$T_DIR/h.conf" --wait 2 --status --iface ib0 3>"$T_DIR/elapsed"
ms=$(sed -n 's/^elapsed //p' "$T_DIR/elapsed")
check "  does not wait for the lock (${ms:-?} ms)" test "${ms:-9999}" -lt 1500
expect_rc "--dry-run while the lock is held: no wait" 0 \
	locked h "$IB_HOOK" --config "$T_DIR/h.conf" --wait 2 --dry-run --iface ib0 3>"$T_DIR/elapsed"
ms=$(sed -n 's/^elapsed //p' "$T_DIR/elapsed")
check "  does not wait for the lock (${ms:-?} ms)" test "${ms:-9999}" -lt 1500
check "  prints the plan" grep -q "ip rule add from 172.16.34.1 lookup $t0" "$T_DIR/out"
expect_eq "  changed nothing" "$before" "$(state h)"

# the holder gone, the lock file left behind: the next run takes it
expect_rc "apply once the holder is gone" 0 ip netns exec "$hn" bash -c '
	mount -t tmpfs -o mode=0755 tmpfs "${1%/*}" || exit 90
	flock "$1" true && exec "${@:2}"' ok "$lock" \
	"$IB_HOOK" --config "$T_DIR/h.conf" --wait 2 --iface ib0
expect_eq "  rule installed once" 1 "$(rules_from h 172.16.34.1)"
expect_rc "remove" 0 ibh h --config "$T_DIR/h.conf" --remove --iface ib0
expect_eq "  nothing of ib-hook left" "$before" "$(state h)"
done_testing
