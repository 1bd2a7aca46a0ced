#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --check and --status tell the truth where issue 29 found them wrong: the
# probe of a peer address, a /31, a /127, a /32 and a /128; a peer that is
# the host's own address on another port; a second address in one prefix;
# and a value that could not be read, which is never ok.
. "$(dirname "$0")/common.sh"
t_require python3

T_TESTS=$(cd "$(dirname "$0")/.." && pwd)
validate() {
	python3 "$T_TESTS/validate-json.py" "$T_TESTS/../doc/ib-hook.schema.json" "$1" \
		<"$T_DIR/out" >/dev/null
}

# json EXPR: a Python expression over the document d, true or not
json() {
	python3 -c "import json, sys; d = json.load(sys.stdin); sys.exit(not ($1))" <"$T_DIR/out"
}

export -f validate json
export T_DIR T_TESTS

# item 7: the probe the kernel routes through the port, for every prefix length
port_host rails ib0 - ib1 - ib2 - ib3 - ib4 -
nsx rails ip addr add 10.200.0.1 peer 10.200.0.2/32 dev ib0
nsx rails ip addr add 10.200.1.1/31 dev ib1
nsx rails ip addr add fd00:200::1/127 dev ib2 nodad
nsx rails ip addr add 10.200.3.1/32 dev ib3
nsx rails ip addr add fd00:203::1/128 dev ib4 nodad
cfg=$T_DIR/rails.conf
expect_rc "rails: apply" 0 ibh rails --config "$cfg" --all
expect_rc "rails: --status" 0 ibh rails --config "$cfg" --status
expect_rc "rails: --check exits 0" 0 ibh rails --config "$cfg" --check
check "  a peer address probes its peer" \
	grep -q '^ib0 10.200.0.1 -> 10.200.0.2 (probe): ok (route dev ib0;' "$T_DIR/out"
check "  a /31 probes its other end" \
	grep -q '^ib1 10.200.1.1 -> 10.200.1.0 (probe): ok (route dev ib1;' "$T_DIR/out"
check "  an IPv6 /127 probes its other end" \
	grep -q '^ib2 fd00:200::1 -> fd00:200:: (probe): ok (route dev ib2;' "$T_DIR/out"
check "  a /32 says its route is not checked" \
	grep -q '^ib3 10.200.3.1 -> nothing (no other address in its prefix): ok (route not checked: give a PEER;' "$T_DIR/out"
check "  a /128 says so too" \
	grep -q '^ib4 fd00:203::1 -> nothing (no other address in its prefix): ok (route not checked: give a PEER;' "$T_DIR/out"
check "  summary" grep -qx "5 checked: 5 ok, 0 not ok" "$T_DIR/out"
expect_rc "rails: --check --json" 0 ibh rails --config "$cfg" --check --json
check "  valid against the schema" validate check
check "  the /32's peer is null, the peer address's the peer" \
	json 'd["checks"][3]["peer"] is None and d["checks"][0]["peer"] == "10.200.0.2"'

# item 8: RDMA between two ports of the host: the peer is local, lo is no port
memserver34 mem
cfg=$T_DIR/mem.conf
expect_rc "local peer: apply" 0 ibh mem --config "$cfg" --all
expect_rc "local peer on ib1, accept_local=0: not ok" 1 \
	ibh mem --config "$cfg" --check --iface ib0 172.16.34.2
check "  local-dropped, naming ib1 and accept_local" \
	grep -q '^ib0 172.16.34.1 -> 172.16.34.2: local-dropped: the peer is this host.s address on ib1, which drops ARP from 172.16.34.1 (accept_local=0, arp_filter=0)' "$T_DIR/out"
check "  never wrong-port, never lo" sh -c "! grep -q -e wrong-port -e 'dev lo' '$T_DIR/out'"
nsx mem sysctl -qw net.ipv4.conf.ib1.accept_local=1
expect_rc "local peer on ib1, accept_local=1: local, exit 0" 0 \
	ibh mem --config "$cfg" --check --iface ib0 172.16.34.2
check "  local: stays in the host, ib1 answers ARP" \
	grep -q '^ib0 172.16.34.1 -> 172.16.34.2: local: 172.16.34.2 is this host.s address on ib1: IP traffic to it stays in the host, and ib1 answers ARP from ib0 (accept_local=1, arp_filter=0) (route local, on ib1;' "$T_DIR/out"
check "  summary counts it as local" grep -qx "1 checked: 0 ok, 1 local, 0 not ok" "$T_DIR/out"
expect_rc "  --json" 0 ibh mem --config "$cfg" --check --iface ib0 --json 172.16.34.2
check "  valid, verdict local, on ib1" bash -c 'validate check && json "d[\"checks\"][0][\"verdict\"] == \"local\" and d[\"checks\"][0][\"local\"] == {\"interface\": \"ib1\"} and d[\"summary\"][\"local\"] == 1 and d[\"ok\"]"'
nsx mem sysctl -qw net.ipv4.conf.all.arp_filter=1
expect_rc "arp_filter=1 on all: not ok again" 1 ibh mem --config "$cfg" --check --iface ib0 172.16.34.2
check "  local-dropped" grep -q 'local-dropped: .*arp_filter=1' "$T_DIR/out"
nsx mem sysctl -qw net.ipv4.conf.all.arp_filter=0
expect_rc "the port's own address: local, exit 0" 0 ibh mem --config "$cfg" --check --iface ib0 172.16.34.1
check "  stays in the host" grep -q "^ib0 172.16.34.1 -> 172.16.34.1: local: 172.16.34.1 is ib0's own address" "$T_DIR/out"

