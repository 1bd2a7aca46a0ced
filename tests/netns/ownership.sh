#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Ownership (issue 11): each way 0.1.0 broke "ib-hook changes only what it
# installed", reproduced in a namespace of its own, with the outcome SPEC
# section 3 asks for. Foreign objects are compared byte for byte (ip -d -j).
. "$(dirname "$0")/common.sh"
t_require

# rules_json NS PATTERN: the foreign rules (ip -d -j) whose text matches PATTERN
rules_json() {
	for f in -4 -6; do
		ip -n "$(ns "$1")" "$f" -d -j rule show | python3 -c '
import json, sys
pat = sys.argv[1]
for r in json.load(sys.stdin):
    if pat in json.dumps(r, sort_keys=True):
        print(json.dumps(r, sort_keys=True))' "$2"
	done
}

# routes_json NS TABLE: every route of TABLE (ip -d -j), both families
routes_json() {
	ip -n "$(ns "$1")" -d -j route show table "$2"
	ip -n "$(ns "$1")" -6 -d -j route show table "$2"
}

cfg() { # cfg NAME: the default config plus stdin
	{ cat "$T_DIR/default.conf"; cat; } | conf "$1"
}
cfg plain </dev/null

# -- 1. a foreign rule must never be deleted in place of ib-hook's -----------
memserver34 c1
t1=$(table_of c1 ib1)
m=$(ns c1)
ip -n "$m" rule add from 172.16.34.2 iif ib0 lookup "$t1" priority 1000
ip -n "$m" rule add from 172.16.34.2 fwmark 0x5 lookup "$t1" priority 1000 proto kernel
ip -n "$m" rule add from 172.16.34.2 lookup "$t1" priority 1000 proto static
ip -n "$m" -6 addr add 2001:db8:34::2/64 dev ib1 nodad
ip -n "$m" -6 rule add from 2001:db8:34::2 iif ib0 lookup "$t1" priority 1000 proto kernel
foreign=$(rules_json c1 '"iif"'; rules_json c1 fwmark; rules_json c1 static)
expect_rc "1: apply next to iif, fwmark and static rules" 0 ibh c1 --config "$T_DIR/plain.conf" --all
expect_eq "1: ib-hook's rules are there once" "1 1" \
	"$(ip -n "$m" -d rule | grep -c "from 172.16.34.2 lookup $t1 proto kernel *\$") $(ip -n "$m" -6 -d rule | grep -c "from 2001:db8:34::2 lookup $t1 proto kernel *\$")"
expect_rc "1: remove refuses: the kernel would delete the iif rule first" 1 \
	ibh c1 --config "$T_DIR/plain.conf" --iface ib1 --remove
check "1:   and names the rule that would go instead" \
	grep -q "would delete 'from 172.16.34.2 fwmark 0x5 fwmask 0xffffffff lookup $t1 priority 1000 proto 2' that ib-hook did not install" "$T_DIR/err"
expect_eq "1: the foreign rules are byte-identical" "$foreign" \
	"$(rules_json c1 '"iif"'; rules_json c1 fwmark; rules_json c1 static)"
# once the user moved theirs out of the way, remove takes back exactly ib-hook's
ip -n "$m" rule del from 172.16.34.2 iif ib0 lookup "$t1" priority 1000
ip -n "$m" rule del from 172.16.34.2 fwmark 0x5 lookup "$t1" priority 1000
ip -n "$m" -6 rule del from 2001:db8:34::2 iif ib0 lookup "$t1" priority 1000
ip -n "$m" rule add from 172.16.34.2 iif ib0 lookup "$t1" priority 1000
foreign=$(rules_json c1 '"iif"'; rules_json c1 static)
expect_rc "1: remove with the iif rule after ib-hook's" 0 \
	ibh c1 --config "$T_DIR/plain.conf" --iface ib1 --remove
expect_eq "1:   took ib-hook's rules" "" \
	"$( (ip -n "$m" -d rule; ip -n "$m" -6 -d rule) | grep "from [0-9a-f.:]* lookup $t1 proto kernel *\$")"
expect_eq "1:   left the foreign ones" "$foreign" "$(rules_json c1 '"iif"'; rules_json c1 static)"

