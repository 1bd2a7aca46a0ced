#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CI: build a release binary and run the short benchmark (bench/run.sh
# --short, about a minute) so that it cannot rot. The figures are printed for
# the log; missed targets do not fail the step, only a benchmark that does not
# run to the end does. Needs root (network namespaces); installs what it lacks
# with apt-get. Prints "PASS: bench-runs" or "FAIL: bench-runs".
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

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
