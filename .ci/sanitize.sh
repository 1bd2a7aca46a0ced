#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: ib-hook under AddressSanitizer, UndefinedBehaviorSanitizer and Valgrind
# (issue 7). Needs root.
#
# 1. A build with -Db_sanitize=address,undefined (UB is fatal:
#    -fno-sanitize-recover=all) runs every meson suite of the tree (unit,
#    netns, hooks, fault, random, watch, rails, fleet, cni, demo...) in one
#    meson run, but for the replays that only take longer (below); a suite
#    in which a test failed or none passed fails, a skipped test says SKIP. Every sanitizer report is fatal and also lands in a
#    report directory that must stay empty: the sanitizer options are linked
#    into the binaries too, because the tests run ib-hook as dispatchers do,
#    with an emptied environment (env -i) where ASAN_OPTIONS would be lost.
# 2. A plain build runs one apply / status / remove cycle, by hand and as
#    networkd-dispatcher, under `valgrind --error-exitcode=1 --leak-check=full
#    --errors-for-leak-kinds=definite,indirect` in a network namespace of its
#    own.
# Prints one PASS:/FAIL: line per step; exits 1 when one failed.
#
#   .ci/sanitize.sh            SANITIZE_BUILDDIR=DIR keeps the builds there

set -u
. "$(dirname "$0")/own-run.sh"
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
failed=0
ns=
tmp=$(mktemp -d /var/tmp/ib-hook-sanitize.XXXXXX) || exit 1
builds=${SANITIZE_BUILDDIR:-$tmp}
cleanup() {
	if [ -n "$ns" ]; then
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

pass() { echo "PASS: $1"; }
fail() {
	echo "FAIL: $1"
	failed=1
}

[ "$(id -u)" = 0 ] || {
	echo "# the netns, fault and hooks suites and the Valgrind cycle need root"
	fail sanitize
	exit 1
}

need=
for p in meson ninja-build pkg-config gcc libnl-3-dev libsystemd-dev \
	libcmocka-dev iproute2 iputils-ping procps util-linux valgrind; do
	dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
	echo "# installing$need"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $need >/dev/null 2>&1 ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $need >/dev/null; } ||
		{
			fail "sanitize-dependencies"
			exit 1
		}
fi

# --- 1. sanitizers -----------------------------------------------------------
reports=$tmp/reports
mkdir -p "$reports"
san_opts="halt_on_error=1:exitcode=86:log_path=$reports/report:log_exe_name=1"
export ASAN_OPTIONS="$san_opts:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1"
export UBSAN_OPTIONS="$san_opts:print_stacktrace=1"
export LSAN_OPTIONS="$san_opts"
# the same options for processes that run with an emptied environment
cat >"$tmp/san-defaults.c" <<EOF
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);
const char *__asan_default_options(void) { return "$ASAN_OPTIONS"; }
const char *__ubsan_default_options(void) { return "$UBSAN_OPTIONS"; }
EOF
gcc -c -fPIC -o "$tmp/san-defaults.o" "$tmp/san-defaults.c" || {
	fail sanitize-build
	exit 1
}

san=$builds/sanitize
rm -rf "$san"
if meson setup "$san" "$srcdir" -Dtests=true \
	-Db_sanitize=address,undefined -Db_lundef=false \
	-Dc_args=-fno-sanitize-recover=all \
	-Dc_link_args="-fno-sanitize-recover=all $tmp/san-defaults.o" >"$tmp/setup.log" 2>&1 &&
	meson compile -C "$san" >"$tmp/compile.log" 2>&1; then
	pass sanitize-build
else
	tail -n 30 "$tmp/setup.log" "$tmp/compile.log" 2>/dev/null | sed 's/^/# /'
	fail sanitize-build
	exit 1
fi

# a use after free must be caught by this very build, else a clean run proves nothing
cat >"$tmp/canary.c" <<'EOF'
#include <stdlib.h>
int main(void) { char *p = malloc(4); free(p); return p[1]; }
EOF
if gcc -fsanitize=address,undefined -fno-sanitize-recover=all "$tmp/canary.c" \
	"$tmp/san-defaults.o" -o "$tmp/canary" 2>/dev/null &&
	! env -i "$tmp/canary" 2>/dev/null && ls "$reports"/report.canary.* >/dev/null 2>&1; then
	rm -f "$reports"/report.canary.*
	pass sanitize-canary
else
	echo "# a deliberate use after free went unreported: the sanitizer set-up is broken"
	fail sanitize-canary
fi

