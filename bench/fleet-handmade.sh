#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The fleet view next to the hand-made alternative (issue 39, item 7): on
# a fleet of HOSTS network namespaces x PORTS ports in one subnet (veths on
# one bridge, ib-hook applied), the question "which port pairs work" asked
#
#   hand-made  the way a lab's script does it: every host, in parallel (as
#              pdsh or clush would run it), pings every address of every
#              other host from each of its own (`ping -c 1 -W 1 -I ADDR PEER`),
#              one after the other;
#   step 2 v1  `ib-hook --check --fleet --json` on every host, version 1
#              (every pair, IB_HOOK_FLEET_FORMAT=1);
#   step 2 v2  the same, version 2 (sampled probes, routes by class).
#
# For each: wall time, packets the hosts put on the fabric (tx_packets of
# every port), neighbour entries left on the hosts, and the most entries
# the kernel's neighbour table held during the run (it is one table for
# every namespace: /proc/net/stat/arp_cache). Then what the hand-made way
# would cost at 1,024 x 8 from its per-pair figures. The fleet is kept
# small enough (6 x 4 by default) that the hand-made way, which makes
# every asked host learn every asker, stays under the shared table's
# gc_thresh3; the script refuses sizes that would not.
#
#   bench/fleet-handmade.sh [HOSTS [PORTS]]      (default: 6 4)
#
# Needs root, iproute2, iputils-ping, bc; IB_HOOK names the binary
# (default build/src/ib-hook). Everything lives in namespaces this script
# creates and deletes.
set -eu
export LC_ALL=C
top=$(cd "$(dirname "$0")/.." && pwd)
IB_HOOK=${IB_HOOK:-$top/build/src/ib-hook}
HOSTS=${1:-6}
PORTS=${2:-4}
pfx=ibm$$-
tmp=$(mktemp -d)

