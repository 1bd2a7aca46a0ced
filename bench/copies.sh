#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What routed rails' copies cost when main routes many prefixes through a
# port (routing on the host: BGP-learned rail prefixes; issue 38 item 10):
# N /24 routes of main via ib0's gateway, which T(ib0) copies, and T(ib1)
# too (the gateway lies in ib1's prefix). For each N, `--all` fresh (T
# empty, the record without them), `--all` again (already applied: every
# copy re-checked), `--status` (every copy reported), and `--all` after ib0
# went (a driver reload: T(ib1)'s N copies deleted, T(ib0)'s N records
# forgotten; issue 48, item 1). Then a watcher with TERM_N copies (default
# 100 000) whose port went gets SIGTERM in the middle of that pass: the
# time until it exited.
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
# routes N: N /24 routes of main via a gateway through ib0, for ip -batch
routes() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
		printf "route add %d.%d.%d.0/24 via 172.16.0.1 dev ib0 proto static\n", 10 + int(i / 65536), int(i / 256) % 256, i % 256 }'
}
# port_back: the commands that give a namespace its ib0 back, with its address
port_back() {
	echo "ip link add ib0 type veth peer name p0 && ip link set ib0 up && ip link set p0 up &&" \
		"ip addr add 172.16.34.1/16 dev ib0"
}
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
	routes "$n" >"$T/routes-$n.batch"
	ip -n "$ns" -batch "$T/routes-$n.batch"
	for b in $bins; do
		name=${b%%=*} bin=${b#*=}
		# untimed: ib0 back with its address and main's routes through it
		# (the row "ib0 gone" deleted it), and ib-hook's own remove, exact (its record)
		printf '%s\n' "ip link show ib0 >/dev/null 2>&1 || { $(port_back); ip -batch $T/routes-$n.batch; }" \
			"$bin -c $T/c.conf --all --remove >/dev/null 2>&1" >"$T/reset-$name-$n.sh"
		printf '%s\n' ". $T/reset-$name-$n.sh" "$bin -c $T/c.conf --all >/dev/null 2>&1" >"$T/applied-$name-$n.sh"
		printf '%s\n' ". $T/applied-$name-$n.sh" "ip link del ib0" >"$T/gone-$name-$n.sh"
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' \
			"${name}_fresh_$n" "$ROUNDS" "$ns" - "$T/reset-$name-$n.sh" "$bin -c $T/c.conf --all" \
			"${name}_applied_$n" "$ROUNDS" "$ns" - "$T/applied-$name-$n.sh" "$bin -c $T/c.conf --all" \
			"${name}_status_$n" "$ROUNDS" "$ns" - "$T/applied-$name-$n.sh" "$bin -c $T/c.conf --status" \
			"${name}_gone_$n" "$ROUNDS" "$ns" - "$T/gone-$name-$n.sh" "$bin -c $T/c.conf --all" >>"$T/spec"
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
	split("fresh applied status gone", kind, " ")
	label["fresh"] = "--all, fresh"
	label["applied"] = "--all, already applied"
	label["status"] = "--status"
	label["gone"] = "--all, ib0 gone"
	for (s = 1; s <= m; s++)
		for (k = 1; k <= 4; k++)
			for (b = 1; b <= w; b++) {
				name = bin[b]
				sub(/=.*/, "", name)
				key = name "_" kind[k] "_" size[s]
				if (key in med)
					printf "%-8s %-7s %-24s %9.1f ms %9.1f ms%s\n", name, size[s], label[kind[k]],
						med[key] / 1000, cpu[key] / 1000, fail[key] ? "  [" fail[key] " FAILED]" : ""
			}
}' "$T/results"

# a watcher with TERM_N copies in T(ib1) whose originals went with ib0:
# SIGTERM once its pass has begun deleting them; the time until it exited
term_n=${TERM_N:-100000}
ns=${pfx}term
ip netns add "$ns"
namespaces="$namespaces $ns"
ip -n "$ns" link set lo up
ip -n "$ns" link add ib1 type veth peer name p1
ip -n "$ns" link set ib1 up
ip -n "$ns" link set p1 up
ip -n "$ns" addr add 172.16.34.2/16 dev ib1
ip netns exec "$ns" sh -c "$(port_back)"
routes "$term_n" >"$T/routes-term.batch"
ip -n "$ns" -batch "$T/routes-term.batch"
for b in $bins; do
	name=${b%%=*} bin=${b#*=}
	ip netns exec "$ns" sh -c "$(port_back)" 2>/dev/null && ip -n "$ns" -batch "$T/routes-term.batch"
	ip netns exec "$ns" "$bin" -c "$T/c.conf" --all >/dev/null 2>&1
	t1=$((1000 + $(ip -n "$ns" -o link show ib1 | cut -d: -f1)))
	copies=$(ip -n "$ns" -4 route show table "$t1" | wc -l)
	ip netns exec "$ns" "$bin" -c "$T/c.conf" --watch >/dev/null 2>&1 &
	w=$!
	sleep 2
	ip -n "$ns" link del ib0
	while [ "$(ip -n "$ns" -4 route show table "$t1" | wc -l)" -ge "$copies" ]; do sleep 0.05; done
	s=$(date +%s%N)
	kill -TERM "$w"
	wait "$w" || true
	e=$(date +%s%N)
	echo "$name: a watcher deleting $term_n copies (ib0 gone) exited $(((e - s) / 1000000)) ms after SIGTERM, $(ip -n "$ns" -4 route show table "$t1" | wc -l) routes left in T(ib1)"
	ip netns exec "$ns" "$bin" -c "$T/c.conf" --all --remove >/dev/null 2>&1
done