# every suite the build defines; none at all is a broken build, not a pass
suites=$(meson introspect --tests "$san" | python3 -c '
import json, sys
print("\n".join(sorted({s.split(":")[-1] for t in json.load(sys.stdin) for s in t["suite"]})))')
if [ -z "$suites" ]; then
	echo "# the sanitizer build defines no test suite"
	fail sanitize-suites
fi
# One meson run of every suite, not one run per suite: a suite's longest
# test (rails-routed, some four minutes of pings that must time out) no
# longer leaves the second core idle until it ends; the verdict is still
# one per suite, from meson's testlog.json.
# Two tests a CPU, as tests/run runs them: most of a test's time is waiting.
# The waits of a test for a condition are scaled as tests/run scales them
# (the load the run makes), once more for the sanitizers' own cost.
cpus=$(nproc 2>/dev/null || echo 1)
export MESON_TESTTHREADS=${MESON_TESTTHREADS:-$((2 * cpus))}
export IB_HOOK_TEST_SCALE=${IB_HOOK_TEST_SCALE:-$((2 + MESON_TESTTHREADS / cpus))}
# What the sanitizers add is the memory and UB checks of the code each test
# runs; a replay of the same code that only takes longer is left to the plain
# run of the quick start: the regression seeds of the random suite (replays
# of fixed sequences; the fresh-seed tests stay) and rails-routed's second
# and third layouts (the same runs over other routes of main, some four
# minutes of pings that must time out).
export RAILS_LAYOUTS=${RAILS_LAYOUTS:-defaults}
tests=$(meson introspect --tests "$san" | python3 -c '
import json, sys
print("\n".join(t["name"] for t in json.load(sys.stdin) if "IB_HOOK_SEED" not in t["env"]))')
echo "# under the sanitizers: $(echo "$tests" | wc -l) tests (not the random suite's regression seeds), rails layouts: $RAILS_LAYOUTS, waits times $IB_HOOK_TEST_SCALE"
# shellcheck disable=SC2086 # one test name a word
meson test -C "$san" --print-errorlogs --timeout-multiplier 3 $tests >"$tmp/test.log" 2>&1
# "SUITE RESULT NAME" per test
# (meson 1.0 names a test "PROJECT:SUITE[+SUITE] / NAME" and has no "suite")
python3 -c '
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    head, _, name = t["name"].partition(" / ")
    suites = t.get("suite") or head.split(":", 1)[-1].split("+")
    for s in suites:
        print(s.split(":")[-1], t["result"], name or head)' "$san/meson-logs/testlog.json" \
	>"$tmp/results" 2>/dev/null || : >"$tmp/results"
for s in $suites; do
	awk -v s="$s" '$1 == s { n[$2]++ } END { for (r in n) printf "# %s: %s: %d\n", s, r, n[r] }' \
		"$tmp/results" | sort
	# a test that skipped is reported as such, not hidden in a suite's PASS
	awk -v s="$s" '$1 == s && $2 == "SKIP" { print "SKIP: sanitize-" s " " $3 }' "$tmp/results"
	if awk -v s="$s" '$1 == s && $2 == "OK" { ok++ }
		$1 == s && $2 != "OK" && $2 != "SKIP" && $2 != "EXPECTEDFAIL" { bad++ }
		END { exit !(ok && !bad) }' "$tmp/results"; then
		pass "sanitize-$s"
	else
		awk -v s="$s" '$1 == s && $2 != "OK" && $2 != "SKIP" { print "# " $3 ": " $2 }' "$tmp/results"
		fail "sanitize-$s"
		failed_suites=1
	fi
done
if ! [ -s "$tmp/results" ]; then
	fail "sanitize-suites (meson wrote no test results)"
	tail -n 40 "$tmp/test.log" | sed 's/^/# /'
elif [ -n "${failed_suites:-}" ]; then
	# the end of each failed test's output (a test that dies early says
	# why only there: no "not ok" line)
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
        print(">>>", t["name"], t["result"])
        out = (t.get("stdout") or "") + (t.get("stderr") or "")
        print("\n".join(out.splitlines()[-40:]))' "$san/meson-logs/testlog.json" | sed 's/^/# /'
fi

if [ -z "$(ls -A "$reports")" ]; then
	pass sanitize-no-report
else
	echo "# $(find "$reports" -type f | wc -l) sanitizer report(s); the first ones:"
	for r in $(find "$reports" -type f | sort | head -n 3); do
		echo "# --- $r"
		head -n 60 "$r" | sed 's/^/# /'
	done
	fail sanitize-no-report
fi

# --- 2. valgrind ---------------------------------------------------------------
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
plain=$builds/plain
rm -rf "$plain"
if meson setup "$plain" "$srcdir" -Dtests=false -Db_sanitize=none >"$tmp/setup-plain.log" 2>&1 &&
	meson compile -C "$plain" >"$tmp/compile-plain.log" 2>&1; then
	pass valgrind-build
else
	tail -n 30 "$tmp/setup-plain.log" "$tmp/compile-plain.log" 2>/dev/null | sed 's/^/# /'
	fail valgrind-build
	exit 1
fi
bin=$plain/src/ib-hook
sysconfdir=$(meson introspect --buildoptions "$plain" |
	python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"].rstrip("/") + "/" + o["sysconfdir"] if not o["sysconfdir"].startswith("/") else o["sysconfdir"])')

ns=ib-hook-vg$$
ip netns add "$ns" || {
	fail valgrind-namespace
	exit 1
}
ipn() { ip -n "$ns" "$@"; }
ipn link set lo up
ipn link add ib0 type veth peer name pib0
ipn link add ib1 type veth peer name pib1
for l in pib0 pib1 ib0 ib1; do ipn link set "$l" up; done
ipn addr add 172.16.34.1/16 dev ib0
ipn addr add 172.16.34.2/16 dev ib1
ipn addr add 2001:db8:34::2/64 dev ib1 nodad
printf '[Match]\nName=ib0 ib1\n[Routing]\nMainRoute=delete\n' >"$tmp/vg.conf"
printf '[Routing]\nPriority=0\n' >"$tmp/bad.conf"
chmod 0644 "$tmp/vg.conf" "$tmp/bad.conf"
# rules, and the routes of every table but main and local (MainRoute=delete
# takes the kernel's prefix routes out of main for good)
state() {
	ipn rule show
	ipn -6 rule show
	ipn route show table all | grep ' table ' | grep -v ' table local '
	ipn -6 route show table all | grep ' table ' | grep -v ' table local '
}
before=$(state)

# vg NAME WANT_RC ARGS...: ib-hook ARGS under Valgrind in the namespace, stderr
# to the journal-less stderr; VG_ENV: the dispatcher's variables (hook mode,
# with the test config mounted in place of the installed one)
vg() {
	name=$1 want=$2
	shift 2
	ip netns exec "$ns" sh -c '
		dir=$1 cfg=$2 env=$3
		shift 3
		[ -d /run/systemd/journal ] && mount -t tmpfs tmpfs /run/systemd/journal
		if [ -n "$env" ]; then
			mount -t tmpfs -o mode=0755 tmpfs "$dir" && cp "$cfg" "$dir/ib-hook.conf" || exit 90
			# shellcheck disable=SC2086
			exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin $env "$@"
		fi
		exec "$@"' vg "$sysconfdir" "$tmp/vg.conf" "${VG_ENV:-}" \
		valgrind -q --error-exitcode=1 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
		--track-origins=yes "$bin" "$@" >"$tmp/vg.out" 2>"$tmp/vg.err"
	rc=$?
	if [ "$rc" = "$want" ] && ! grep -q '^==[0-9]*==' "$tmp/vg.err"; then
		pass "valgrind-$name"
	else
		echo "# ${VG_ENV:+$VG_ENV }ib-hook $* exited $rc, wanted $want"
		sed 's/^/# /' "$tmp/vg.out" "$tmp/vg.err" | head -n 80
		fail "valgrind-$name"
	fi
}

vg apply 0 --config "$tmp/vg.conf" --all
if [ "$(ipn rule show | grep -c '^1000:')" = 2 ] && [ "$(ipn -6 rule show | grep -c '^1000:')" = 1 ]; then
	pass valgrind-apply-state
else
	ipn rule show | sed 's/^/# /'
	fail valgrind-apply-state
fi
vg reapply 0 --config "$tmp/vg.conf" --all
vg status 0 --config "$tmp/vg.conf" --status
vg dry-run 0 --config "$tmp/vg.conf" --dry-run --remove --iface ib0 --iface ib1
vg remove 0 --config "$tmp/vg.conf" --remove --all
vg config-error 2 --config "$tmp/bad.conf" --iface ib0
VG_ENV="IFACE=ib1 STATE=routable" vg hook-apply 0
VG_ENV="IFACE=ib1 LOGICAL=ib1 ADDRFAM=inet METHOD=static MODE=stop PHASE=post-down" \
	vg hook-remove 0
VG_ENV="IFACE=--all ADDRFAM=meta MODE=start PHASE=post-up" vg hook-meta 0
if [ "$(state)" = "$before" ]; then
	pass valgrind-remove-state
else
	diff <(echo "$before") <(state) | sed 's/^/# /'
	fail valgrind-remove-state
fi

exit "$failed"
