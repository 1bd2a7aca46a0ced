#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The CNI protocol of ib-hook (SPEC section 11) and CNI's own conformance
# expectations, with Debian's macvlan (on a veth of the node) and
# static/host-local plugins making the attachments as libcni runs a list:
# ADD prints prevResult unchanged; CHECK passes when healthy and fails with a
# CNI error when an owned rule or sysctl is changed; DEL twice succeeds and
# leaves nothing of ib-hook's, also when the namespace is gone; bad stdin and
# a bad key get an error object and change nothing; VERSION, GC, STATUS.
. "$(dirname "$0")/cni-lib.sh"
cni_require

# plugin COMMAND POD IFNAME: ib-hook alone as a plugin, stdin from the caller
plugin() {
	CNI_COMMAND=$1 CNI_CONTAINERID=ctr-$T_PFX$2 CNI_NETNS=$(netns_path "$2") CNI_IFNAME=$3 \
		CNI_PATH=$CNI_PATH "$IB_HOOK"
}

# is_error FILE CODE: FILE is one CNI error object with that code, cniVersion and msg
is_error() {
	python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
assert e["code"] == int(sys.argv[2]), e
assert e["cniVersion"] and e["msg"], e
' "$1" "$2"
}

ns_new node
ip -n "$(ns node)" link add up0 type veth peer name up0p
ip -n "$(ns node)" link set up0 up
ip -n "$(ns node)" link set up0p up
pod p
mv0=$(printf '{"type":"macvlan","master":"up0","mode":"bridge","ipam":{"type":"host-local","dataDir":"%s","ranges":[[{"subnet":"10.66.0.0/16","rangeStart":"10.66.0.10","rangeEnd":"10.66.0.20"}],[{"subnet":"fd66::/64","rangeStart":"fd66::10","rangeEnd":"fd66::20"}]]}}' "$T_DIR/ipam")
mv1=$(printf '{"type":"macvlan","master":"up0","mode":"bridge","ipam":{"type":"static","addresses":[{"address":"10.66.1.10/16"}]}}')
conflist "$T_DIR/n0.conflist" n0 1.0.0 "$mv0" '{"type":"ib-hook","priority":900,"tables":{"net0":700}}'
conflist "$T_DIR/n1.conflist" n1 0.4.0 "$mv1" '{"type":"ib-hook","priority":900}'
before=$(ibh_state p)

# VERSION, GC, STATUS
out=$(CNI_COMMAND=VERSION "$IB_HOOK" </dev/null)
expect_eq "VERSION lists the spec versions" '["0.4.0", "1.0.0", "1.1.0"]' \
	"$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["supportedVersions"])' | tr "'" '"')"
expect_rc "GC of 1.1 succeeds" 0 sh -c "echo '{\"cniVersion\":\"1.1.0\",\"name\":\"gc-$T_PFX\",\"type\":\"ib-hook\",\"cni.dev/valid-attachments\":[]}' | CNI_COMMAND=GC $IB_HOOK"
expect_rc "STATUS of 1.1 succeeds" 0 sh -c "echo '{\"cniVersion\":\"1.1.0\",\"name\":\"n0\",\"type\":\"ib-hook\"}' | CNI_COMMAND=STATUS $IB_HOOK"

# ADD, order and prevResult
check "ADD n0 (macvlan + host-local, IPv4 and IPv6, then ib-hook)" \
	sh -c "$(declare -f cni nsx netns_path); T_PFX=$T_PFX T_DIR=$T_DIR CNITOOL=$CNITOOL CNI_PATH=$CNI_PATH; cni node add $T_DIR/n0.conflist p net0 >$T_DIR/add0.json"
prev=$(cat "$T_DIR/add0.json")
expect_eq "net0: rule from its IPv4 address at priority 900 in table 700" \
	"900:	from $(pod_addr p net0 4) lookup 700" "$(ip -n "$(ns p)" rule show pref 900)"
expect_eq "net0: rule from its IPv6 address" \
	"900:	from $(pod_addr p net0 6) lookup 700" "$(ip -n "$(ns p)" -6 rule show pref 900)"
