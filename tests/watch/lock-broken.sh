#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The lock file is not one (issue 29, item 6): a symlink or a directory where
# the lock should be. A lock that another run holds is waited for; a broken
# one will not heal. The watcher says what is wrong once, tells systemd
# (STATUS= and ERRNO=, never READY=1), changes nothing and exits 1, so that
# the unit fails with the reason, as `--all` does. Its /run is a tmpfs private
# to one `ip netns exec` (its own mount namespace): the host's is untouched.
. "$(dirname "$0")/common.sh"
t_require python3 timeout

port_host h ib0 172.16.34.1/16
hn=$(ns h)
# RUNSTATEDIR of this build (meson option runstatedir, /run by default)
lock=$(grep -ao '/[[:alnum:]/._-]*/ib-hook\.lock' "$IB_HOOK" | head -n 1)
lock=${lock:-/run/ib-hook.lock}
before=$(state h)
echo "not a lock" >"$T_DIR/target"

# broken KIND: the watcher with $lock made KIND (symlink, directory), under
# systemd's NOTIFY_SOCKET; its exit status in $T_DIR/KIND.rc, what it told
# systemd in $T_DIR/KIND.notify
broken() {
	local kind=$1 sock=$T_DIR/$1.sock
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(15)
with open(sys.argv[2], "w") as out:
    try:
        while True:
            out.write(s.recv(4096).decode() + "\n")
            out.flush()
    except socket.timeout:
        pass
' "$sock" "$T_DIR/$kind.notify" &
	py=$!
	within 5 test -S "$sock" || exit 1
	ip netns exec "$hn" sh -c '
		lock=$1 kind=$2 target=$3
		shift 3
		mount -t tmpfs -o mode=0755 tmpfs "${lock%/*}" || exit 90
		case $kind in
		symlink) ln -s "$target" "$lock" ;;
		directory) mkdir "$lock" ;;
		esac
		exec "$@"' sh "$lock" "$kind" "$T_DIR/target" \
		env NOTIFY_SOCKET="$sock" timeout -k 1 10 "$IB_HOOK" --config "$T_DIR/h.conf" --watch \
		>"$T_DIR/$kind.log" 2>&1
	echo $? >"$T_DIR/$kind.rc.new"
	# what was sent is in the socket's queue: the listener has read it before it ends
	within 3 test -s "$T_DIR/$kind.notify"
	kill "$py"
	mv "$T_DIR/$kind.rc.new" "$T_DIR/$kind.rc"
}

for kind in symlink directory; do
	W_PID=
	broken "$kind" &
	W_PID=$!
	within 12 test -s "$T_DIR/$kind.rc"
	expect_eq "$kind: the watcher exits 1" 1 "$(cat "$T_DIR/$kind.rc" 2>/dev/null)"
	expect_eq "  saying once what is wrong" 1 "$(grep -c "cannot lock '$lock': " "$T_DIR/$kind.log")"
	check "  it tells systemd why" grep -q "^STATUS=cannot lock '$lock': " "$T_DIR/$kind.notify"
	check "  and never that it is ready" sh -c "! grep -q READY=1 '$T_DIR/$kind.notify'"
	expect_eq "  nothing changed" "$before" "$(state h)"
	wait "$W_PID" 2>/dev/null
done
expect_eq "the symlink's target is untouched" "not a lock" "$(cat "$T_DIR/target")"
done_testing
