#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Step 2 of the fleet view at scale (issue 39, SPEC 10.1): a namespace fleet
# as large as this machine holds well (IB_HOOK_FLEET_SCALE_HOSTS, default 32
# hosts x 8 ports, IPv4 only, one subnet, one bridge). Each host's
# --check --fleet --json answers version 2: every address asked by exactly
# one host (FleetProbers=1) and never by its own, every peer covered by one
# class, the ARP requests a host puts on the fabric counted on its ports
# (ip -s link: IPv6 is off there, so every packet is ARP) and held to its
# share, and the neighbour entries of every host the same before and after.
# Then one fault at a time, each said exactly and nothing else: ARP flux at
# a random port, a port down, a rule deleted, a stale permanent neighbour
# entry (neigh-stale), and a host with arp_filter=1 and arp_ignore=0 on all
# its ports (no flux through its ib-hook rules: its addresses are asked from
# a real sender, which only the prober's entry on it may show).
# The answers are checked as they are (scale-check.py), and joined: step 3
# names exactly the pairs each fault breaks, at its place, and no other
# (expect.py; 65,280 directed pairs). IB_HOOK_FLEET_SEED repeats a run.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"
export IB_HOOK_FLEET_FORMAT=2

HOSTS=${IB_HOOK_FLEET_SCALE_HOSTS:-32}
PORTS=8
printf '[Match]\nName=%s\n' "$(seq -f 'ib%g' -s ' ' 0 $((PORTS - 1)))" | conf fleet
cfg=$T_DIR/fleet.conf

# the machine's neighbour table is shared by every namespace: this test adds
# none (IPv6 off; the probes are RFC 5227's), so it only needs room to exist
gc3=$(cat /proc/sys/net/ipv4/neigh/default/gc_thresh3)
in_use=$(ip -all netns exec ip -4 neigh show 2>/dev/null | grep -c lladdr || true)
echo "# neighbour entries of all namespaces now: $in_use (gc_thresh3 $gc3)"

ns_new sw
ip -n "$(ns sw)" link add br0 type bridge || exit 1
ip -n "$(ns sw)" link set br0 up
for h in $(seq 1 $HOSTS); do
	ns_new "h$h"
	nsx "h$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	for p in $(seq 0 $((PORTS - 1))); do
		ip -n "$(ns "h$h")" link add "ib$p" type veth peer name "h${h}i$p" netns "$(ns sw)" || exit 1
		ip -n "$(ns sw)" link set "h${h}i$p" master br0 up
		ip -n "$(ns "h$h")" link set "ib$p" up
		addr "h$h" "ib$p" "10.20.$h.$((p + 1))/16"
	done
done
echo "# $HOSTS hosts x $PORTS ports on one bridge"

seed=${IB_HOOK_FLEET_SEED:-$(date +%s)}
RANDOM=$seed
echo "# seed $seed (IB_HOOK_FLEET_SEED=$seed repeats it)"

