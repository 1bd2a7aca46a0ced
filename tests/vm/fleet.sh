# SPDX-License-Identifier: GPL-2.0-or-later
# The fleet view's three steps between the two VMs of tests/vm/rping.sh, on
# real soft-RoCE (sourced by rping.sh once the package is on both and rping
# connected to both of the server's addresses): each VM's --inventory holds
# its two RoCE ports with a GID for each address (the GIDs as the kernel
# made them, read from sysfs), each VM runs --check --fleet against the
# joined inventory, and --join (on the server) finds the 8 pairs between the
# hosts ok, as rping just found them: a pair that works is not called broken
# (no-gid, port-down or a route or ARP cause); each VM's answers (version 2)
# carry RDMA CM's answer for every pair (a source with this few peers asks
# every one), resolved on the source port's own rxe device.
# Then a fault that only RDMA CM sees: the client's ib1 sends no ARP request
# of the kernel's own (net.ipv4.neigh.ib1.mcast_solicit=0, ucast_solicit=0,
# its neighbours flushed), so RDMA CM cannot resolve a peer from it, while
# the route and step 2's own ARP probes (a packet socket from the client's
# ib0, not the kernel's neighbour table) find nothing wrong: the join places
# "unresolved" at the client's ib1 for its 2 pairs, and nothing else.
# Deterministic (issue 49): until then the fault was named at 1 of its 2
# pairs now and then, since ib1 learnt a peer from an ARP request that peer
# sent (a request for ib1's address teaches the asked host the asker) before
# RDMA CM asked. For the fault's duration every ARP packet arriving on the
# client's ib1 is dropped (a tc matchall filter on its ingress), and the
# run starts only once ib1 holds no usable entry (checked right before it:
# fleet-fault-no-neighbour); how many ARP packets the filter dropped is
# printed, which is what would have raced. Checks: fleet-inventory-gids,
# fleet-join-ok, fleet-rdma-cm-resolved, fleet-fault-no-neighbour,
# fleet-unresolved-at-source. About 7 s under TCG, 3 to 5 s of it the fault
# (its RDMA CM questions time out).

for v in 1 2; do
	run $v 30 'ib-hook --inventory'
done >"$work/inventory.json"
if python3 -c '
import json, sys
ports = [p for l in open(sys.argv[1]) for p in json.loads(l)["ports"]]
ok = len(ports) == 4 and all(p["rdma"] and p["rdma"]["link_layer"] == "Ethernet" and
    sorted(g["address"] for g in p["rdma"]["gids"]) == sorted(p["addresses"]) for p in ports)
sys.exit(not ok)' "$work/inventory.json" 2>/dev/null; then
	pass "fleet-inventory-gids"
else
	fail "fleet-inventory-gids"
fi
indent <"$work/inventory.json"
for v in 1 2; do cp "$work/inventory.json" "$work/vm$v/share/inventory.json"; done
run 1 60 'ib-hook --check --fleet /ci/inventory.json --json' >"$work/vm1/share/answers1.json" &
a1=$!
run 2 60 'ib-hook --check --fleet /ci/inventory.json --json' >"$work/vm1/share/answers2.json"
wait $a1
out=$(run 1 30 'ib-hook --join --fleet /ci/inventory.json /ci/answers1.json /ci/answers2.json; echo "exit $?"')
# answers version 2: each address is asked by one host (the other VM, from
# its first port), so 4 pairs' ARP is probed and 4 derived from those answers
if printf '%s\n' "$out" | grep -qx "12 pairs: 8 ok, 0 not ok, 4 local (not judged); ARP probed for 4, derived for 4" &&
	printf '%s\n' "$out" | grep -qx "exit 0"; then
	pass "fleet-join-ok"
else
	fail "fleet-join-ok"
	indent <"$work/vm1/share/answers1.json"
	indent <"$work/vm1/share/answers2.json"
