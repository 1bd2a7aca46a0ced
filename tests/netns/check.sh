#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ib-hook --check (issue 22) on veth ports, which have no RDMA port: the
# routing and ARP lines. Before apply the second port's address leaves
# through the first (wrong-port) and every port answers ARP (arp-flux);
# after apply every line is ok, for a probe address and for given peers, in
# text and JSON, as an unprivileged user too; --check changes nothing.
. "$(dirname "$0")/common.sh"
t_require setpriv

memserver34 mem
cfg="$T_DIR/mem.conf"

before=$(state mem)
expect_rc "before apply: --check exits 1" 1 ibh mem --config "$cfg" --check
check "  ib1's address leaves through ib0: wrong-port" \
	grep -q "^ib1 172.16.34.2 -> 172.16.0.1 (probe): wrong-port: the route from 172.16.34.2 leaves through ib0, not ib1" "$T_DIR/out"
check "  ib0 lets every port answer ARP: arp-flux" \
	grep -q "^ib0 172.16.34.1 -> 172.16.0.1 (probe): arp-flux: arp_ignore=0, arp_filter=0" "$T_DIR/out"
check "  a veth is checked for routing and ARP only, and says so" \
	grep -q "no RDMA port: routing and ARP only" "$T_DIR/out"
check "  summary" grep -qx "2 checked: 0 ok, 2 not ok" "$T_DIR/out"
expect_eq "  --check changed nothing" "$before" "$(state mem)"

expect_rc "apply" 0 ibh mem --config "$cfg" --all
expect_rc "after apply: --check exits 0" 0 ibh mem --config "$cfg" --check
check "  both lines ok" test "$(grep -c ': ok (route dev ib[01];' "$T_DIR/out")" = 2
expect_rc "  with two peers" 0 ibh mem --config "$cfg" --check 172.16.16.1 172.16.16.2
check "  a line per address and peer" test "$(grep -c ' -> 172.16.16.[12]: ok ' "$T_DIR/out")" = 4
expect_rc "  an IPv6 peer has no IPv4 address to check" 1 ibh mem --config "$cfg" --check 2001:db8::1
check "  and says so" grep -q "nothing checked" "$T_DIR/out"
expect_rc "  --json" 0 ibh mem --config "$cfg" --check --json
check "  is valid and says ok" sh -c "python3 '$(dirname "$0")/../validate-json.py' '$(dirname "$0")/../../doc/ib-hook.schema.json' check <'$T_DIR/out' >/dev/null &&
	python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(not (d[\"ok\"] and d[\"summary\"][\"checked\"] == 2 and d[\"checks\"][1][\"route_dev\"] == \"ib1\" and d[\"checks\"][1][\"rdma\"] is None))' <'$T_DIR/out'"
expect_rc "  as nobody" 0 nsx mem setpriv --reuid 65534 --regid 65534 --clear-groups \
	"$IB_HOOK" --config "$cfg" --check --iface ib1
check "  one line, ok" grep -qx "1 checked: 1 ok, 0 not ok" "$T_DIR/out"

# the rule gone: the route leaves through ib0 again
nsx mem ip rule del from 172.16.34.2
expect_rc "ib1's rule deleted: exits 1" 1 ibh mem --config "$cfg" --check --iface ib1
check "  wrong-port" grep -q "wrong-port: the route from 172.16.34.2 leaves through ib0" "$T_DIR/out"
ibh mem --config "$cfg" --all 2>/dev/null
# conf/all wins: arp_ignore=8 answers nothing at all
nsx mem sysctl -qw net.ipv4.conf.all.arp_ignore=8
expect_rc "all.arp_ignore=8: exits 1" 1 ibh mem --config "$cfg" --check --iface ib0
check "  arp-off" grep -q "arp-off: arp_ignore=8" "$T_DIR/out"
nsx mem sysctl -qw net.ipv4.conf.all.arp_ignore=0
# a link down
nsx mem ip link set ib1 down
expect_rc "ib1 down: exits 1" 1 ibh mem --config "$cfg" --check --iface ib1
check "  link-down" grep -q "link-down: ib1 is down" "$T_DIR/out"

expect_rc "--check --iface nope: exit 2" 2 ibh mem --config "$cfg" --check --iface nope
check "  says which" grep -q "interface 'nope' not found" "$T_DIR/err"
expect_rc "--check --remove: exit 2" 2 ibh mem --config "$cfg" --check --remove
expect_rc "--check with a bad peer: exit 2" 2 ibh mem --config "$cfg" --check 172.16.16
done_testing