# counters HOST: the packets its ports sent, all ports together
counters() {
	nsx "$1" sh -c 'cat /sys/class/net/ib*/statistics/tx_packets' | paste -sd+ | bc
}
# neigh HOST: its neighbour entries
neigh() {
	ip -n "$(ns "$1")" -4 neigh show | sort
}
# step2: inventory and answers (version 2), the packets and entries of every host around step 2
step2() {
	local h
	fleet "$T_DIR/on" %h "$IB_HOOK" --config "$cfg" --inventory >"$T_DIR/inventory.json" || return 1
	for h in $(seq 1 $HOSTS); do
		counters "h$h" >"$T_DIR/tx.h$h"
		neigh "h$h" >"$T_DIR/neigh.h$h"
	done
	fleet "$T_DIR/on" %h "$IB_HOOK" --config "$cfg" --check --fleet "$T_DIR/inventory.json" --json \
		>"$T_DIR/answers.json"
	[ $? -le 1 ] || return 1
	for h in $(seq 1 $HOSTS); do
		echo "h$h $(($(counters "h$h") - $(cat "$T_DIR/tx.h$h")))"
	done >"$T_DIR/tx"
}
# said KIND [HOST PORT [PEER]]: the answers say exactly that
said() {
	if python3 "$here/scale-check.py" "$T_DIR/inventory.json" "$T_DIR/answers.json" 1 "$@" >"$T_DIR/said"; then
		ok "$*: the answers say exactly that"
	else
		not_ok "$*: the answers say otherwise"
		sed 's/^/#  /' "$T_DIR/said"
	fi
	tail -n 1 "$T_DIR/said" | sed 's/^/# /'
}
# bounded: each host sent its requests and retries, and one reply for each
# request its addresses met (the answers say how many each took: a retry by
# the prober is a second reply); at most twice its share and two replies a port
bounded() {
	share=$(((HOSTS * PORTS + HOSTS - 2) / (HOSTS - 1)))
	check "  every host's packets are its requests, retries and replies" \
		python3 - "$T_DIR/answers.json" "$T_DIR/tx" "$PORTS" "$T_DIR/bound" <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
ans = {d["host"]: d["probing"] for d in docs}
tx = dict(l.split() for l in open(sys.argv[2]))
ports = int(sys.argv[3])
sys.stdout = open(sys.argv[4], "w")
# the requests each address met, retries included: one reply each from the
# host that holds it (10.20.H.P; an address asked twice answers twice)
asked = {}
for d in docs:
    for a in d["arp"]:
        h = "h" + a["peer"].split(".")[2]
        asked[h] = asked.get(h, 0) + a["requests"]
worst, bad = 0, []
for h, p in ans.items():
    sent = p["requests"] + p["retries"]
    # onto the fabric: its requests and retries, and its replies to the probes of its addresses
    if int(tx[h]) > sent + asked.get(h, 0) or p["retries"] > p["requests"]:
        bad.append("%s sent %s packets; it says %s; its addresses were asked %d times" %
                   (h, tx[h], p, asked.get(h, 0)))
    worst = max(worst, int(tx[h]))
print("most packets from one host: %d; requests of all hosts: %d" % (worst, sum(p["requests"] for p in ans.values())))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
	sed 's/^/# /' "$T_DIR/bound" | head -n 3
	max=$(sort -k2 -n "$T_DIR/tx" | tail -n 1 | cut -d' ' -f2)
	# each address is asked once and retried at most once: at most two replies from each port
	check "  no host sent more than twice its share ($share) and two replies a port" test "$max" -le $((2 * share + 2 * PORTS))
}
# joined KIND [HOST PORT]: step 3 on the answers (version 2: sampled ARP,
# routes by class) names exactly the pairs the fault breaks, at its place
# (expect.py, as tests/fleet/fleet.sh asks it of 8 x 4). No reply route
# counts as broken here: main keeps every port's prefix route, so a lookup
# bound to the port finds one (route_bound) and RDMA CM's passive side
# accepts (doc/fleet.md, "The reply's route, measured").
joined() {
	: >"$T_DIR/back"
	"$IB_HOOK" --join --fleet "$T_DIR/inventory.json" --json --all-pairs "$T_DIR/answers.json" \
		>"$T_DIR/matrix.json" 2>"$T_DIR/join.err"
	[ $? -le 1 ] || { not_ok "  the join: $(head -n 1 "$T_DIR/join.err")"; return; }
	if python3 "$here/expect.py" "$T_DIR/matrix.json" "$HOSTS" "$PORTS" "$@" "$T_DIR/back" >"$T_DIR/expect.out"; then
		ok "  the join names exactly what $1 ${2:+at $2 $3 }breaks"
	else
		not_ok "  the join names exactly what $1 ${2:+at $2 $3 }breaks"
		sed 's/^/# /' "$T_DIR/expect.out" | head -n 12
	fi
	tail -n 1 "$T_DIR/expect.out" | sed 's/^/# /'
}
# joined_one FROM-HOST FROM-PORT TO-HOST TO-PORT CAUSE: the join's one failing pair
joined_one() {
	"$IB_HOOK" --join --fleet "$T_DIR/inventory.json" --json --all-pairs "$T_DIR/answers.json" \
		>"$T_DIR/matrix.json" 2>"$T_DIR/join.err"
	check "  the join fails exactly $1 $2 -> $3 $4, $5 at $1 $2" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
bad = [(p["from"]["host"], p["from"]["interface"], p["to"]["host"], p["to"]["interface"],
        p["verdict"], p["at"]["host"], p["at"]["interface"])
       for p in m["pairs"] if p["verdict"] not in ("ok", "local")]
want = [tuple(sys.argv[2:6]) + (sys.argv[6],) + tuple(sys.argv[2:4])]
print(bad[:5])
sys.exit(bad != want)' "$T_DIR/matrix.json" "$@"
}
# unchanged: no host's neighbour entries changed in step 2
unchanged() {
	local h
	changed=""
	for h in $(seq 1 $HOSTS); do
		neigh "h$h" | cmp -s - "$T_DIR/neigh.h$h" || changed="$changed h$h"
	done
	expect_eq "  no neighbour entry added or removed on any host" "" "$changed"
}

