#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fleet view where /sys is not the namespace's own (systemd-nspawn, and
# any entry into a network namespace that does not remount /sys, as nsenter
# --net does): /sys/class/net shows the links of another namespace. Each
# port's hardware address is the one `ip link` shows in its own namespace,
# and step 2 finds its host by them (a managed port without a hardware
# address: tests/fleet/no-hwaddr.sh).
. "$(dirname "$0")/../lib.sh"
t_require nsenter unshare python3

cfg=$T_DIR/fleet.conf
printf '[Match]\nName=ib0 ib1\n' | conf fleet
ns_new sw
ip -n "$(ns sw)" link add br0 type bridge || exit 1
ip -n "$(ns sw)" link set br0 up
for h in 1 2; do
	ns_new "h$h"
	for p in 0 1; do
		veth "h$h" "ib$p" "h${h}i$p" sw
		ip -n "$(ns sw)" link set "h${h}i$p" master br0
		addr "h$h" "ib$p" "10.20.$h.$((p + 1))/16"
	done
done

# on HOST CMD...: CMD in HOST's network namespace under the /sys of the test's
on() {
	h=$1
	shift
	nsenter --net="/run/netns/$(ns "$h")" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$h" "$@"
}
[ ! -e /sys/class/net/ib0 ] || [ "$(cat /sys/class/net/ib0/address)" != \
	"$(ip -n "$(ns h1)" -br link show ib0 | awk '{print $3}')" ] ||
	skip "this namespace's /sys shows h1's ib0: nothing to tell apart"

for h in h1 h2; do
	on "$h" "$IB_HOOK" --config "$cfg" --all || exit 1
	on "$h" "$IB_HOOK" --config "$cfg" --inventory >"$T_DIR/$h.json" 2>"$T_DIR/err"
	check "--inventory of $h under another namespace's /sys" test -s "$T_DIR/$h.json"
	for p in ib0 ib1; do
		want=$(ip -n "$(ns "$h")" -br link show "$p" | awk '{print $3}')
		got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([x["hwaddr"] for x in d["ports"] if x["interface"] == sys.argv[2]][0])' "$T_DIR/$h.json" "$p" 2>/dev/null)
		expect_eq "  $h $p: the hardware address ip link shows" "$want" "$got"
	done
done
cat "$T_DIR/h1.json" "$T_DIR/h2.json" >"$T_DIR/inventory.json"
for h in h1 h2; do
	on "$h" "$IB_HOOK" --check --fleet "$T_DIR/inventory.json" --json >"$T_DIR/answers.$h.json" 2>"$T_DIR/err"
	check "--check --fleet finds $h in the inventory" test -s "$T_DIR/answers.$h.json"
	sed 's/^/#  stderr: /' "$T_DIR/err"
done
cat "$T_DIR"/answers.h*.json >"$T_DIR/answers.json"
"$IB_HOOK" --join --fleet "$T_DIR/inventory.json" "$T_DIR/answers.json" >"$T_DIR/matrix.txt"
# each host's addresses have one candidate prober, the other host (a host
# never asks its own), which asks both from its first port: 4 pairs probed,
# the other 4 (from its second port) take that probe's verdict (derived)
expect_eq "--join: every pair between the hosts is ok" "12 pairs: 8 ok, 0 not ok, 4 local (not judged); ARP probed for 4, derived for 4" \
	"$(head -n 1 "$T_DIR/matrix.txt")"
expect_eq "  each host asked ARP for the other's 2 addresses, from ib0" "h1 ib0 10.20.2.1 h1 ib0 10.20.2.2 h2 ib0 10.20.1.1 h2 ib0 10.20.1.2" \
	"$(python3 -c 'import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    for a in sorted(d.get("arp", []), key=lambda a: a["peer"]):
        print(d["host"], a["interface"], a["peer"])' "$T_DIR/answers.json" | sort | tr '\n' ' ' | sed 's/ $//')"

done_testing