die() {
	echo "bench: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -x "$IB_HOOK" ] || die "no ib-hook binary at $IB_HOOK"
command -v ping >/dev/null && command -v bc >/dev/null || die "needs ping (iputils-ping) and bc"

# the kernel's neighbour table, all namespaces: its entries now
table() {
	local e
	read -r e _ < <(sed -n 2p /proc/net/stat/arp_cache)
	echo $((16#$e))
}

# the hand-made way makes each port learn every other host's port that
# pings it or that it pings: PORTS x (HOSTS - 1) x PORTS entries per host
thresh=$(sysctl -n net.ipv4.neigh.default.gc_thresh3)
need=$((HOSTS * PORTS * (HOSTS - 1) * PORTS))
now=$(table)
[ $((need + now)) -le $((thresh * 3 / 4)) ] ||
	die "$HOSTS x $PORTS would put $need entries in the neighbour table every namespace shares (gc_thresh3 $thresh, $now in it now): choose a smaller fleet"

cleanup() {
	for h in $(seq 1 "$HOSTS"); do ip netns del "${pfx}h$h" 2>/dev/null || true; done
	ip netns del "${pfx}sw" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add "${pfx}sw"
ip -n "${pfx}sw" link add br0 type bridge
ip -n "${pfx}sw" link set br0 up
printf '[Match]\nName=%s\n' "$(seq -f 'ib%g' -s ' ' 0 $((PORTS - 1)))" >"$tmp/ib-hook.conf"
addrs=()
for h in $(seq 1 "$HOSTS"); do
	n=${pfx}h$h
	ip netns add "$n"
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	for p in $(seq 0 $((PORTS - 1))); do
		ip -n "$n" link add "ib$p" type veth peer name "h${h}i$p" netns "${pfx}sw"
		ip -n "${pfx}sw" link set "h${h}i$p" master br0 up
		ip -n "$n" link set "ib$p" up
		ip -n "$n" addr add "10.31.$h.$((p + 1))/16" dev "ib$p"
		addrs+=("$h 10.31.$h.$((p + 1))")
	done
	ip netns exec "$n" "$IB_HOOK" --config "$tmp/ib-hook.conf" --all 2>/dev/null
done
# on HOST: CMD in the host's namespace, under its own host name
on() {
	local h=$1
	shift
	ip netns exec "${pfx}h$h" unshare --uts sh -c 'hostname "$0" && exec "$@"' "h$h" "$@"
}
for h in $(seq 1 "$HOSTS"); do
	on "$h" "$IB_HOOK" --config "$tmp/ib-hook.conf" --inventory
done >"$tmp/inventory.json"

tx() {
	local h sum=0 c
	for h in $(seq 1 "$HOSTS"); do
		for c in $(ip netns exec "${pfx}h$h" sh -c 'cat /sys/class/net/ib*/statistics/tx_packets'); do
			sum=$((sum + c))
		done
	done
	echo "$sum"
}
entries() {
	local h sum=0
	for h in $(seq 1 "$HOSTS"); do
		sum=$((sum + $(ip -n "${pfx}h$h" neigh show | grep -c . || true)))
	done
	echo "$sum"
}
flush() {
	local h
	for h in $(seq 1 "$HOSTS"); do ip -n "${pfx}h$h" neigh flush all 2>/dev/null || true; done
}

# handmade HOST: the lab's loop on one host
handmade() {
	local h=$1 line peer_h peer mine bad=0
	for mine in $(seq 1 "$PORTS"); do
		for line in "${addrs[@]}"; do
			peer_h=${line% *} peer=${line#* }
			[ "$peer_h" = "$h" ] && continue
			ip netns exec "${pfx}h$h" ping -n -q -c 1 -W 1 -I "10.31.$h.$mine" "$peer" >/dev/null 2>&1 ||
				bad=$((bad + 1))
		done
	done
	echo "$bad" >"$tmp/bad.$h"
}
step2() {
	local h=$1
	on "$h" "$IB_HOOK" --config "$tmp/ib-hook.conf" --check --fleet "$tmp/inventory.json" --json \
		>"$tmp/answer.$h.json" 2>/dev/null || true
}

# measure NAME FUNCTION: FUNCTION on every host at once; one line of
# figures (its seconds and packets also in took and packets)
measure() {
	local name=$1 fn=$2 h t0 start peak=0 e pids=()
	flush
	sleep 0.2
	t0=$(tx)
	start=$(date +%s.%N)
	for h in $(seq 1 "$HOSTS"); do
		"$fn" "$h" &
		pids+=($!)
	done
	while kill -0 "${pids[@]}" 2>/dev/null; do
		e=$(table)
		[ "$e" -gt "$peak" ] && peak=$e
		sleep 0.05
	done
	wait
	took=$(echo "$(date +%s.%N) - $start" | bc)
	packets=$(($(tx) - t0))
	printf '%-12s %8.2f %9d %9d %11d %8s\n' "$name" "$took" "$packets" "$(entries)" "$peak" \
		"$({ wc -c <"$tmp/answer.1.json"; } 2>/dev/null || echo -)"
	rm -f "$tmp"/answer.*.json
}

pairs=$((HOSTS * PORTS * (HOSTS - 1) * PORTS))
echo "# $HOSTS hosts x $PORTS ports, one subnet: $pairs directed pairs between hosts"
printf '%-12s %8s %9s %9s %11s %8s\n' way seconds packets entries table_peak answer
measure hand-made handmade
hand_took=$took hand_packets=$packets
bad=$(cat "$tmp"/bad.* | paste -sd+ | bc)
[ "$bad" = 0 ] || echo "# hand-made: $bad pings unanswered"
export IB_HOOK_FLEET_FORMAT=1
measure "step 2 v1" step2
export IB_HOOK_FLEET_FORMAT=2
measure "step 2 v2" step2

# the hand-made way at 1,024 x 8, from its per-pair figures here: each
# host pings 8 x 1,023 x 8 = 65,472 pairs one after the other
per_host=$((PORTS * (HOSTS - 1) * PORTS))
echo "# hand-made at 1,024 x 8, from these figures: $(echo "scale=6; x = $hand_took / $per_host * 65472 / 60; scale=1; x / 1" | bc) min per host," \
	"$(echo "scale=6; x = $hand_packets / $pairs * 67067904 / 1000000; scale=1; x / 1" | bc) million packets onto the fabric," \
	"65,472 neighbour entries wanted on every host (gc_thresh3 $thresh)"
