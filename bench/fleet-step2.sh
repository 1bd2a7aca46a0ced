#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Step 2 of the fleet view at scale (issue 39): one real host's
# `--check --fleet FILE --json` against a synthetic inventory of HOSTS hosts
# x 8 ports in one subnet (10.30.0.0/16), the real host the first of them,
# every other host silent (its addresses exist in no namespace). Prints, for
# each size: wall time, the packets the host put on the fabric (tx_packets
# of its 8 ports), the answer's bytes, its neighbour entries before and
# after. Issue 39's "done" for 1,024 x 8: <= 2,000 packets, no entry left,
# answer <= 256 KiB, < 5 s.
#
#   bench/fleet-step2.sh [HOSTS...]     (default: 128 1024)
#
# Needs root and iproute2; IB_HOOK names the binary (default
# build/src/ib-hook). IB_HOOK_FLEET_FORMAT=1 measures version 1 (every pair).
set -eu
export LC_ALL=C
top=$(cd "$(dirname "$0")/.." && pwd)
IB_HOOK=${IB_HOOK:-$top/build/src/ib-hook}
sizes=${*:-128 1024}
pfx=ibb$$-
tmp=$(mktemp -d)
cleanup() {
	ip netns del "${pfx}h" 2>/dev/null || true
	ip netns del "${pfx}sw" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "${pfx}h"
ip netns add "${pfx}sw"
ip -n "${pfx}sw" link add br0 type bridge
ip -n "${pfx}sw" link set br0 up
ip netns exec "${pfx}h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for p in 0 1 2 3 4 5 6 7; do
	ip -n "${pfx}h" link add "ib$p" type veth peer name "p$p" netns "${pfx}sw"
	ip -n "${pfx}sw" link set "p$p" master br0 up
	ip -n "${pfx}h" link set "ib$p" up
	ip -n "${pfx}h" addr add "10.30.0.$((p + 1))/16" dev "ib$p"
done
printf "[Match]\nName=ib0 ib1 ib2 ib3 ib4 ib5 ib6 ib7\n%b" "${BENCH_EXTRA_CONF:-}" >"$tmp/ib-hook.conf"
ip netns exec "${pfx}h" "$IB_HOOK" --config "$tmp/ib-hook.conf" --all 2>/dev/null
ip netns exec "${pfx}h" unshare --uts sh -c 'hostname n1 && exec "$@"' sh \
	"$IB_HOOK" --config "$tmp/ib-hook.conf" --inventory >"$tmp/self.json"

tx() {
	ip netns exec "${pfx}h" sh -c 'cat /sys/class/net/ib*/statistics/tx_packets' | paste -sd+ | bc
}
printf '%-10s %8s %8s %10s %10s %8s\n' inventory seconds packets answer entries_before entries_after
for hosts in $sizes; do
	python3 - "$tmp/self.json" "$hosts" >"$tmp/inventory.json" <<'PY'
import json, sys
me = json.load(open(sys.argv[1]))
print(json.dumps(me, separators=(",", ":")))
for h in range(1, int(sys.argv[2])):
    ports = []
    for p in range(8):
        i = h * 8 + p + 1
        q = dict(me["ports"][p])
        q["hwaddr"] = "02:30:%02x:%02x:%02x:%02x" % (h >> 8, h & 255, p, 0)
        q["addresses"] = ["10.30.%d.%d/16" % (i >> 8, i & 255)]
        ports.append(q)
    print(json.dumps({"version": 1, "host": "n%d" % (h + 1), "ports": ports}, separators=(",", ":")))
PY
	before=$(ip -n "${pfx}h" neigh show | grep -c . || true)
	t0=$(tx)
	start=$(date +%s.%N)
	ip netns exec "${pfx}h" unshare --uts sh -c 'hostname n1 && exec "$@"' sh \
		"$IB_HOOK" --config "$tmp/ib-hook.conf" --check --fleet "$tmp/inventory.json" --json \
		>"$tmp/answer.json" || [ $? = 1 ]
	took=$(echo "$(date +%s.%N) - $start" | bc)
	packets=$(($(tx) - t0))
	after=$(ip -n "${pfx}h" neigh show | grep -c . || true)
	printf '%-10s %8.2f %8d %10d %10d %8d\n' "${hosts}x8" "$took" "$packets" \
		"$(wc -c <"$tmp/answer.json")" "$before" "$after"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("#", d.get("probing", "version 1"))' "$tmp/answer.json"
done