# item 9: a service address in the prefix of the port's first address
nsx mem ip addr add 172.16.34.12/16 dev ib1
expect_rc "second address: apply" 0 ibh mem --config "$cfg" --all
expect_rc "second address: --status exits 0" 0 ibh mem --config "$cfg" --status --iface ib1
check "  its line agrees: table route ok, main route the kernel's" \
	grep -q '^  address 172.16.34.12/16: rule ok; table route 172.16.0.0/16 ok; main route present (kept)$' "$T_DIR/out"
expect_rc "  --json" 0 ibh mem --config "$cfg" --status --iface ib1 --json
check "  valid, and every address says ok and present" bash -c 'validate status && json "all(a[\"table_route\"] == \"ok\" and a[\"main_route\"] == \"present\" for a in d[\"interfaces\"][0][\"addresses\"]) and len(d[\"interfaces\"][0][\"addresses\"]) == 2"'
nsx mem ip route del 172.16.0.0/16 dev ib1 table "$(table_of mem ib1)"
expect_rc "  its prefix route deleted: drift" 1 ibh mem --config "$cfg" --status --iface ib1
check "  both addresses say the table route is missing" \
	test "$(grep -c 'table route 172.16.0.0/16 missing' "$T_DIR/out")" = 2
ibh mem --config "$cfg" --all 2>/dev/null
printf '[Match]\nName=ib0 ib1\n[Routing]\nMainRoute=delete\n' | conf memdel
expect_rc "MainRoute=delete: apply" 0 ibh mem --config "$T_DIR/memdel.conf" --all
expect_rc "  --status exits 0" 0 ibh mem --config "$T_DIR/memdel.conf" --status --iface ib1
check "  the service address's main route is deleted, as its prefix's" \
	grep -q '^  address 172.16.34.12/16: rule ok; table route 172.16.0.0/16 ok; main route deleted$' "$T_DIR/out"
ibh mem --config "$cfg" --remove --all 2>/dev/null

# item 4: a link name with a control byte and one with DEL: its sysctls are set and read
ns_new odd
name1=$'ib\x01x'
name2=$'ib\x7f'
ip -n "$(ns odd)" link add "$name1" type veth peer name podd1 || exit 1
ip -n "$(ns odd)" link add "$name2" type veth peer name podd2 || exit 1
for l in "$name1" "$name2" podd1 podd2; do ip -n "$(ns odd)" link set "$l" up; done
ip -n "$(ns odd)" addr add 172.16.40.1/16 dev "$name1"
ip -n "$(ns odd)" addr add 172.16.40.2/16 dev "$name2"
printf '[Match]\nName=ib*\n' | conf odd
expect_rc "odd names: apply" 0 ibh odd --config "$T_DIR/odd.conf" --all
check "  no warning" sh -c "! grep -q -i warning '$T_DIR/err'"
expect_eq "  arp_ignore set on the control-byte name" 2 \
	"$(nsx odd cat "/proc/sys/net/ipv4/conf/$name1/arp_ignore")"
expect_eq "  arp_announce set on the DEL name" 2 \
	"$(nsx odd cat "/proc/sys/net/ipv4/conf/$name2/arp_announce")"
expect_rc "  --status exits 0" 0 ibh odd --config "$T_DIR/odd.conf" --status
expect_rc "  a second apply changes nothing" 0 ibh odd --config "$T_DIR/odd.conf" --all
check "  and says nothing" test ! -s "$T_DIR/err"
expect_rc "  --check --json" 0 ibh odd --config "$T_DIR/odd.conf" --check --json
check "  reads the ARP values" bash -c 'validate check && json "all(c[\"arp\"][\"arp_ignore\"] == 2 for c in d[\"checks\"])"'

# an unreadable value is never ok: conf/ib0 hidden by an empty mount
expect_rc "unreadable ARP settings: --check exits 1" 1 ip netns exec "$(ns mem)" \
	unshare -m sh -c 'mount -t tmpfs tmpfs /proc/sys/net/ipv4/conf/ib0 &&
		exec "$0" --config "$1" --check --iface ib0' "$IB_HOOK" "$cfg"
check "  says unknown and what" grep -q '^ib0 172.16.34.1 -> 172.16.0.1 (probe): unknown: the ARP settings of ib0 could not be read' "$T_DIR/out"
check "  shows ? for the values" grep -q 'arp_ignore=? arp_announce=? arp_filter=?' "$T_DIR/out"
expect_rc "  --json" 1 ip netns exec "$(ns mem)" \
	unshare -m sh -c 'mount -t tmpfs tmpfs /proc/sys/net/ipv4/conf/ib0 &&
		exec "$0" --config "$1" --check --iface ib0 --json' "$IB_HOOK" "$cfg"
check "  valid, null, verdict unknown" bash -c 'validate check && json "d[\"checks\"][0][\"arp\"][\"arp_ignore\"] is None and d[\"checks\"][0][\"verdict\"] == \"unknown\" and not d[\"ok\"]"'
expect_rc "unreadable sysctls: --status exits 1" 1 ip netns exec "$(ns mem)" \
	unshare -m sh -c 'mount -t tmpfs tmpfs /proc/sys/net/ipv4/conf/ib0 &&
		exec "$0" --config "$1" --status --iface ib0' "$IB_HOOK" "$cfg"
done_testing
