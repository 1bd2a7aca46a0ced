#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What an admin sees (issue 15): --status verdicts (ok, drift, down, refused),
# leftovers, the summary line, its exit codes; --dry-run exactly what apply
# would do; --json for both, checked against doc/ib-hook.schema.json.
. "$(dirname "$0")/common.sh"
t_require python3

src_root=${IB_HOOK_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
schema=$src_root/doc/ib-hook.schema.json
valid() { # valid TITLE < JSON
	python3 "$src_root/tests/validate-json.py" "$schema" "$1"
}
jq_() { # jq_ EXPR < JSON: one value, as python prints it
	python3 -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"
}

memserver34 st
m=$(ns st)
C=(--config "$T_DIR/default.conf")

expect_rc "never applied: --status" 1 ibh st "${C[@]}" --status
check "  says drift for both" test "$(grep -c 'verdict: drift' "$T_DIR/out")" = 2
check "  and the summary counts them" grep -q "^2 managed: 0 ok, 2 drift, 0 down, 0 refused; 0 leftover(s); config: $T_DIR/default.conf; record: " "$T_DIR/out"
expect_rc "--dry-run" 0 ibh st "${C[@]}" --dry-run --all
dry=$(cat "$T_DIR/out")
check "  prints the commands apply runs" grep -q "^ip rule add from 172.16.34.2 lookup $(table_of st ib1) priority 1000 protocol kernel\$" "$T_DIR/out"
expect_rc "apply" 0 ibh st "${C[@]}" --all
# announced: --dry-run's commands; done: apply's lines; both as
# "route IF DST SRC TABLE", "rule SRC TABLE PRIORITY", "sysctl IF KEY=VALUE"
announced() {
	sed -n -e 's/^ip route append \([^ ]*\) dev \([^ ]*\) proto kernel scope link src \([^ ]*\) table \([0-9]*\)$/route \2 \1 \3 \4/p' \
		-e 's/^ip rule add from \([^ ]*\) lookup \([0-9]*\) priority \([0-9]*\) protocol kernel$/rule \1 \2 \3/p' \
		-e 's/^sysctl -w net\.ipv4\.conf\.\([^.]*\)\.\([a-z_]*=[0-9]*\)$/sysctl \1 \2/p' | sort
}
done_() {
	sed -n -e 's/^\([^:]*\): added route \([^ ]*\) src \([^ ]*\) in table \([0-9]*\)$/route \1 \2 \3 \4/p' \
		-e 's/^[^:]*: added rule from \([^ ]*\) lookup \([0-9]*\) priority \([0-9]*\)$/rule \1 \2 \3/p' \
		-e 's/^\([^:]*\): set \([a-z_]*=[0-9]*\)$/sysctl \1 \2/p' | sort
}
kinds() { awk '{ n[$1]++ } END { printf "%d rules, %d routes, %d sysctls", n["rule"], n["route"], n["sysctl"] }'; }
expect_eq "  --dry-run announced a rule and a route per port, 2 sysctls per port" \
	"2 rules, 2 routes, 4 sysctls" "$(echo "$dry" | announced | kinds)"
expect_eq "  made exactly the changes --dry-run announced" "$(echo "$dry" | announced)" "$(done_ <"$T_DIR/err")"
# what apply made, read from the kernel, each kind on its own (not ib-hook's
# words, nor its plan compared with itself)
t0=$(table_of st ib0)
t1=$(table_of st ib1)
expect_eq "  the kernel holds a rule from each address to its port's table" \
	"from 172.16.34.1 lookup $t0
from 172.16.34.2 lookup $t1" \
	"$(ip -n "$m" rule show priority 1000 | sed 's/^[0-9]*:[[:space:]]*//; s/[[:space:]]*$//' | sort)"
expect_eq "  the kernel holds T(ib0)'s prefix route" \
	"172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1" "$(table st "$t0")"
expect_eq "  the kernel holds T(ib1)'s prefix route" \
	"172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2" "$(table st "$t1")"
expect_eq "  the kernel holds the ARP sysctls" "ib0 2 2 ib1 2 2" "$(for i in ib0 ib1; do
	echo "$i" $(nsx st cat "/proc/sys/net/ipv4/conf/$i/arp_ignore" "/proc/sys/net/ipv4/conf/$i/arp_announce")
done | tr '\n' ' ' | sed 's/ $//')"
expect_rc "--status" 0 ibh st "${C[@]}" --status
check "  ok for both" test "$(grep -c 'verdict: ok' "$T_DIR/out")" = 2
check "  names the sysctls in words" grep -q "sysctl: arp_ignore=2 arp_announce=2 rp_filter=" "$T_DIR/out"
expect_rc "--dry-run after apply" 0 ibh st "${C[@]}" --dry-run --all
expect_eq "  prints nothing" "" "$(cat "$T_DIR/out")"