# -- 2. a rule that makes the kernel refuse ib-hook's add is an error --------
for sel in "to 10.0.0.0/8" "tos 0x10" "not"; do
	memserver34 c2
	m=$(ns c2)
	t1=$(table_of c2 ib1)
	ip -n "$m" rule add $sel from 172.16.34.2 lookup "$t1" priority 1000 proto kernel
	before=$(state c2)
	expect_rc "2: apply next to '$sel from A'" 1 ibh c2 --config "$T_DIR/plain.conf" --iface ib1
	check "2:   names the rule in the way" grep -q "lookup $t1 priority 1000" "$T_DIR/err"
	expect_eq "2:   changed nothing" "$before" "$(state c2)"
	expect_rc "2:   --status says refused" 1 ibh c2 --config "$T_DIR/plain.conf" --status --iface ib1
	check "2:   in words" grep -q "verdict: refused" "$T_DIR/out"
	ns_del "$m"
done

# -- 3. selectors ib-hook does not set make a rule foreign -------------------
memserver34 c3
m=$(ns c3)
t1=$(table_of c3 ib1)
ip -n "$m" rule add from 172.16.34.2 fwmark 0/0x1 lookup "$t1" priority 1000 proto kernel
foreign=$(rules_json c3 fwmask)
expect_rc "3: apply next to 'fwmark 0/0x1'" 0 ibh c3 --config "$T_DIR/plain.conf" --all
expect_rc "3: a second apply" 0 ibh c3 --config "$T_DIR/plain.conf" --all
expect_eq "3:   changes nothing" "" "$(cat "$T_DIR/err")"
expect_eq "3: ib-hook's rule is there" 1 "$(ip -n "$m" -d rule | grep -c "from 172.16.34.2 lookup $t1 proto kernel *\$")"
expect_rc "3: --status" 0 ibh c3 --config "$T_DIR/plain.conf" --status
expect_eq "3: the fwmark rule is byte-identical" "$foreign" "$(rules_json c3 fwmask)"

# -- 4. a table number is no proof of ownership ------------------------------
memserver34 c4
m=$(ns c4)
ip -n "$m" rule add from 192.0.2.7 lookup 7777 priority 1000 proto kernel
ip -n "$m" rule add from 172.16.34.9 lookup "$(table_of c4 ib1)" priority 1000 proto kernel
foreign=$(rules_json c4 192.0.2.7; rules_json c4 172.16.34.9)
expect_rc "4: apply" 0 ibh c4 --config "$T_DIR/plain.conf" --all
expect_rc "4: remove" 0 ibh c4 --config "$T_DIR/plain.conf" --all --remove
expect_eq "4: look-alike rules are byte-identical" "$foreign" \
	"$(rules_json c4 192.0.2.7; rules_json c4 172.16.34.9)"

# -- 5. configuration changes take back what the earlier one installed -------
memserver34 c5
m=$(ns c5)
ip -n "$m" -6 addr add 2001:db8:34::2/64 dev ib1 nodad
ifindex1=$(ip -n "$m" -o link show ib1 | cut -d: -f1)
ibh c5 --config "$T_DIR/plain.conf" --all 2>/dev/null
step() { # step DESCRIPTION EXPECTED-RULES: --status sees leftovers, apply takes them back
	expect_rc "5: $1: --status lists the leftovers" 1 ibh c5 --config "$T_DIR/c5.conf" --status
	check "5:   as leftovers" grep -q "leftover of an earlier configuration" "$T_DIR/out"
	expect_rc "5: $1: apply" 0 ibh c5 --config "$T_DIR/c5.conf" --all
	expect_eq "5: $1: the rules are exactly" "$2" \
		"$( (ip -n "$m" -d rule; ip -n "$m" -6 -d rule) | grep -v -e '^0:' -e '^3276[67]:' | sed 's/ *$//')"
	expect_rc "5: $1: --status" 0 ibh c5 --config "$T_DIR/c5.conf" --status
}
cfg c5 <<'CONF'
[Routing]
TableBase=5000
CONF
step "TableBase=5000" "1000:	from 172.16.34.1 lookup $((5000 + ifindex1 - 2)) proto kernel
1000:	from 172.16.34.2 lookup $((5000 + ifindex1)) proto kernel
1000:	from 2001:db8:34::2 lookup $((5000 + ifindex1)) proto kernel"
cfg c5 <<'CONF'
[Routing]
TableBase=5000
Priority=777
IPv6=no
CONF
step "Priority=777, IPv6=no" "777:	from 172.16.34.1 lookup $((5000 + ifindex1 - 2)) proto kernel
777:	from 172.16.34.2 lookup $((5000 + ifindex1)) proto kernel"
printf '[Match]\nName=ib0\n[Routing]\nTableBase=5000\nPriority=777\nIPv6=no\n[Tables]\nib0=942\n' | conf c5
step "[Tables] ib0=942, Name= drops ib1" "777:	from 172.16.34.1 lookup 942 proto kernel"
ip -n "$m" link set ib0 down
ip -n "$m" link set ib0 name ib7
ip -n "$m" link set ib7 up
ip -n "$m" addr add 172.16.34.1/16 dev ib7 2>/dev/null
expect_rc "5: ib0 renamed to ib7 (unmatched): a hook run for it" 0 \
	hook c5 "$T_DIR/c5.conf" IFACE=ib7 STATE=routable
