#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Step 2's route_bound (issue 39 item 8, the reply's route): for each class
# of a source address's peers, whether the lookup from that address bound to
# its own port (`ip route get fibmatch PEER from A oif P`) finds a route
# through P, which is what RDMA CM's passive side on P needs (doc/fleet.md,
# "The reply's route, measured"). A host n1 with ib0 and ib1 in one subnet
# (IPv4 and IPv6), a peer n2; the answer's route_bound for the class of n2's
# address from ib1's address is checked against the kernel's own fibmatch
# lookup and the expected value: ib-hook applied (true), the rule of ib1
# deleted and main keeping ib1's prefix route (true: the reply leaves
# through ib0, the bound lookup still finds ib1's), the rule deleted and
# ib1's prefix route deleted from main (false), MainRoute=delete with the
# rule deleted (false).
. "$(dirname "$0")/../lib.sh"
t_require python3 unshare
export IB_HOOK_FLEET_FORMAT=2

printf '[Match]\nName=ib0 ib1\n' | conf keep
printf '[Match]\nName=ib0 ib1\n[Routing]\nMainRoute=delete\n' | conf delete

ns_new sw
ip -n "$(ns sw)" link add br0 type bridge || exit 1
ip -n "$(ns sw)" link set br0 up
# n1: ib0 .1 and ib1 .2; n2: ib0 .9.9
for h in n1 n2; do
	ns_new "$h"
	ports="ib0 ib1"
	[ $h = n2 ] && ports=ib0
	for p in $ports; do
		ip -n "$(ns $h)" link add "$p" type veth peer name "$h$p" netns "$(ns sw)" || exit 1
		ip -n "$(ns sw)" link set "$h$p" master br0 up
		ip -n "$(ns $h)" link set "$p" up
	done
done
ip -n "$(ns n1)" addr add 172.16.0.1/16 dev ib0
ip -n "$(ns n1)" addr add 172.16.0.2/16 dev ib1
ip -n "$(ns n1)" addr add fd00::1/64 dev ib0 nodad
ip -n "$(ns n1)" addr add fd00::2/64 dev ib1 nodad
ip -n "$(ns n2)" addr add 172.16.9.9/16 dev ib0
ip -n "$(ns n2)" addr add fd00::99/64 dev ib0 nodad

route_dev() {
	ip -n "$(ns "$1")" route get "$2" from "$3" | sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -n 1
}
on() {
	h=$1
	shift
	ip netns exec "$(ns "$h")" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$h" "$@"
}
apply() { # apply CONF: ib-hook on both hosts, and the inventory
	for h in n1 n2; do
		on $h "$IB_HOOK" --config "$T_DIR/$1.conf" --all >/dev/null 2>&1 || return 1
	done
	for h in n1 n2; do
		on $h "$IB_HOOK" --config "$T_DIR/$1.conf" --inventory || return 1
	done >"$T_DIR/inventory.json"
}

# answer_bound A PEER: route_bound of the class of PEER among A's (absent: "absent")
answer_bound() {
	python3 - "$T_DIR/answer.json" "$1" "$2" <<'PY'
import ipaddress, json, sys
doc = json.load(open(sys.argv[1]))
a, peer = ipaddress.ip_address(sys.argv[2]), ipaddress.ip_address(sys.argv[3])
for s in doc["sources"]:
    if ipaddress.ip_address(s["address"]) != a:
        continue
    best, got = -1, None
    for c in s["classes"]:
        items = c["peers"] if isinstance(c["peers"], list) else [c["peers"]]
        for i in items:
            net = ipaddress.ip_network("0.0.0.0/0" if peer.version == 4 else "::/0") \
                if i == "rest" else ipaddress.ip_network(i, strict=False)
            if peer in net and net.prefixlen > best:
                best, got = net.prefixlen, c
    if got is not None:
        print(json.dumps(got["route_bound"]) if "route_bound" in got else "absent")
        sys.exit(0)
print("no class")
PY
}
# kernel_bound A PEER DEV: what `ip route get fibmatch PEER from A oif DEV` says
kernel_bound() {
	if ip -n "$(ns n1)" route get fibmatch "$2" from "$1" oif "$3" 2>/dev/null |
		grep -q " dev $3 "; then
		echo true
	else
		echo false
	fi
}
# case TITLE WANT4 WANT6: step 2 on n1, route_bound from ib1's addresses to n2's
case_() {
	on n1 "$IB_HOOK" --config "$T_DIR/$conf.conf" --check --fleet "$T_DIR/inventory.json" \
		--json >"$T_DIR/answer.json" 2>"$T_DIR/err"
	if [ $? -gt 1 ]; then
		not_ok "$1: step 2 ran"
		sed 's/^/#  /' "$T_DIR/err"
		return
	fi
	if python3 "$T_SRC/tests/validate-json.py" "$T_SRC/doc/ib-hook-fleet.schema.json" answers \
		<"$T_DIR/answer.json" >"$T_DIR/err" 2>&1; then
		ok "$1: the answer is valid"
	else
		not_ok "$1: the answer is valid"
		sed 's/^/#  /' "$T_DIR/err"
	fi
	set -- "$1" 172.16.0.2 172.16.9.9 "$2" fd00::2 fd00::99 "$3"
	for f in 4 6; do
		if [ $f = 4 ]; then a=$2 peer=$3 want=$4; else a=$5 peer=$6 want=$7; fi
		expect_eq "$1, IPv$f: the kernel's bound lookup" "$want" "$(kernel_bound $a $peer ib1)"
		expect_eq "$1, IPv$f: route_bound from $a to $peer" "$want" "$(answer_bound $a $peer)"
	done
	# ib0 keeps its rule: its own route, bound true, in every case
	expect_eq "$1: route_bound from ib0's address" "true true" \
		"$(answer_bound 172.16.0.1 172.16.9.9) $(answer_bound fd00::1 fd00::99)"
}

conf=keep
check "ib-hook applied, inventory written" apply keep
case_ "applied" true true
ip -n "$(ns n1)" rule del from 172.16.0.2
ip -n "$(ns n1)" -6 rule del from fd00::2
expect_eq "rule deleted: the reply leaves through ib0" "ib0 ib0" \
	"$(route_dev n1 172.16.9.9 172.16.0.2) $(route_dev n1 fd00::99 fd00::2)"
case_ "rule of ib1 deleted, main keeps its prefix route" true true
ip -n "$(ns n1)" route del 172.16.0.0/16 dev ib1 table main
ip -n "$(ns n1)" -6 route del fd00::/64 dev ib1 table main
case_ "rule and main's prefix route of ib1 deleted" false false

conf=delete
check "MainRoute=delete applied" apply delete
expect_eq "  main holds no route through ib1" "" \
	"$(ip -n "$(ns n1)" route show table main dev ib1; ip -n "$(ns n1)" -6 route show table main dev ib1 | grep -v '^fe80')"
case_ "MainRoute=delete, the rule in place" true true
ip -n "$(ns n1)" rule del from 172.16.0.2
ip -n "$(ns n1)" -6 rule del from fd00::2
case_ "MainRoute=delete, the rule of ib1 deleted" false false

# n1 alone in its inventory: none of its sources has a peer (step 2 once
# sorted the peers of none, a NULL array: -fsanitize=nonnull-attribute)
on n1 "$IB_HOOK" --config "$T_DIR/delete.conf" --inventory >"$T_DIR/alone.json"
check "n1 alone in its inventory: step 2 with no peers" \
	on n1 "$IB_HOOK" --config "$T_DIR/delete.conf" --check --fleet "$T_DIR/alone.json"
done_testing
