#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: libFuzzer targets of the config parser, the hook-environment parser,
# the netlink parsers and the uevent parser (issues 7, 22). Builds each fuzzer
# with clang as fuzz/meson.build says (-Dfuzz=true, with ASan and UBSan), runs it for FUZZ_SECONDS (default 60) on a copy of its seed
# corpus, and fails on any crash, sanitizer report, leak or broken invariant.
# The targets are built one after the other, then fuzzed FUZZ_JOBS at a
# time (default: the number of CPUs; each fuzzer is one process on one core),
# each for its own FUZZ_SECONDS: 3 minutes for the 5 on 2 cores, not 5.
# A failing input is kept in FUZZ_ARTIFACTS (default: a directory that is
# printed). Prints one PASS:/FAIL: line per check. Needs apt-get only when clang
# or its fuzzer runtime is missing.
#
#   .ci/fuzz.sh [TARGET...]      TARGET: config, hookenv (default: both)

set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-60}
targets=${*:-config hookenv netlink uevent fleet}
failed=0
tmp=$(mktemp -d /tmp/ib-hook-fuzz.XXXXXX) || exit 1
artifacts=${FUZZ_ARTIFACTS:-$tmp/artifacts}
trap 'rm -rf "$tmp"' EXIT
trap 'kill $(jobs -p) 2>/dev/null; exit 1' INT TERM

pass() { echo "PASS: $1"; }
fail() {
	echo "FAIL: $1"
	failed=1
}

apt_install() {
	apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 && return 0
	apt-get update >/dev/null 2>&1
	apt-get install -y --no-install-recommends "$@" >/dev/null
}

# CC: clang, or the clang of $CC; the fuzzer runtime comes with libclang-rt-dev
CC=${CC:-clang}
case $CC in *clang*) ;; *) CC=clang ;; esac
probe() {
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$tmp/probe.c"
	"$CC" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" 2>/dev/null
}
if ! probe; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "# installing clang and its fuzzer runtime"
		apt_install clang libclang-rt-dev ||
			apt_install clang "libclang-rt-$(clang -dumpversion 2>/dev/null | cut -d. -f1)-dev"
	fi
	probe || {
		echo "# $CC cannot build -fsanitize=fuzzer binaries (needs clang and libclang-rt-dev)"
		fail fuzz-build
		exit 1
	}
fi

# the fuzzers as fuzz/meson.build builds them (-Dfuzz=true): one list of the
# sources each target covers, with AddressSanitizer and UBSan on top
if ! CC="$CC" meson setup "$tmp/build" "$srcdir" -Dfuzz=true -Dtests=false -Dwerror=true \
	-Db_sanitize=address,undefined -Dbuildtype=debug \
	-Dc_args="-O1 -fno-sanitize-recover=all -fno-omit-frame-pointer" >"$tmp/setup.log" 2>&1; then
	sed 's/^/# /' "$tmp/setup.log" | tail -20
	fail fuzz-setup
	exit 1
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

mkdir -p "$artifacts"
built=
for t in $targets; do
	if [ ! -f "$srcdir/fuzz/fuzz-$t.c" ]; then
		echo "# unknown fuzz target '$t'"
		fail "fuzz-$t"
		continue
	fi
	if ! meson compile -C "$tmp/build" "fuzz/fuzz-$t" >"$tmp/build-$t.log" 2>&1; then
		sed 's/^/# /' "$tmp/build-$t.log" | tail -30
		fail "fuzz-$t-build"
		continue
	fi
	cp "$tmp/build/fuzz/fuzz-$t" "$tmp/fuzz-$t"
	pass "fuzz-$t-build"
	built="$built $t"
done

# fuzz TARGET: one fuzzer's run, its exit code in $tmp/rc-TARGET
fuzz() {
	mkdir -p "$tmp/corpus-$1"
	cp "$srcdir/fuzz/corpus/$1/"* "$tmp/corpus-$1/"
	# the shipped example file is a seed too, without a copy of it in fuzz/
	[ "$1" = config ] && cp "$srcdir/config/ib-hook.conf" "$tmp/corpus-$1/"
	dict=
	[ -f "$srcdir/fuzz/$1.dict" ] && dict="-dict=$srcdir/fuzz/$1.dict"
	# shellcheck disable=SC2086
	"$tmp/fuzz-$1" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 \
		-print_final_stats=1 -artifact_prefix="$artifacts/$1-" $dict \
		"$tmp/corpus-$1" >"$tmp/run-$1.log" 2>&1
	echo $? >"$tmp/rc-$1"
}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
# shellcheck disable=SC2086 # the target names
set -- $built
while [ $# -gt 0 ]; do
	i=0
	while [ $# -gt 0 ] && [ "$i" -lt "$jobs" ]; do
		fuzz "$1" &
		i=$((i + 1))
		shift
	done
	wait
done

for t in $built; do
	rc=$(cat "$tmp/rc-$t" 2>/dev/null || echo "?")
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/run-$t.log")
	if [ "$rc" = 0 ]; then
		echo "# fuzz-$t: ${runs:-?} runs in ${seconds} s, corpus $(find "$tmp/corpus-$t" -type f | wc -l) inputs"
		pass "fuzz-$t"
	else
		grep -av -e '^#[0-9]' -e '^ *#[0-9]' "$tmp/run-$t.log" | tail -30 | sed 's/^/# /'
		for a in "$artifacts/$t-"*; do
			[ -f "$a" ] || continue
			echo "# failing input $a (base64):"
			base64 "$a" | sed 's/^/#   /'
		done
		fail "fuzz-$t"
	fi
done

if [ "$failed" != 0 ] && [ -z "${FUZZ_ARTIFACTS:-}" ]; then
	# keep the failing inputs past the cleanup of $tmp
	keep=$(mktemp -d /tmp/ib-hook-fuzz-artifacts.XXXXXX) && cp -r "$artifacts/." "$keep/" &&
		echo "# failing inputs kept in $keep"
fi
exit "$failed"