expect_eq "net0: arp_ignore 2" 2 "$(nsx p sysctl -n net.ipv4.conf.net0.arp_ignore)"
# the result of the list is ib-hook's output: prevResult exactly as macvlan wrote it
mvout=$(python3 - "$T_DIR/add0.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cniVersion"] == "1.0.0"
assert any(i.get("sandbox") for i in r["interfaces"]), r
print(" ".join(sorted(ip["address"] for ip in r["ips"])))
PY
)
expect_eq "ADD's result is macvlan's prevResult (both addresses, same version)" \
	"$(pod_addr p net0 4)/16 $(pod_addr p net0 6)/64" "$mvout"
conf=$(python3 -c '
import json,sys
c = {"cniVersion":"1.0.0","name":"n0","type":"ib-hook","priority":900,"tables":{"net0":700}}
c["prevResult"] = json.loads(open(sys.argv[1]).read())
print(json.dumps(c))' "$T_DIR/add0.json")
s0=$(ibh_state p)
echo "$conf" | plugin ADD p net0 >"$T_DIR/again.json" 2>"$T_DIR/err"
expect_eq "ADD again prints prevResult byte for byte" \
	"$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$T_DIR/add0.json")" \
	"$(cat "$T_DIR/again.json")"
expect_eq "ADD again changes nothing" "$s0" "$(ibh_state p)"
expect_eq "ADD again says nothing" "" "$(cat "$T_DIR/err")"

check "ADD n1 (CNI 0.4.0, static IPAM)" sh -c "$(declare -f cni nsx netns_path); T_PFX=$T_PFX T_DIR=$T_DIR CNITOOL=$CNITOOL CNI_PATH=$CNI_PATH; cni node add $T_DIR/n1.conflist p net1 >/dev/null"
expect_eq "net1: its rule beside net0's" 2 "$(ip -n "$(ns p)" rule show pref 900 | wc -l)"

# ADD of a third attachment re-checks the others' ARP settings
nsx p sysctl -qw net.ipv4.conf.net0.arp_ignore=0
echo "$conf" | plugin ADD p net1 >/dev/null 2>&1
expect_eq "an ADD of net1 puts net0's arp_ignore back" 2 "$(nsx p sysctl -n net.ipv4.conf.net0.arp_ignore)"

# a setting that is one per pod differs: an error, nothing changed
s1=$(ibh_state p)
echo "$conf" | sed 's/"priority": 900/"priority": 901/' | plugin ADD p net1 >"$T_DIR/err.json"
check "another priority than the pod's other attachments: error 7" is_error "$T_DIR/err.json" 7
expect_eq "... and nothing changed" "$s1" "$(ibh_state p)"

# CHECK
check "CHECK healthy passes (the whole list)" sh -c "$(declare -f cni nsx netns_path); T_PFX=$T_PFX T_DIR=$T_DIR CNITOOL=$CNITOOL CNI_PATH=$CNI_PATH; cni node check $T_DIR/n0.conflist p net0"
ip -n "$(ns p)" rule del from "$(pod_addr p net0 4)" lookup 700 pref 900
echo "$conf" | plugin CHECK p net0 >"$T_DIR/check.json"
check "CHECK after an owned rule was deleted: CNI error 101" is_error "$T_DIR/check.json" 101
echo "$conf" | plugin ADD p net0 >/dev/null
echo "$conf" | plugin CHECK p net0 >"$T_DIR/check.json"
check "CHECK after ADD repaired it passes" test ! -s "$T_DIR/check.json"
nsx p sysctl -qw net.ipv4.conf.net0.arp_announce=0
echo "$conf" | plugin CHECK p net0 >"$T_DIR/check.json"
check "CHECK after arp_announce changed: CNI error 101" is_error "$T_DIR/check.json" 101
nsx p sysctl -qw net.ipv4.conf.net0.arp_announce=2

