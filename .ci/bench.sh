#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CI: build a release binary and run the short benchmark (bench/run.sh
# --short: its rows of 200 000 copies, one run each, take most of it) so that
# it cannot rot. The figures are printed for the log; missed targets do not
# fail the step, only a benchmark that does not
# run to the end does. Then the watcher's benchmark, briefly (bench/watch.py
# 10 5, about 20 s). Needs root (network namespaces); installs what it lacks
# with apt-get. Prints "PASS: bench-runs" / "FAIL: bench-runs" and
# "PASS: bench-watch" / "FAIL: bench-watch".
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
. "$(dirname "$0")/own-run.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
build=

fail() {
	echo "$*" >&2
	echo "FAIL: bench-runs"
	exit 1
}
cleanup() { [ -n "$build" ] && rm -rf "$build"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || fail "bench needs root (network namespaces)"

need=
for pair in meson:meson ninja:ninja-build pkg-config:pkg-config cc:gcc ip:iproute2 awk:mawk; do
	command -v "${pair%%:*}" >/dev/null 2>&1 || need="$need ${pair#*:}"
done
for pc in libnl-3.0:libnl-3-dev libsystemd:libsystemd-dev; do
	pkg-config --exists "${pc%%:*}" 2>/dev/null || need="$need ${pc#*:}"
done
# the launcher is linked statically when libc.a is there (libc6-dev)
[ -e /usr/lib/x86_64-linux-gnu/libc.a ] || [ -e /usr/lib/libc.a ] || need="$need libc6-dev"
if [ -n "$need" ]; then
	apt-get install -y --no-install-recommends $need >/dev/null 2>&1 ||
		{ apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends $need >/dev/null; } ||
		fail "cannot install:$need"
fi

build=$(mktemp -d /tmp/ib-hook-bench-build.XXXXXX)
meson setup "$build" "$top" --buildtype=release -Dtests=false >"$build.log" 2>&1 &&
	meson compile -C "$build" >>"$build.log" 2>&1 || {
	cat "$build.log" >&2
	rm -f "$build.log"
	fail "build failed"
}
rm -f "$build.log"

IB_HOOK="$build/src/ib-hook" "$top/bench/run.sh" --short || fail "bench/run.sh --short did not run to the end"
echo "PASS: bench-runs"

# the watcher, briefly: 10 rounds, a 5 s quiet period (bench/watch.py). Only
# "it ran and printed its figures" is checked, never a timing.
command -v python3 >/dev/null 2>&1 || apt-get install -y --no-install-recommends python3 >/dev/null 2>&1
out=$(IB_HOOK="$build/src/ib-hook" timeout -k 5 120 python3 "$top/bench/watch.py" 10 5 2>&1)
rc=$?
echo "$out"
if [ "$rc" = 0 ] && [ "$(echo "$out" | grep -Ec '^restore latency, .*: median [0-9.]+ ms, p99 [0-9.]+ ms')" = 2 ] &&
	echo "$out" | grep -Eq '^idle: [0-9]+ wakeups in [0-9]+ s; peak RSS [0-9]+ kB'; then
	echo "PASS: bench-watch"
else
	echo "FAIL: bench-watch (exit $rc, or figures missing)"
	exit 1
fi
