#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What routed rails' copies cost when main routes many prefixes through a
# port (routing on the host: BGP-learned rail prefixes; issue 38 item 10):
# N /24 routes of main via ib0's gateway, which T(ib0) copies. For each N,
# `--all` fresh (T empty, the record without them), `--all` again (already
# applied: every copy re-checked) and `--status` (every copy reported).
#
#   bench/copies.sh [N...]             # default: 2000 8000 16000
#
# IB_HOOK names the binary (default build/src/ib-hook); IB_HOOK_BEFORE, when
# set, names a second one (an older build) measured in the same rounds, so
# that before and after compare runs made under the same load. ROUNDS runs
# per row (default 5; a quadratic build takes seconds per run at 16 000).
# Needs root, iproute2 and a C compiler; everything happens in network
# namespaces this script creates and deletes, with bench/launch.c timing.
set -eu
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
IB_HOOK=${IB_HOOK:-$top/build/src/ib-hook}
ROUNDS=${ROUNDS:-5}
sizes=${*:-2000 8000 16000}

die() {
	echo "bench: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
bins="after=$(cd "$(dirname "$IB_HOOK")" && pwd)/$(basename "$IB_HOOK")"
if [ -n "${IB_HOOK_BEFORE:-}" ]; then
	bins="before=$(cd "$(dirname "$IB_HOOK_BEFORE")" && pwd)/$(basename "$IB_HOOK_BEFORE") $bins"
fi
for b in $bins; do
	[ -x "${b#*=}" ] || die "no ib-hook binary at ${b#*=}"
done

pfx="ibc$$-"
T=$(mktemp -d /tmp/ib-hook-bench.XXXXXX)
namespaces=""
cleanup() {
	for n in $namespaces; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
		ip netns del "$n" 2>/dev/null || true
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -static -o "$T/launch" "$top/bench/launch.c" 2>/dev/null ||
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -o "$T/launch" "$top/bench/launch.c" ||
	die "cannot build the launcher"

printf '[Match]\nName=ib*\n' >"$T/c.conf"
: >"$T/spec"
for n in $sizes; do
	ns=$pfx$n
	ip netns add "$ns"
	namespaces="$namespaces $ns"
	ip -n "$ns" link set lo up
	for i in 0 1; do
		ip -n "$ns" link add ib$i type veth peer name p$i
		ip -n "$ns" link set ib$i up
		ip -n "$ns" link set p$i up
		ip -n "$ns" addr add 172.16.34.$((i + 1))/16 dev ib$i
	done
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++)
		printf "route add 10.%d.%d.0/24 via 172.16.0.1 dev ib0 proto static\n", int(i / 256), i % 256 }' >"$T/routes.batch"
	ip -n "$ns" -batch "$T/routes.batch"
	for b in $bins; do
		name=${b%%=*} bin=${b#*=}
		# untimed: ib-hook's own remove is exact (its record)
		echo "$bin -c $T/c.conf --all --remove >/dev/null 2>&1" >"$T/reset-$name.sh"
		printf '%s\n' ". $T/reset-$name.sh" "$bin -c $T/c.conf --all >/dev/null 2>&1" >"$T/applied-$name.sh"
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' \
			"${name}_fresh_$n" "$ROUNDS" "$ns" - "$T/reset-$name.sh" "$bin -c $T/c.conf --all" \
			"${name}_applied_$n" "$ROUNDS" "$ns" - "$T/applied-$name.sh" "$bin -c $T/c.conf --all" \
			"${name}_status_$n" "$ROUNDS" "$ns" - "$T/applied-$name.sh" "$bin -c $T/c.conf --status" >>"$T/spec"
	done
done
ip netns exec "$pfx${sizes%% *}" "$T/launch" -w 1 "$T/spec" >"$T/results" &
wait $! || die "the launcher failed"

echo "ib-hook routed-rails copies: $(nproc) CPU(s), kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS runs per row"
awk -v sizes="$sizes" -v bins="$bins" '
$1 == "launcher" { next }
{ med[$1] = $3; cpu[$1] = $10; fail[$1] = $9 }
END {
	printf "%-8s %-7s %-24s %12s %12s\n", "binary", "routes", "run", "median", "CPU median"
	m = split(sizes, size, " ")
	w = split(bins, bin, " ")
	split("fresh applied status", kind, " ")
	label["fresh"] = "--all, fresh"
	label["applied"] = "--all, already applied"
	label["status"] = "--status"
	for (s = 1; s <= m; s++)
		for (k = 1; k <= 3; k++)
			for (b = 1; b <= w; b++) {
				name = bin[b]
				sub(/=.*/, "", name)
				key = name "_" kind[k] "_" size[s]
				if (key in med)
					printf "%-8s %-7s %-24s %9.1f ms %9.1f ms%s\n", name, size[s], label[kind[k]],
						med[key] / 1000, cpu[key] / 1000, fail[key] ? "  [" fail[key] " FAILED]" : ""
			}
}' "$T/results"