# bad input: an error object, nothing changed
s1=$(ibh_state p)
for bad in 'not json' '{"cniVersion":"1.0.0"' '{"cniVersion":"1.0.0","name":"n0","type":"ib-hook","prority":1,"prevResult":{}}' \
	'{"cniVersion":"1.0.0","name":"n0","type":"ib-hook","tables":{"net0":255},"prevResult":{}}' \
	'{"cniVersion":"0.3.1","name":"n0","type":"ib-hook","prevResult":{}}' \
	'{"cniVersion":"1.0.0","name":"n0","type":"ib-hook"}'; do
	echo "$bad" | plugin ADD p net0 >"$T_DIR/err.json"
	rc=$?
	check "bad stdin ($bad): exit $rc, one error object" sh -c "[ $rc != 0 ] && python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); assert e[\"code\"] in (1,2,6,7) and e[\"msg\"]' $T_DIR/err.json"
done
echo "$conf" | CNI_IFNAME=net0 CNI_COMMAND=ADD CNI_CONTAINERID=x CNI_NETNS=/nonexistent "$IB_HOOK" >"$T_DIR/err.json"
check "ADD into a namespace that does not exist: error 3" is_error "$T_DIR/err.json" 3
expect_eq "bad input changed nothing" "$s1" "$(ibh_state p)"

# DEL: twice, in any order, and after the namespace went
rec=$(record_of p)
check "the pod has a record ($rec)" test -s "$rec"
check "DEL net0 (the list, in reverse)" sh -c "$(declare -f cni nsx netns_path); T_PFX=$T_PFX T_DIR=$T_DIR CNITOOL=$CNITOOL CNI_PATH=$CNI_PATH; cni node del $T_DIR/n0.conflist p net0"
expect_eq "DEL net0 left net1's rule alone" \
	"900:	from $(pod_addr p net1 4) lookup $(ip -n "$(ns p)" rule show pref 900 | awk '{print $NF}')" \
	"$(ip -n "$(ns p)" rule show pref 900)"
echo '{"cniVersion":"1.0.0","name":"n0","type":"ib-hook"}' | plugin DEL p net0 >"$T_DIR/out"
expect_eq "DEL net0 again succeeds, prints nothing" "0 " "$? $(cat "$T_DIR/out")"
echo '{"cniVersion":"0.4.0","name":"n1","type":"ib-hook","priority":900}' | plugin DEL p net1
expect_eq "DEL net1 succeeds" 0 "$?"
expect_eq "the pod holds no rule, route of ib-hook's" "$before" "$(ibh_state p)"
check "the pod's record went with the last DEL" test ! -e "$rec"
link=/run/ib-hook/cni-ctr-${T_PFX}p
check "... and the container's link to it" test ! -e "$link"
# a pod whose namespace goes before its DEL (a node's runtime restarted): the
# kernel takes the rules and routes, DEL the record through the link
echo "$conf" | plugin ADD p net1 >/dev/null
expect_eq "ADD wrote the container's file, its first line naming the pod's record" \
	"${rec##*/}" "$(head -n 1 "$link" 2>&1)"
check "... which holds net1's rule" grep -q "$(pod_addr p net1 4)" "$rec"
ns_del "$(ns p)"
echo '{"cniVersion":"0.4.0","name":"n1","type":"ib-hook","priority":900}' | plugin DEL p net1 >"$T_DIR/out" 2>"$T_DIR/err"
expect_eq "DEL after the namespace is gone succeeds" "0 " "$? $(cat "$T_DIR/out")"
check "... takes the pod's record" test ! -e "$rec"
check "... and the link" test ! -e "$link"
echo '{"cniVersion":"0.4.0","name":"n1","type":"ib-hook","priority":900}' | plugin DEL p net1 >"$T_DIR/out"
expect_eq "... and succeeds again" "0 " "$? $(cat "$T_DIR/out")"
echo '{"cniVersion":"0.4.0","name":"n1","type":"ib-hook","priority":900}' |
	CNI_COMMAND=DEL CNI_CONTAINERID=../x CNI_NETNS='' CNI_IFNAME=net1 "$IB_HOOK" >"$T_DIR/err.json"
check "a container ID that is no file name: error 4" is_error "$T_DIR/err.json" 4
done_testing
