#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fleet view's holes (issue 38, items 1-5), on a small real fleet: 3
# hosts x 2 ports in 172.16.0.0/16 (network namespaces on one bridge),
# the steps run through pdsh as in fleet.sh. Small on purpose: every
# namespace shares the machine's neighbour table limit (gc_thresh3).
# - item 5: a route says the table the kernel's lookup went through
#   (ib-hook's, as `ip route get` says), not main's 254 for every one (the
#   class of the peer in answers version 2);
# - item 2: a second address of h1's ib0 in a subnet no other port has
#   (10.9.0.1/16) leaves every pair ok;
# - item 3: 9 managed addresses on one port: the inventory is read, not
#   refused ("near byte 0");
# - item 4: a host name of 64 bytes (HOST_NAME_MAX) is read back;
# - item 1: an inventory taken before 172.16.1.2 moved from h1 ib1 to h3
#   ib1: h1's check sends nothing from it (h2's neighbour entry for it stays
#   h3's), says the inventory is stale (text, JSON, exit 1), and the join
#   calls h1 ib1's pairs stale;
# - item 12: a host and an interface named with markup: the page escapes
#   them (an HTML parser finds its cells and no element of theirs), the
#   JSON gives them back;
# - issue 47 item 3: a static neighbour entry of h1 sends its replies to
#   h3 ib0's address to h3 ib1, where rp_filter=1 drops them (a ping says
#   so): the join names the pair from h3 ib0 at h1 ib0 too.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"

HOSTS=3
PORTS=2
printf '[Match]\nName=ib0 ib1\n' | conf holes
cfg=$T_DIR/holes.conf

ns_new sw
ip -n "$(ns sw)" link add br0 type bridge || exit 1
ip -n "$(ns sw)" link set br0 up
for h in $(seq 1 $HOSTS); do
	ns_new "h$h"
	for p in 0 1; do
		veth "h$h" "ib$p" "h${h}i$p" sw
		ip -n "$(ns sw)" link set "h${h}i$p" master br0
		addr "h$h" "ib$p" "172.16.$h.$((p + 1))/16"
	done
done
mac() { nsx "$1" ip -br link show "$2" | awk '{print $3}'; }
apply
rules=0
for h in $(seq 1 $HOSTS); do
	rules=$((rules + $(ip -n "$(ns "h$h")" rule show | grep -c "from 172.16.$h\.")))
done
expect_eq "ib-hook applied on every host: a rule per address" $((HOSTS * PORTS)) "$rules"