expect_eq "5:   took ib0's rule back" "" "$(ip -n "$m" rule | grep 'lookup 942')"
expect_eq "5:   and its table" "" "$(table c5 942)"

# -- 6. remove under MainRoute=delete gives main its prefix routes back ------
memserver34 c6
m=$(ns c6)
cfg c6 <<'CONF'
[Routing]
MainRoute=delete
CONF
expect_rc "6: apply with MainRoute=delete" 0 ibh c6 --config "$T_DIR/c6.conf" --all
expect_eq "6:   main lost the duplicates" "" "$(ip -n "$m" route show 172.16.0.0/16)"
expect_rc "6: remove (as the package's prerm does)" 0 ibh c6 --config "$T_DIR/c6.conf" --all --remove
expect_eq "6:   main has both prefix routes back" \
	"172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1
172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2" \
	"$(ip -n "$m" route show 172.16.0.0/16 | sed 's/ *$//')"
check "6:   the subnet is reachable" sh -c "ip -n '$m' route get 172.16.0.100 >/dev/null"
expect_rc "6: a second remove" 0 ibh c6 --config "$T_DIR/c6.conf" --all --remove
expect_eq "6:   changes nothing" "" "$(cat "$T_DIR/err")"

# -- 7. the user's routes in T(X) stay theirs --------------------------------
memserver34 c7
m=$(ns c7)
t1=$(table_of c7 ib1)
ip -n "$m" -6 addr add 2001:db8:34::2/64 dev ib1 nodad
ip -n "$m" route add 172.16.0.0/16 via 172.16.0.254 dev ib1 onlink table "$t1"
ip -n "$m" route add unreachable default table "$t1"
ip -n "$m" route add 10.7.0.0/16 dev ib1 metric 50 table "$t1"
ip -n "$m" -6 route add blackhole default table "$t1"
user=$(routes_json c7 "$t1")
expect_rc "7: apply next to a gateway route, unreachable, blackhole, another metric" 0 \
	ibh c7 --config "$T_DIR/plain.conf" --all
expect_eq "7:   ib-hook's routes were added" 2 \
	"$(table c7 "$t1" | grep -c -e 'dev ib1 proto kernel scope link src 172.16.34.2$' -e '^2001:db8:34::/64 dev ib1 proto kernel metric 1024')"
expect_rc "7: remove" 0 ibh c7 --config "$T_DIR/plain.conf" --all --remove
expect_eq "7:   the user's routes are byte-identical" "$user" "$(routes_json c7 "$t1")"

# -- 8. the same address on two managed interfaces converges -----------------
memserver34 c8
m=$(ns c8)
ip -n "$m" addr add 172.16.34.2/16 dev ib0
ibh c8 --config "$T_DIR/plain.conf" --all 2>/dev/null
expect_rc "8: ib1's hook run" 0 hook c8 "$T_DIR/plain.conf" IFACE=ib1 STATE=routable
expect_rc "8: ib0's hook run" 0 hook c8 "$T_DIR/plain.conf" IFACE=ib0 STATE=routable
s1=$(state c8)
expect_rc "8: --all again" 0 ibh c8 --config "$T_DIR/plain.conf" --all
check "8:   changes nothing (only a warning)" sh -c "! grep -qv 'warning' '$T_DIR/err'"
expect_eq "8:   state is stable" "$s1" "$(state c8)"
expect_eq "8: one rule for the address, to ib0's table" "1000:	from 172.16.34.2 lookup $(table_of c8 ib0) proto kernel" \
	"$(ip -n "$m" -d rule | grep 'from 172.16.34.2 ' | sed 's/ *$//')"
