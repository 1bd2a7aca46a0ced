#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The join at cluster scale (issue 39), on synthetic documents of 64 hosts x
# 8 ports (bench/join_docs.py; no namespace, nothing of the network): every
# fault kind the generator injects is named exactly (cause and place, every
# pair, against the pairs the generator computes on its own), in answers of
# version 1 (a record per pair), version 2 (routes by class, each address's
# ARP probed by one other host: the rest derived) and both mixed, which give
# the same verdicts; the summary says the coverage; the text stays one
# screen; JSON lists the failing pairs (all with --all-pairs); the page
# draws host blocks and a host's own port matrix; bad input is an error.
. "$(dirname "$0")/../lib.sh"
src=${IB_HOOK_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
t_require python3
trap 'rm -rf "$T_DIR"' EXIT
gen() { python3 "$src/bench/join_docs.py" --hosts 64 --ports 8 "$@"; }

faults="--fault no-rule:3:2 --fault wrong-port:5:1 --fault arp-flux:7:3 --fault port-down:9:0
	--fault no-answer:11:4 --fault address-conflict:13:1:14:2 --fault hwaddr-conflict:20:5:21:6"
# shellcheck disable=SC2086
gen --version 1 $faults --out "$T_DIR/v1" --expect "$T_DIR/expect"
# shellcheck disable=SC2086
gen --version 2 $faults --out "$T_DIR/v2"
# shellcheck disable=SC2086
gen --version 2 $faults --fault neigh-stale:30:1:31:2 --out "$T_DIR/v2n" --expect "$T_DIR/expect-n"
# the first 32 hosts' answers of version 1, the others' of version 2, in one file
{ head -n 32 "$T_DIR/v1/answers.json" && tail -n 32 "$T_DIR/v2/answers.json"; } >"$T_DIR/mixed.json"

# same MATRIX EXPECT: the failing pairs of MATRIX are exactly EXPECT's lines
same() {
	python3 - "$@" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
got = {(p["from"]["host"], p["from"]["interface"], p["to"]["host"], p["to"]["interface"],
        p["verdict"], p["at"]["host"], p["at"]["interface"])
       for p in m["pairs"] if p["verdict"] not in ("ok", "local")}
want = {tuple(l.split()) for l in open(sys.argv[2])}
causes = sorted({w[4] for w in want})
print("#   %d failing pairs wanted, %d got; %d missing, %d not wanted; causes %s"
      % (len(want), len(got), len(want - got), len(got - want), " ".join(causes)))
for w in sorted(want - got)[:3] + sorted(got - want)[:3]:
    print("#     " + " ".join(w))
s = m["summary"]
sys.exit(not (got == want and m["listed"] == "failing"
              and s["not_ok"] == sum(w[4] != "unknown" for w in want)
              and s["unknown"] == sum(w[4] == "unknown" for w in want)
              and s["pairs"] == 512 * 511 and s["local"] == 64 * 8 * 7))
PY
}
valid_matrix() { python3 "$src/tests/validate-json.py" "$src/doc/ib-hook-fleet.schema.json" matrix <"$1"; }
for v in v1 v2 mixed; do
	ans=$T_DIR/$v/answers.json
	[ "$v" = mixed ] && ans=$T_DIR/mixed.json
	expect_rc "$v: the join says not ok" 1 "$IB_HOOK" --join --fleet "$T_DIR/v1/inventory.json" --json "$ans"
	cp "$T_DIR/out" "$T_DIR/$v.json"
	check "  every fault named exactly, at the right host and port" same "$T_DIR/$v.json" "$T_DIR/expect"
done
expect_rc "v2 with a stale neighbour entry: not ok" 1 "$IB_HOOK" --join --fleet "$T_DIR/v2n/inventory.json" --json "$T_DIR/v2n/answers.json"
cp "$T_DIR/out" "$T_DIR/v2n.json"
check "  neigh-stale named at the host holding the entry, the rest as before" same "$T_DIR/v2n.json" "$T_DIR/expect-n"
check "  the new causes are in the expectation" grep -q ' neigh-stale n30 ib1$' "$T_DIR/expect-n"
# RDMA CM past 32 peers: asked for one peer of the class; a port whose sample
# resolved through another port's device has every pair of the class named
# shellcheck disable=SC2086
gen --version 2 $faults --fault cm-wrong-port:40:3 --out "$T_DIR/v2c" --expect "$T_DIR/expect-c"
expect_rc "v2, RDMA CM sampled: not ok" 1 "$IB_HOOK" --join --fleet "$T_DIR/v2c/inventory.json" --json "$T_DIR/v2c/answers.json"
cp "$T_DIR/out" "$T_DIR/v2c.json"
check "  wrong-port (RDMA CM) named for every pair of n40 ib3's class, the rest as before" same "$T_DIR/v2c.json" "$T_DIR/expect-c"
check "  ... $(grep -c ' wrong-port n40 ib3$' "$T_DIR/expect-c") pairs of them, of one sample" test "$(grep -c ' wrong-port n40 ib3$' "$T_DIR/expect-c")" -gt 400
check "  ... each saying which peer RDMA CM was asked for" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
w = [p["why"] for p in m["pairs"] if p["verdict"] == "wrong-port" and p["at"] == {"host": "n40", "interface": "ib3"}]
sys.exit(not (len(w) > 400 and sum("a peer 10.0.40.4 routes as it routes" in x for x in w) == len(w) - 1))' "$T_DIR/v2c.json"

# issue 47 item 2: the host that alone asks n7 ib0's address (FleetProbers=1,
# sample.c's choice) sends no answers: the pairs into n7 ib0, broken by n7
# ib3's ARP flux (before: ok), are unknown, never ok, as is every pair only
# it was to check; the summary names it. FleetProbers=2 leaves no hole.
prober=$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import join_docs as j
f = j.Fleet(64, 8, [], silent=1)
print(f.probers((7, 0))[0][0])' "$src/bench")
# shellcheck disable=SC2086
gen --version 2 $faults --silent "$prober" --out "$T_DIR/v2s" --expect "$T_DIR/expect-s"
"$IB_HOOK" --join --fleet "$T_DIR/v2s/inventory.json" --json "$T_DIR/v2s/answers.json" >"$T_DIR/v2s.json"
check "n$prober, which alone asks ARP for n7 ib0, sent no answers: every pair named exactly, the unknown ones too" same "$T_DIR/v2s.json" "$T_DIR/expect-s"
check "  no pair into n7 ib0 (ARP flux breaks each) is ok: the 504 fail, unknown there, saying who did not probe them" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
into = [p for p in m["pairs"] if p["to"] == {"host": "n7", "interface": "ib0"}]
unknown = [p for p in into if p["verdict"] == "unknown" and p["at"] == p["to"]]
print("#   %d pairs into n7 ib0 fail, %d of them not probed" % (len(into), len(unknown)))
sys.exit(not (len(into) == 504 and len(unknown) > 400 and
              all(p["why"].startswith("not probed: n%s sent no answers" % sys.argv[2]) for p in unknown)))' "$T_DIR/v2s.json" "$prober"
check "  the summary names the hole (JSON)" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
w = [l.split() for l in open(sys.argv[2])]
own = sum(1 for l in w if l[4] == "unknown" and l[0] == "n" + sys.argv[3])
holes = sum(1 for l in w if l[4] == "unknown" and l[0] != "n" + sys.argv[3])
print("#   %d pairs from it, %d not probed" % (own, holes))
sys.exit(m["summary"]["missing"] != [{"host": "n" + sys.argv[3], "unknown_from": own, "not_probed": holes}])' \
	"$T_DIR/v2s.json" "$T_DIR/expect-s" "$prober"
check "  a valid matrix" valid_matrix "$T_DIR/v2s.json"
"$IB_HOOK" --join --fleet "$T_DIR/v2s/inventory.json" "$T_DIR/v2s/answers.json" >"$T_DIR/v2s.txt"
sed -n 2p "$T_DIR/v2s.txt" | sed 's/^/# /'
check "  the text names it under the summary" grep -q "^missing answers: n$prober sent none: [1-9][0-9]* pairs from it unknown, [1-9][0-9]* pairs it was to probe (ARP) unknown$" "$T_DIR/v2s.txt"
"$IB_HOOK" --join --fleet "$T_DIR/v2s/inventory.json" --html "$T_DIR/v2s/answers.json" >"$T_DIR/v2s.html"
check "  so does the page" grep -q "^<p class=\"hole\">missing answers: n$prober sent none: [1-9][0-9]* pairs" "$T_DIR/v2s.html"
# shellcheck disable=SC2086
gen --version 2 $faults --silent "$prober" --probers 2 --out "$T_DIR/v2s2" --expect "$T_DIR/expect-s2"
"$IB_HOOK" --join --fleet "$T_DIR/v2s2/inventory.json" --json "$T_DIR/v2s2/answers.json" >"$T_DIR/v2s2.json"
check "  FleetProbers=2: no hole, n7 ib0's pairs arp-flux again, n$prober's own unknown" same "$T_DIR/v2s2.json" "$T_DIR/expect-s2"
check "  ... none of them not probed" test "$(grep -c " unknown " "$T_DIR/expect-s2")" = "$(grep -c "^n$prober .* unknown " "$T_DIR/expect-s2")"

# issue 47 item 3: four ports of three peers hold n6 ib0's address as n6 ib1's
# hardware address, and n6 ib1 has rp_filter=1: the pairs into n6 ib0 from
# them and the pairs from n6 ib0 to them (their replies go to ib1 and are
# dropped there) are neigh-stale at the entries' holders
held="--fault neigh-stale:10:0:6:0 --fault neigh-stale:10:1:6:0 --fault neigh-stale:20:3:6:0 --fault neigh-stale:33:5:6:0"
# shellcheck disable=SC2086
gen --version 2 $faults $held --fault rp-strict:6:1 --out "$T_DIR/v2r" --expect "$T_DIR/expect-r"
"$IB_HOOK" --join --fleet "$T_DIR/v2r/inventory.json" --json "$T_DIR/v2r/answers.json" >"$T_DIR/v2r.json"
check "neigh-stale of n6 ib0 at 4 holders, n6 ib1 with rp_filter=1: every pair named exactly" same "$T_DIR/v2r.json" "$T_DIR/expect-r"
check "  the 4 pairs from n6 ib0 to the holders among them, at the holders" \
	test "$(grep -c "^n6 ib0 n[0-9]* ib[0-9] neigh-stale " "$T_DIR/expect-r")" = 4
check "  saying where the reply goes and what drops it" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
w = [p for p in m["pairs"] if p["verdict"] == "neigh-stale" and p["from"] == {"host": "n6", "interface": "ib0"}]
sys.exit(not (len(w) == 4 and all(p["at"] == p["to"] and "goes to ib1 of n6, where rp_filter=1 drops it" in p["why"] for p in w)))' "$T_DIR/v2r.json"
# shellcheck disable=SC2086
gen --version 2 $faults $held --out "$T_DIR/v2n4" --expect "$T_DIR/expect-n4"
"$IB_HOOK" --join --fleet "$T_DIR/v2n4/inventory.json" --json "$T_DIR/v2n4/answers.json" >"$T_DIR/v2n4.json"
check "  without rp_filter=1 there the replies are taken: the pairs into n6 ib0 alone" same "$T_DIR/v2n4.json" "$T_DIR/expect-n4"
check "  ... 4 of them" test "$(grep -c " neigh-stale " "$T_DIR/expect-n4")" = 4

# coverage: version 1 probes every pair itself; version 2 derives most
cov() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print(s["arp_probed"], s["arp_derived"])' "$1"; }
read -r p1 d1 <<<"$(cov "$T_DIR/v1.json")"
read -r p2 d2 <<<"$(cov "$T_DIR/v2.json")"
echo "# coverage: v1 probed $p1 derived $d1; v2 probed $p2 derived $d2"
check "  v1: every ARP verdict probed by its own source" test "$d1" = 0 -a "$p1" -gt 200000
check "  v2: most derived, the pairs of each address's prober probed" test "$d2" -gt 200000 -a "$p2" -gt 0 -a "$p2" -lt 2000

"$IB_HOOK" --join --fleet "$T_DIR/v2/inventory.json" "$T_DIR/v2/answers.json" >"$T_DIR/text"
head -n 1 "$T_DIR/text" | sed 's/^/# /'
check "the summary line says the coverage" grep -Eq '^261632 pairs: [0-9]+ ok, [0-9]+ not ok, 3584 local \(not judged\); ARP probed for [0-9]+, derived for [0-9]+$' "$T_DIR/text"
check "  the text stays one screen (at most 100 lines)" test "$(wc -l <"$T_DIR/text")" -le 100
check "  and says how many more" grep -q ' and [0-9]* more' "$T_DIR/text"
"$IB_HOOK" --join --fleet "$T_DIR/v2/inventory.json" --all-pairs "$T_DIR/v2/answers.json" >"$T_DIR/text-all"
check "  --all-pairs lists every failing pair" test "$(grep -c ' -> ' "$T_DIR/text-all")" -gt "$(grep -c ' -> ' "$T_DIR/text")"
"$IB_HOOK" --join --fleet "$T_DIR/v2/inventory.json" --json --all-pairs "$T_DIR/v2/answers.json" >"$T_DIR/all.json"
check "  --json --all-pairs lists every pair" python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(not (m["listed"] == "all" and len(m["pairs"]) == 261632))' "$T_DIR/all.json"

# the page: 64 hosts, a cell per host pair; a host's own port matrix on request
"$IB_HOOK" --join --fleet "$T_DIR/v2/inventory.json" --html "$T_DIR/v2/answers.json" >"$T_DIR/page.html"
check "the page: a block per host pair (64 x 64)" test "$(grep -o '<td class="[a-z-]*" title=' "$T_DIR/page.html" | wc -l)" = 4096
check "  n8 -> n7: arp-flux with its count (n7 ib3 answers for its 7 other ports: 56 of 64 pairs)" \
	grep -q '<td class="arp-flux" title="n8 -&gt; n7: 64 pairs, 8 ok, 56 arp-flux">56</td>' "$T_DIR/page.html"
check "  fetches nothing" lacks '<[sS][cC][rR][iI][pP][tT]|<[lL][iI][nN][kK]|[sS][rR][cC]=|[hH][tT][tT][pP][sS]?://' cat "$T_DIR/page.html"
"$IB_HOOK" --join --fleet "$T_DIR/v2/inventory.json" --html --host n7 "$T_DIR/v2/answers.json" >"$T_DIR/n7.html"
check "--host n7: n7's ports against the hosts it has failing pairs with" grep -q "<td class=\"cell arp-flux\" title=\"n1 ib0 -> n7 ib0: arp-flux at n7 ib3" "$T_DIR/n7.html"
expect_rc "--host of no such host: exit 2" 2 "$IB_HOOK" --join --fleet "$T_DIR/v2/inventory.json" --html --host nx "$T_DIR/v2/answers.json"
expect_rc "--host without --html: exit 2" 2 "$IB_HOOK" --join --fleet "$T_DIR/v2/inventory.json" --host n7 "$T_DIR/v2/answers.json"

# bad input: a clear error naming the byte, nothing printed
head -c 100000 "$T_DIR/v2/answers.json" >"$T_DIR/cut.json"
expect_rc "an answer cut short: exit 2" 2 "$IB_HOOK" --join --fleet "$T_DIR/v2/inventory.json" "$T_DIR/cut.json"
check "  says where" grep -q "is no answer of --check --fleet (ib-hook(8)), near byte" "$T_DIR/err"
sed '1s/"version":2/"version":3/' "$T_DIR/v2/answers.json" >"$T_DIR/v3.json"
expect_rc "an answer of an unknown version: exit 2" 2 "$IB_HOOK" --join --fleet "$T_DIR/v2/inventory.json" "$T_DIR/v3.json"
done_testing