apply() {
	fleet "$T_DIR/on" %h "$IB_HOOK" --config "$cfg" --all 2>"$T_DIR/apply.err"
}

apply
check "step 2 on every host, ib-hook applied" step2
said none
bounded
unchanged
check "  the answers are valid" valid answers "$T_DIR/answers.json"
joined none

h=h$((RANDOM % HOSTS + 1))
p=ib$((RANDOM % PORTS))
nsx "$h" sysctl -qw "net.ipv4.conf.$p.arp_ignore=0"
step2
said arp-flux "$h" "$p"
unchanged
joined arp-flux "$h" "$p"
nsx "$h" sysctl -qw "net.ipv4.conf.$p.arp_ignore=2"

h=h$((RANDOM % HOSTS + 1))
p=ib$((RANDOM % PORTS))
ip -n "$(ns "$h")" link set "$p" down
step2
said port-down "$h" "$p"
bounded
unchanged
joined port-down "$h" "$p"
ip -n "$(ns "$h")" link set "$p" up
apply

h=h$((RANDOM % HOSTS + 1))
p=ib$((RANDOM % (PORTS - 1) + 1))
ip -n "$(ns "$h")" rule del from "10.20.${h#h}.$((${p#ib} + 1))"
step2
said no-rule "$h" "$p"
unchanged
# the replies into the port: a lookup bound to it still finds main's prefix route
check "  $h $p: a lookup bound to the port still finds a route through it" \
	sh -c "ip -n $(ns "$h") route get fibmatch 10.20.$((${h#h} % HOSTS + 1)).1 from 10.20.${h#h}.$((${p#ib} + 1)) oif $p | grep -q 'dev $p'"
joined no-rule "$h" "$p"
apply

h=h$((RANDOM % HOSTS + 1))
p=ib$((RANDOM % PORTS))
k=$(((${h#h} % HOSTS) + 1))
q=$((RANDOM % PORTS))
other=$(ip -n "$(ns "h$k")" -o link show "ib$(((q + 1) % PORTS))" | sed 's/.*link\/ether \([^ ]*\).*/\1/')
ip -n "$(ns "$h")" neigh replace "10.20.$k.$((q + 1))" lladdr "$other" dev "$p" nud permanent
step2
said neigh-stale "$h" "$p" "10.20.$k.$((q + 1))"
joined_one "$h" "$p" "h$k" "ib$q" neigh-stale
ip -n "$(ns "$h")" neigh del "10.20.$k.$((q + 1))" dev "$p"

# arp_filter=1 with arp_ignore=0: a 0.0.0.0 probe would be answered by every
# port (the kernel skips arp_filter for it); a real request only by the port
# the rules route the reply through
h=h$((RANDOM % HOSTS + 1))
for p in $(seq 0 $((PORTS - 1))); do
	nsx "$h" sysctl -qw "net.ipv4.conf.ib$p.arp_ignore=0" "net.ipv4.conf.ib$p.arp_filter=1"
done
nsx "$h" sysctl -qw "net.ipv4.conf.all.arp_ignore=0"
step2
said none
joined none
learnt=$(diff "$T_DIR/neigh.$h" <(neigh "$h") | grep -c '^>' || true)
check "  $h (arp_filter=1) learnt at most one entry per address asked ($learnt)" test "$learnt" -le "$PORTS"

done_testing