expect_rc "8: --status" 0 ibh c8 --config "$T_DIR/plain.conf" --status

# -- 9. [Tables] naming another interface's table is refused, for both -------
memserver34 c9
m=$(ns c9)
ibh c9 --config "$T_DIR/plain.conf" --all 2>/dev/null
printf '%s\n[Tables]\nib0=%s\n' "$(cat "$T_DIR/default.conf")" "$(table_of c9 ib1)" | conf c9
before=$(state c9)
expect_rc "9: ib1's run" 1 ibh c9 --config "$T_DIR/c9.conf" --iface ib1
check "9:   names ib0" grep -q "is also the table of 'ib0'" "$T_DIR/err"
expect_rc "9: ib0's run" 1 ibh c9 --config "$T_DIR/c9.conf" --iface ib0
check "9:   names ib1" grep -q "is also the table of 'ib1'" "$T_DIR/err"
expect_eq "9: neither deleted anything" "$before" "$(state c9)"

# -- 10. a closed pipe does not stop a run halfway ---------------------------
memserver34 c10
m=$(ns c10)
ibh c10 --config "$T_DIR/plain.conf" --all 2>&1 | true
expect_eq "10: 'ib-hook --all 2>&1 | true' applied both ports" "1 1" \
	"$(rules_from c10 172.16.34.1) $(rules_from c10 172.16.34.2)"
expect_rc "10: --status" 0 ibh c10 --config "$T_DIR/plain.conf" --status

# -- 11. a peer address routes the peer's prefix -----------------------------
port_host c11 ib0 -
m=$(ns c11)
ip -n "$m" addr add 10.72.0.1 peer 10.99.0.0/24 dev ib0
expect_rc "11: apply to a peer address" 0 ibh c11 --config "$T_DIR/c11.conf" --all
expect_eq "11:   the table routes the peer's prefix, as main does" \
	"10.99.0.0/24 dev ib0 proto kernel scope link src 10.72.0.1" "$(table c11 "$(table_of c11 ib0)")"

# -- upgrade from 0.1.0: what it installed (no record) is adopted, not doubled
memserver34 up
m=$(ns up)
ibh up --config "$T_DIR/plain.conf" --all 2>/dev/null
s1=$(state up)
rec=$(ibh up --config "$T_DIR/plain.conf" --status | sed -n 's/.*; record: \([^ ]*\) .*/\1/p')
check "upgrade: --status names the record" test -f "$rec"
# 0.1.0 installed the same objects and kept no record
rm -f "$rec" "$rec".routes-*
expect_rc "upgrade: apply without a record" 0 ibh up --config "$T_DIR/plain.conf" --all
expect_eq "  nothing doubled" "$s1" "$(state up)"
check "  the record is back, with both rules" test "$(grep -c '^rule ' "$rec")" = 2
expect_rc "upgrade: remove" 0 ibh up --config "$T_DIR/plain.conf" --all --remove
expect_eq "  nothing of ib-hook's is left" "" "$(ip -n "$m" -d rule | grep -v -e '^0:' -e '^3276[67]:')"

# -- a link that left the match and comes back: an object that merely looks
# like ib-hook's is not adopted (adoption is for 0.1.0's objects only)
memserver34 back
m=$(ns back)
T1=$(table_of back ib1)
printf '[Match]\nName=ib0\n' | conf only-ib0
expect_rc "back: apply to ib0 and ib1" 0 ibh back --config "$T_DIR/back.conf" --all
expect_rc "back: ib1 leaves the match" 0 ibh back --config "$T_DIR/only-ib0.conf" --all
expect_eq "  its rule is taken back" 0 "$(rules_from back 172.16.34.2)"
# a user installs exactly what ib-hook would, by hand
ip -n "$m" route add 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 table "$T1"
ip -n "$m" rule add from 172.16.34.2 lookup "$T1" priority 1000 protocol kernel
before=$(ip -n "$m" rule show; ip -n "$m" route show table "$T1")
expect_rc "back: ib1 back in the match" 0 ibh back --config "$T_DIR/back.conf" --all
expect_rc "back: --all --remove" 0 ibh back --config "$T_DIR/back.conf" --all --remove
expect_eq "  the user's look-alike rule and route stay" 1 "$(rules_from back 172.16.34.2)"
expect_eq "  and the route in T(ib1)" "172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2" \
	"$(table back "$T1")"
done_testing