# item 5: the table of the lookup, as ip route get says it
t=$(table_of h1 ib1)
want=$(ip -n "$(ns h1)" route get 172.16.2.1 from 172.16.1.2 | sed -n 's/.* table \([0-9]*\).*/\1/p')
fleet "$T_DIR/on" %h "$IB_HOOK" --config "$cfg" --inventory >"$T_DIR/inventory.json"
nsx h1 "$IB_HOOK" --check --fleet "$T_DIR/inventory.json" --json >"$T_DIR/check.json"
# answers version 2: the class of 172.16.2.1 among 172.16.1.2's, the most
# specific match of its peers ("rest" any), says the table
got=$(python3 -c 'import ipaddress, json, sys
d = json.load(open(sys.argv[1]))
peer, best, table = ipaddress.ip_address("172.16.2.1"), -1, None
for so in d["sources"]:
    if so["interface"] == "ib1" and so["address"] == "172.16.1.2":
        for c in so["classes"]:
            for i in c["peers"] if isinstance(c["peers"], list) else [c["peers"]]:
                n = None if i == "rest" else ipaddress.ip_network(i, strict=False)
                if (n is None or peer in n) and (n.prefixlen if n else 0) > best:
                    best, table = n.prefixlen if n else 0, c["route_table"]
print(table if table is not None else "")' "$T_DIR/check.json")
expect_eq "item 5: the class of h2 ib0 from ib1 says ib-hook's table $t (ip route get: ${want:-none})" "$t" "$got"
expect_eq "  as ip route get does" "$want" "$got"

# item 2: a second address in a subnet the other ports lack
addr h1 ib0 10.9.0.1/16
apply
check "item 2: steps with 10.9.0.1/16 also on h1 ib0" steps
expect_rc "  the join: every pair ok (exit 0)" 0 "$IB_HOOK" --join --fleet "$T_DIR/inventory.json" "$T_DIR/answers.json"
sed -n '1p' "$T_DIR/out" | sed 's/^/# /'
# FleetProbers=1: each of the 6 addresses in 172.16.0.0/16 is asked by one
# other host, from one port (6 pairs probed); no port but h1 ib0 is in
# 10.9.0.0/16, so nobody asks 10.9.0.1; the other 18 judged pairs take their
# destination's probe (derived)
check "  and 24 of them judged ok" grep -qx "30 pairs: 24 ok, 0 not ok, 6 local (not judged); ARP probed for 6, derived for 18" "$T_DIR/out"
expect_eq "  step 2 made those 6 ARP probes" 6 "$(arp_asked)"
ip -n "$(ns h1)" addr del 10.9.0.1/16 dev ib0

# item 3: 9 managed addresses on h2 ib0
for i in $(seq 10 17); do addr h2 ib0 "172.16.2.$i/16"; done
apply
fleet "$T_DIR/on" %h "$IB_HOOK" --config "$cfg" --inventory >"$T_DIR/inventory.json"
check "item 3: h2 ib0 lists its 9 addresses" \
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["host"] == "h2":
        sys.exit(len(d["ports"][0]["addresses"]) != 9)
sys.exit(1)' "$T_DIR/inventory.json"
expect_rc "  --check --fleet on h1 reads that inventory" 0 nsx h1 "$IB_HOOK" --check --fleet "$T_DIR/inventory.json" --json
expect_rc "  --join reads it" 1 "$IB_HOOK" --join --fleet "$T_DIR/inventory.json" </dev/null
check "  not refused" sh -c "! grep -q 'near byte' '$T_DIR/err'"
for i in $(seq 10 17); do ip -n "$(ns h2)" addr del "172.16.2.$i/16" dev ib0; done
apply

# item 4: a host name of 64 bytes
long=$(printf 'h%.0s' $(seq 1 64))
ip netns exec "$(ns h3)" unshare --uts sh -c 'hostname "$1" && exec "$2" --config "$3" --inventory' \
	- "$long" "$IB_HOOK" "$cfg" >"$T_DIR/long.json"
check "item 4: --inventory writes the 64-byte name" grep -q "\"host\":\"$long\"" "$T_DIR/long.json"
grep -v '"host":"h3"' "$T_DIR/inventory.json" >"$T_DIR/inv-long.json"
cat "$T_DIR/long.json" >>"$T_DIR/inv-long.json"
expect_rc "  the join reads it back" 1 "$IB_HOOK" --join --fleet "$T_DIR/inv-long.json" </dev/null
check "  naming that host" grep -q "$long" "$T_DIR/out"
expect_rc "  and --check --fleet on that host finds itself in it" 0 \
	ip netns exec "$(ns h3)" unshare --uts sh -c 'hostname "$1" && exec "$2" --check --fleet "$3" --json' \
	- "$long" "$IB_HOOK" "$T_DIR/inv-long.json"
check "  under that name" grep -q "^{\"version\":2,\"host\":\"$long\"" "$T_DIR/out"

# issue 47 item 3: h1 holds 172.16.3.1 (h3 ib0) on ib0 as h3 ib1's hardware
# address (a static entry), and h3 ib1 has rp_filter=1: h1's replies to
# 172.16.3.1 go to h3 ib1, whose reverse-path check drops them (h3's way
# back to h1 leaves through ib0); with rp_filter=0 there, or arp_filter=1
# alone, they are taken
h3mac1=$(mac h3 ib1)
ip -n "$(ns h1)" neigh replace 172.16.3.1 lladdr "$h3mac1" dev ib0 nud permanent
nsx h3 sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.ib1.rp_filter=1
expect_rc "issue 47 item 3: h3 ib0 -> h1 ib0 gets no reply (h1's entry sends it to h3 ib1, rp_filter=1)" 1 \
	nsx h3 ping -c 1 -W 2 -I 172.16.3.1 172.16.1.1
expect_rc "  h3 ib0 -> h1 ib1 does (h1 ib1's own entry)" 0 nsx h3 ping -c 1 -W 2 -I 172.16.3.1 172.16.1.2
steps
check "  the join names both ways at h1 ib0, the entry's holder, and nothing else" python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
bad = sorted((p["from"]["host"], p["from"]["interface"], p["to"]["host"], p["to"]["interface"], p["verdict"],
              p["at"]["host"], p["at"]["interface"]) for p in m["pairs"] if p["verdict"] not in ("ok", "local"))
print("# %s" % bad)
sys.exit(bad != [("h1", "ib0", "h3", "ib0", "neigh-stale", "h1", "ib0"),
                 ("h3", "ib0", "h1", "ib0", "neigh-stale", "h1", "ib0")])' "$T_DIR/matrix.json"
check "  saying where the reply goes and what drops it" grep -q "the reply from 172.16.1.1 goes to ib1 of h3, where rp_filter=1 drops it" "$T_DIR/matrix.json"
nsx h3 sysctl -qw net.ipv4.conf.ib1.rp_filter=0 net.ipv4.conf.ib1.arp_filter=1
expect_rc "  with rp_filter=0 and arp_filter=1 there, the reply is taken" 0 \
	nsx h3 ping -c 1 -W 2 -I 172.16.3.1 172.16.1.1
steps
check "  and the join names the pair into 172.16.3.1 only" python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
bad = sorted((p["from"]["host"], p["from"]["interface"], p["to"]["host"], p["to"]["interface"], p["verdict"])
             for p in m["pairs"] if p["verdict"] not in ("ok", "local"))
print("# %s" % bad)
sys.exit(bad != [("h1", "ib0", "h3", "ib0", "neigh-stale")])' "$T_DIR/matrix.json"
nsx h3 sysctl -qw net.ipv4.conf.ib1.arp_filter=0
ip -n "$(ns h1)" neigh del 172.16.3.1 dev ib0

# item 1: the inventory, then 172.16.1.2 moves from h1 ib1 to h3 ib1
fleet "$T_DIR/on" %h "$IB_HOOK" --config "$cfg" --inventory >"$T_DIR/inventory.json"
ip -n "$(ns h1)" addr del 172.16.1.2/16 dev ib1
addr h3 ib1 172.16.1.2/16
apply
h1mac=$(mac h1 ib1)
h3mac=$(mac h3 ib1)
ip -n "$(ns h2)" neigh flush dev ib0
ip -n "$(ns h2)" neigh flush dev ib1
nsx h2 ping -c 1 -W 2 -I 172.16.2.1 172.16.1.2 >/dev/null 2>&1
before=$(ip -n "$(ns h2)" neigh show 172.16.1.2 | awk '{print $5}' | sort -u | tr '\n' ' ')
expect_eq "item 1: h2 reaches 172.16.1.2 at h3's ib1" "$h3mac " "$before"
expect_rc "  h1's check with the stale inventory: exit 1" 1 \
	"$T_DIR/on" h1 "$IB_HOOK" --check --fleet "$T_DIR/inventory.json"
check "  saying the inventory is stale" grep -q "^stale inventory: it lists 172.16.1.2/16 on ib1 of h1, which does not hold it now" "$T_DIR/out"
check "  checking nothing from 172.16.1.2" sh -c "! grep -q '^ib1 172.16.1.2 ' '$T_DIR/out'"
after=$(ip -n "$(ns h2)" neigh show 172.16.1.2 | awk '{print $5}' | sort -u | tr '\n' ' ')
expect_eq "  h2's neighbour entry for 172.16.1.2 is still h3's ib1 (not h1's $h1mac)" "$h3mac " "$after"
check "  h2 still reaches 172.16.1.2" nsx h2 ping -c 1 -W 2 -I 172.16.2.1 172.16.1.2
fleet "$T_DIR/on" %h "$IB_HOOK" --check --fleet "$T_DIR/inventory.json" --json >"$T_DIR/answers.json"
check "  the answers name it stale (JSON), from h1 and from h3" python3 -c 'import json,sys
seen = set()
for l in open(sys.argv[1]):
    d = json.loads(l)
    for s in d.get("stale", []):
        if (s["host"], s["interface"], s["address"]) == ("h1", "ib1", "172.16.1.2/16"):
            seen.add(d["host"])
sys.exit(seen != {"h1", "h3"})' "$T_DIR/answers.json"
check "  valid answers" valid answers "$T_DIR/answers.json"
expect_rc "  the join: not ok" 1 "$IB_HOOK" --join --fleet "$T_DIR/inventory.json" --json "$T_DIR/answers.json"
cp "$T_DIR/out" "$T_DIR/matrix.json"
check "  valid matrix" valid matrix "$T_DIR/matrix.json"
check "  every pair of h1 ib1 (8) is stale at h1 ib1, no other pair fails" python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
bad = [(p["from"]["host"], p["from"]["interface"], p["to"]["host"], p["to"]["interface"], p["verdict"], p.get("at"))
       for p in m["pairs"] if p["verdict"] not in ("ok", "local")]
want = all(v == "stale" and a == {"host": "h1", "interface": "ib1"} and ("h1", "ib1") in ((f, i), (t, j))
           for f, i, t, j, v, a in bad)
print("# %d failing: %s" % (len(bad), sorted(set(v for *_, v, _ in bad))))
sys.exit(not (want and len(bad) == 8 and m["ok"] is False))' "$T_DIR/matrix.json"
"$IB_HOOK" --join --fleet "$T_DIR/inventory.json" "$T_DIR/answers.json" >"$T_DIR/matrix.txt"
check "  the text says so" grep -q "^stale at h1 ib1 (8 pairs)" "$T_DIR/matrix.txt"

# item 12: a host and an interface named with markup, through the page and the JSON
python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["host"] == "h2":
        d["host"] = "h2<i>&\"x\x27"
        d["ports"][0]["interface"] = "i<&\"\x270"
    print(json.dumps(d))' "$T_DIR/inventory.json" >"$T_DIR/markup.json"
"$IB_HOOK" --join --fleet "$T_DIR/markup.json" --html </dev/null >"$T_DIR/markup.html"
check "item 12: the page has its 30 cells and no element of a name" python3 -c 'import html.parser,sys
class P(html.parser.HTMLParser):
    cells, named, odd = 0, 0, 0
    def handle_starttag(self, tag, attrs):
        P.odd += tag in ("i", "x")
        if tag == "td" and "cell" in dict(attrs).get("class", ""):
            P.cells += 1
            P.named += "h2<i>&\"x\x27 i<&\"\x270 -> " in dict(attrs).get("title", "")
P().feed(open(sys.argv[1]).read())
print("# %d cells, %d from the named port, %d stray elements" % (P.cells, P.named, P.odd))
sys.exit(not (P.cells == 30 and P.named == 5 and P.odd == 0))' "$T_DIR/markup.html"
"$IB_HOOK" --join --fleet "$T_DIR/markup.json" --json </dev/null >"$T_DIR/markup-matrix.json"
check "  the JSON gives both names back as they are" python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
sys.exit(not any(p["from"] == {"host": "h2<i>&\"x\x27", "interface": "i<&\"\x270"} for p in m["pairs"]))' \
	"$T_DIR/markup-matrix.json"
done_testing