# conf/all overriding a wanted value is nothing apply can repair: a warning,
# not drift (issue 20, item 7)
nsx st sysctl -qw net.ipv4.conf.all.arp_ignore=8
expect_rc "all.arp_ignore=8: apply" 0 ibh st "${C[@]}" --all
expect_eq "  has nothing to do" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
expect_rc "  --dry-run" 0 ibh st "${C[@]}" --dry-run --all
expect_eq "  prints nothing" "" "$(cat "$T_DIR/out")"
expect_rc "  --status agrees: ok" 0 ibh st "${C[@]}" --status
check "  ok for both" test "$(grep -c 'verdict: ok' "$T_DIR/out")" = 2
check "  warns for both" test "$(grep -c '^  warning: net.ipv4.conf.all.arp_ignore=8 overrides arp_ignore=2$' "$T_DIR/out")" = 2
ibh st "${C[@]}" --status --json >"$T_DIR/json"
check "  --json is valid" valid status <"$T_DIR/json"
expect_eq "  --json: ok, with the warning" "ok ok net.ipv4.conf.all.arp_ignore=8 overrides arp_ignore=2 True" \
	"$(jq_ '" ".join([i["verdict"] for i in d["interfaces"]] + [d["interfaces"][0]["warnings"][0], str(d["ok"])])' <"$T_DIR/json")"
nsx st sysctl -qw net.ipv4.conf.all.arp_ignore=0

# a port that is down is no drift: monitoring must not page for an unplugged cable
ip -n "$m" link set ib1 down
expect_rc "ib1 down: --status" 0 ibh st "${C[@]}" --status
check "  says down" grep -q "verdict: down" "$T_DIR/out"
ip -n "$m" link set ib1 up
ibh st "${C[@]}" --all 2>/dev/null

# drift: what is missing, and the command that repairs it, for each kind
ip -n "$m" route del 172.16.0.0/16 dev ib0 table "$t0"
expect_rc "T(ib0)'s route deleted by hand: --status" 1 ibh st "${C[@]}" --status
check "  says which" grep -q "address 172.16.34.1/16: rule ok; table route 172.16.0.0/16 missing" "$T_DIR/out"
check "  and the repair" grep -q "pending: ip route append 172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1 table $t0" "$T_DIR/out"
ibh st "${C[@]}" --all 2>/dev/null
nsx st sysctl -qw net.ipv4.conf.ib0.arp_announce=0
expect_rc "ib0's arp_announce set to 0 by hand: --status" 1 ibh st "${C[@]}" --status
check "  says which" grep -q "arp_announce=0 (wanted 2)" "$T_DIR/out"
ibh st "${C[@]}" --all 2>/dev/null
ip -n "$m" rule del from 172.16.34.2 lookup "$t1" priority 1000
expect_rc "rule deleted by hand: --status" 1 ibh st "${C[@]}" --status
check "  says which" grep -q "address 172.16.34.2/16: rule missing" "$T_DIR/out"
check "  and the repair" grep -q "pending: ip rule add from 172.16.34.2 lookup $t1 priority 1000 protocol kernel" "$T_DIR/out"
ibh st "${C[@]}" --status --json >"$T_DIR/json"
check "  --json is valid" valid status <"$T_DIR/json"
expect_eq "  --json: ib1 drift, ok false" "drift False" \
	"$(jq_ '[i["verdict"] for i in d["interfaces"] if i["name"] == "ib1"][0], d["ok"]' <"$T_DIR/json" | tr -d "(),'")"
ibh st "${C[@]}" --dry-run --json --all >"$T_DIR/json"
check "--dry-run --json is valid" valid dry-run <"$T_DIR/json"
expect_eq "  lists the rule to add" "ip rule add from 172.16.34.2 lookup $t1 priority 1000 protocol kernel" \
	"$(jq_ '[o["command"] for o in d["operations"] if o["command"].startswith("ip rule")][0]' <"$T_DIR/json")"
ibh st "${C[@]}" --all 2>/dev/null