fi
printf '%s\n' "$out" | indent
# every answer asked RDMA CM, and every pair resolved on its source port's own device
if python3 -c '
import json, sys
inv = [json.loads(l) for l in open(sys.argv[1])]
dev = {(d["host"], p["interface"]): p["rdma"]["device"] for d in inv for p in d["ports"]}
port = {a.split("/")[0]: (d["host"], p["interface"]) for d in inv for p in d["ports"] for a in p["addresses"]}
pairs = set()
for a in sys.argv[2:]:
    d = json.load(open(a))
    assert d["version"] == 2 and d["rdma_cm"] == "asked", (d["version"], d["rdma_cm"])
    # two peers a source address: every one asked (a sample per class only past 32)
    for p in d["rdma_cm_probes"]:
        assert p["rdma_cm"]["device"] == dev[(d["host"], p["interface"])], p
        pairs.add((d["host"], p["interface"]) + port[p["peer"]])
assert len(pairs) == 8, pairs' "$work/inventory.json" "$work/vm1/share/answers1.json" \
	"$work/vm1/share/answers2.json"; then
	pass "fleet-rdma-cm-resolved"
else
	fail "fleet-rdma-cm-resolved"
fi
# FLEET_FAULT_REPEAT=N (default 1) measures the fault N times in the same
# pair, each a check of its own, to see how often it holds
for ((fault_round = 1; fault_round <= ${FLEET_FAULT_REPEAT:-1}; fault_round++)); do
t0=$(date +%s)
client=$(sed -n 2p "$work/inventory.json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["host"])')
neigh=/proc/sys/net/ipv4/neigh/ib1
run 2 30 "cat $neigh/mcast_solicit $neigh/ucast_solicit >/run/fleet-solicit && echo 0 >$neigh/mcast_solicit &&
echo 0 >$neigh/ucast_solicit && tc qdisc replace dev ib1 clsact &&
tc filter add dev ib1 ingress protocol arp pref 1 matchall action drop && ip neigh flush dev ib1" | indent
# nothing resolved on ib1 right before the run (FAILED or INCOMPLETE
# entries resolve nothing)
left=$(run 2 10 "ip -4 neigh show dev ib1 | grep -v ' FAILED *\$\| INCOMPLETE *\$'")
if [ -z "$left" ]; then
	pass "fleet-fault-no-neighbour"
else
	fail "fleet-fault-no-neighbour"
	printf '%s\n' "$left" | indent
fi
run 2 60 'ib-hook --check --fleet /ci/inventory.json --json' >"$work/vm1/share/answers2-fault.json"
# what the client's ib1 holds after the run (it deletes the entries it
# made), and what the filter dropped meanwhile
run 2 30 "ip neigh show dev ib1
echo \"ARP packets dropped on ib1 during the fault: \$(tc -s filter show dev ib1 ingress | sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n 1)\"
tc qdisc del dev ib1 clsact
{ read m; read u; } </run/fleet-solicit && echo \$m >$neigh/mcast_solicit && echo \$u >$neigh/ucast_solicit && ip neigh flush dev ib1" | indent
out=$(run 1 30 'ib-hook --join --fleet /ci/inventory.json --json /ci/answers1.json /ci/answers2-fault.json')
if printf '%s\n' "$out" | python3 -c '
import json, sys
m = json.load(sys.stdin)
assert {k: m["summary"][k] for k in ("pairs", "ok", "not_ok", "local", "unknown", "arp_probed", "arp_derived")} == \
    {"pairs": 12, "ok": 6, "not_ok": 2, "local": 4, "unknown": 0, "arp_probed": 4, "arp_derived": 4}, m["summary"]
assert m["causes"] == [{"cause": "unresolved", "at": {"host": sys.argv[1], "interface": "ib1"},
                        "pairs": 2}], m["causes"]
bad = [p for p in m["pairs"] if p["verdict"] not in ("ok", "local")]
assert all(p["from"] == {"host": sys.argv[1], "interface": "ib1"} and
           "does not resolve" in p["why"] for p in bad), bad' "$client"; then
	pass "fleet-unresolved-at-source"
else
	fail "fleet-unresolved-at-source"
	indent <"$work/vm1/share/answers2-fault.json"
fi
printf '%s\n' "$out" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["pairs"]:
    if p["verdict"] not in ("ok", "local"):
        print(p["verdict"], "at", p["at"]["host"], p["at"]["interface"] + ":", p["why"])' | indent
note "fleet: the unresolved fault took $(($(date +%s) - t0)) s"
done
