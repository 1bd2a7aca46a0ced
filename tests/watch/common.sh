# SPDX-License-Identifier: GPL-2.0-or-later
# The watcher tests' helpers: one watcher in the background (killed on every
# exit path), its output in $T_DIR/watch.log, and a bounded poll.
. "$(dirname "$0")/../lib.sh"

W_PID=
stop_watcher() {
	[ -n "$W_PID" ] && kill -KILL "$W_PID" 2>/dev/null
	W_PID=
}
trap 'stop_watcher; t_cleanup' EXIT

# start_watcher NS CONF [ENV...]: ib-hook --watch in the background
start_watcher() {
	local n=$1 cfg=$2
	shift 2
	ip netns exec "$(ns "$n")" env "$@" "$IB_HOOK" --config "$cfg" --watch >"$T_DIR/watch.log" 2>&1 &
	W_PID=$!
}

# eventually DESCRIPTION CMD...: CMD succeeds within 3 s
eventually() {
	local d=$1 i
	shift
	for i in $(seq 60); do
		if "$@" >/dev/null 2>&1; then
			ok "$d (${i}x50 ms)"
			return
		fi
		sleep 0.05
	done
	not_ok "$d"
	sed 's/^/#  watcher: /' "$T_DIR/watch.log" | tail -n 20
}
