#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Real traffic between memserver34 and cpuserver16 on one bridge, with strict
# reverse-path filtering and arp_ignore=2 (the IP analogue of RDMA CM's route
# check): pings sourced from the second ports fail before ib-hook and every
# pair works after it ran on both hosts. An unbound ping works throughout.
. "$(dirname "$0")/common.sh"
t_require ping

ns_new fabric
nsx fabric ip link add br0 type bridge
nsx fabric ip link set br0 up
for host in mem cpu; do
	ns_new $host
done
for port in ib0 ib1; do
	veth mem $port f$port fabric
done
for port in ibs5f0 ibs5f1; do
	veth cpu $port f$port fabric
done
for port in fib0 fib1 fibs5f0 fibs5f1; do
	nsx fabric ip link set $port master br0
done
addr mem ib0 172.16.34.1/16
addr mem ib1 172.16.34.2/16
addr cpu ibs5f0 172.16.16.1/16
addr cpu ibs5f1 172.16.16.2/16
# strict reverse-path filtering on every port, in each host's namespace (the
# kernel uses the larger of conf/all and the port's value)
declare -A ports=([mem]="ib0 ib1" [cpu]="ibs5f0 ibs5f1")
for host in mem cpu; do
	nsx $host sysctl -qw net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.default.rp_filter=1
	nsx $host sysctl -qw net.ipv4.conf.all.arp_ignore=2
	for port in ${ports[$host]}; do
		nsx $host sysctl -qw "net.ipv4.conf.$port.rp_filter=1"
	done
	expect_eq "$host: strict rp_filter (1) in all and on ${ports[$host]}" "1 1 1" \
		"$(for c in all ${ports[$host]}; do nsx $host cat "/proc/sys/net/ipv4/conf/$c/rp_filter"; done | tr '\n' ' ' | sed 's/ $//')"
done

pings() {
	for src in 172.16.34.1 172.16.34.2; do
		for dst in 172.16.16.1 172.16.16.2; do
			nsx mem ping -n -q -c 1 -W "$(scaled 1)" -I $src $dst >/dev/null 2>&1 && echo "$src>$dst ok" || echo "$src>$dst fail"
			nsx cpu ping -n -q -c 1 -W "$(scaled 1)" -I $dst $src >/dev/null 2>&1 && echo "$dst>$src ok" || echo "$dst>$src fail"
		done
	done
}
neigh_flush() {
	for host in mem cpu; do nsx $host ip neigh flush all; done
}

before=$(pings)
echo "$before" | sed 's/^/# before: /'
expect_eq "before: every pair that involves a second port fails" \
	"$(grep -e 172.16.34.2 -e 172.16.16.2 <<<"$before" | sed 's/ .*/ fail/')" \
	"$(grep -e 172.16.34.2 -e 172.16.16.2 <<<"$before")"
expect_eq "before: first port to first port works, both ways" 2 "$(grep -v -e 172.16.34.2 -e 172.16.16.2 <<<"$before" | grep -c ' ok$')"

for port in ib0 ib1; do
	expect_rc "memserver34: routable $port" 0 hook mem "$T_DIR/default.conf" IFACE=$port STATE=routable
done
for port in ibs5f0 ibs5f1; do
	expect_rc "cpuserver16: routable $port" 0 hook cpu "$T_DIR/default.conf" IFACE=$port STATE=routable
done
for host in mem cpu; do
	expect_eq "$host: ib-hook kept strict rp_filter on ${ports[$host]} (RpFilter=keep)" "1 1" \
		"$(for c in ${ports[$host]}; do nsx $host cat "/proc/sys/net/ipv4/conf/$c/rp_filter"; done | tr '\n' ' ' | sed 's/ $//')"
done
neigh_flush
after=$(pings)
echo "$after" | sed 's/^/# after: /'
expect_eq "after: every pair in both directions works" 8 "$(grep -c ' ok$' <<<"$after")"
check "unbound ping still works (MainRoute=keep)" nsx mem sh -c "ping -n -q -c 1 -W $(scaled 1) 172.16.16.2 >/dev/null"
done_testing
