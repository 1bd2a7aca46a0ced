# SPDX-License-Identifier: GPL-2.0-or-later
# The fleet view's three steps between the two VMs of tests/vm/rping.sh, on
# real soft-RoCE (sourced by rping.sh once the package is on both and rping
# connected to both of the server's addresses): each VM's --inventory holds
# its two RoCE ports with a GID for each address (the GIDs as the kernel
# made them, read from sysfs), each VM runs --check --fleet against the
# joined inventory, and --join (on the server) finds the 8 pairs between the
# hosts ok, as rping just found them: a pair that works is not called broken
# (no-gid, port-down or a route or ARP cause). Checks: fleet-inventory-gids,
# fleet-join-ok. About 10 s under TCG.

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
if printf '%s\n' "$out" | grep -qx "12 pairs: 8 ok, 0 not ok, 4 local (not judged)" &&
	printf '%s\n' "$out" | grep -qx "exit 0"; then
	pass "fleet-join-ok"
else
	fail "fleet-join-ok"
	indent <"$work/vm1/share/answers1.json"
	indent <"$work/vm1/share/answers2.json"
fi
printf '%s\n' "$out" | indent