# leftovers of an earlier configuration
printf '%s\n[Routing]\nPriority=900\n' "$(cat "$T_DIR/default.conf")" | conf st900
expect_rc "Priority changed: --status" 1 ibh st --config "$T_DIR/st900.conf" --status
check "  lists the leftovers" test "$(grep -c '^leftover of an earlier configuration' "$T_DIR/out")" = 2
ibh st --config "$T_DIR/st900.conf" --status --json >"$T_DIR/json"
check "  --json is valid" valid status <"$T_DIR/json"
expect_eq "  --json: 2 leftovers" 2 "$(jq_ 'len(d["leftovers"])' <"$T_DIR/json")"

# refused, unmanaged, none
ip -n "$m" route add 10.5.0.0/16 dev pib0 table "$t1"
expect_rc "a foreign route in T(ib1): --status" 1 ibh st "${C[@]}" --status --iface ib1
check "  says refused, and why" grep -q "verdict: refused: table $t1 holds route 10.5.0.0/16 dev pib0" "$T_DIR/out"
ip -n "$m" route del 10.5.0.0/16 dev pib0 table "$t1"
expect_rc "--status --iface pib0 (not managed)" 1 ibh st "${C[@]}" --status --iface pib0
check "  says why" grep -q "pib0: not managed: no \[Match\] Name= glob matches it (Name=ib0 ib1 ibs5f0 ibs5f1)" "$T_DIR/out"
printf '[Match]\nName=nothing*\n' | conf none
expect_rc "no managed interface: --status" 1 ibh st --config "$T_DIR/none.conf" --status
check "  says so, with the file" grep -q "^0 managed: .*config: $T_DIR/none.conf" "$T_DIR/out"
check "  and what the selection was" grep -qx "no managed interface: no link matches \[Match\] Name=nothing\*" "$T_DIR/out"
ibh st --config "$T_DIR/none.conf" --status --json >"$T_DIR/json"
check "  --json is valid" valid status <"$T_DIR/json"
expect_rc "--json without --status or --dry-run" 2 ibh st "${C[@]}" --json --all

# names that are not UTF-8 (Linux allows any byte but '/', ':', blanks):
# every document stays valid UTF-8 and gives the bytes back (issue 20, item 9)
ns_new raw
r=$(ns raw)
ip -n "$r" link add $'ib\xff' type veth peer name pa || exit 1
ip -n "$r" link add $'ib\xc3\xbf' type veth peer name pb || exit 1
for i in $'ib\xff' $'ib\xc3\xbf'; do
	ip -n "$r" link set "$i" up
done
addr raw $'ib\xff' 172.16.34.1/16
addr raw $'ib\xc3\xbf' 172.16.34.2/16
printf '[Match]\nName=ib*\n' | conf $'raw\xff'
R=(--config "$T_DIR/raw"$'\xff'".conf")
# names NAME...: the names of the document on stdin as Python's bytes, sorted
names() {
	python3 -c 'import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8"))
print(sorted(eval(sys.argv[1]).encode("utf-8", "surrogateescape") for i in d[sys.argv[2]]))' "$@"
}
expect_rc "names with a byte 0xff: --status --json" 1 ibh raw "${R[@]}" --status --json
cp "$T_DIR/out" "$T_DIR/json"
check "  is valid UTF-8 and valid against the schema" valid status <"$T_DIR/json"
expect_eq "  gives back both names, byte for byte" "[b'ib\\xc3\\xbf', b'ib\\xff']" \
	"$(names 'i["name"]' interfaces <"$T_DIR/json")"
expect_eq "  and the config file's name" "[b'$T_DIR/raw\\xff.conf']" \
	"$(names 'i' config_files <"$T_DIR/json")"
expect_rc "  --dry-run --json" 0 ibh raw "${R[@]}" --dry-run --json --all
cp "$T_DIR/out" "$T_DIR/json"
check "  is valid UTF-8 and valid against the schema" valid dry-run <"$T_DIR/json"
expect_eq "  names both interfaces, byte for byte" "[b'ib\\xc3\\xbf', b'ib\\xff']" \
	"$(names 'i["interface"]' operations <"$T_DIR/json" | python3 -c 'import ast, sys; print(sorted(set(ast.literal_eval(sys.stdin.read()))))')"
expect_rc "  --status (text)" 1 ibh raw "${R[@]}" --status
check "  keeps the name's bytes, as ip(8) does" grep -q $'^ib\xff: table ' "$T_DIR/out"
done_testing
