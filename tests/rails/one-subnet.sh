#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPEC section 9, the one-subnet layout: ib0 172.16.34.1/16 and ib1
# 172.16.34.2/16 on one segment (a bridge) with a router 172.16.0.254, and
# main's single default through ib0. T(ib1) gets that default through ib1, so
# that a peer behind the router is reached from each port's address out of
# that port (its packet counter), not out of ib0.
. "$(dirname "$0")/../lib.sh"
t_require ping

ns_new h
# an IPv4 test: no IPv6 router solicitations or MLD reports in the counters
nsx h sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
ns_new sw
ns_new gw
ns_new far
ip -n "$(ns sw)" link add br0 type bridge
ip -n "$(ns sw)" link set br0 up
for p in ib0 ib1; do
	veth h "$p" "s$p" sw
	ip -n "$(ns sw)" link set "s$p" master br0
done
veth gw lan slan sw
ip -n "$(ns sw)" link set slan master br0
veth gw wan fwan far
addr h ib0 172.16.34.1/16
addr h ib1 172.16.34.2/16
addr gw lan 172.16.0.254/16
addr gw wan 192.168.77.254/24
addr far fwan 192.168.77.1/24
nsx gw sysctl -qw net.ipv4.ip_forward=1
ip -n "$(ns far)" route add default via 192.168.77.254
ip -n "$(ns h)" route add default via 172.16.0.254 dev ib0 proto static
printf '[Match]\nName=ib0 ib1\n' | conf h

# out SRC: the port whose counter rose by the three echo requests of a ping from SRC to far
out() {
	b0=$(nsx h cat /sys/class/net/ib0/statistics/tx_packets)
	b1=$(nsx h cat /sys/class/net/ib1/statistics/tx_packets)
	nsx h ping -q -c 3 -i 0.2 -W "$(scaled 1)" -I "$1" 192.168.77.1 >/dev/null 2>&1 || {
		echo unanswered
		return
	}
	d0=$(($(nsx h cat /sys/class/net/ib0/statistics/tx_packets) - b0))
	d1=$(($(nsx h cat /sys/class/net/ib1/statistics/tx_packets) - b1))
	if [ "$d0" -ge 3 ] && [ "$d1" -lt 3 ]; then echo ib0; elif [ "$d1" -ge 3 ] && [ "$d0" -lt 3 ]; then echo ib1; else echo "ib0 +$d0, ib1 +$d1"; fi
}

expect_eq "before ib-hook: ib1's address reaches the far peer out of ib0" ib0 "$(out 172.16.34.2)"
main_before=$(ip -n "$(ns h)" route show table main)
for port in ib0 ib1; do
	expect_rc "the hook applies $port" 0 hook h "$T_DIR/h.conf" IFACE=$port STATE=routable \
		ADDR=dummy OperationalState=routable AdministrativeState=configured
done
expect_eq "T(ib1) holds main's default through ib1" \
	"default via 172.16.0.254 dev ib1 proto kernel" \
	"$(ip -n "$(ns h)" route show table "$(table_of h ib1)" default | sed 's/ *$//')"
expect_eq "T(ib0) holds main's default" "default via 172.16.0.254 dev ib0 proto kernel" \
	"$(ip -n "$(ns h)" route show table "$(table_of h ib0)" default | sed 's/ *$//')"
expect_eq "ib0's address reaches the far peer out of ib0" ib0 "$(out 172.16.34.1)"
expect_eq "ib1's address reaches the far peer out of ib1" ib1 "$(out 172.16.34.2)"
expect_eq "main is unchanged" "$main_before" "$(ip -n "$(ns h)" route show table main)"

# the default moves: T(ib1) follows on the next run
ip -n "$(ns h)" route replace default via 172.16.0.254 dev ib0 proto static mtu 1400
expect_rc "the hook runs again for ib1" 0 hook h "$T_DIR/h.conf" IFACE=ib1 STATE=routable \
	ADDR=dummy OperationalState=routable AdministrativeState=configured
expect_eq "  T(ib1)'s copy follows main's changed default" \
	"default via 172.16.0.254 dev ib1 proto kernel mtu 1400" \
	"$(ip -n "$(ns h)" route show table "$(table_of h ib1)" default | sed 's/ *$//')"

# With the watcher (issue 38 item 9): a route through ib0 that hides main's
# default from its lookup (`128.0.0.0/1` + `0.0.0.0/1`, a VPN's or a routing
# daemon's split default) changes what ib1 copies of the default, though it
# names ib0 only; deleting it gives ib1 its copy back. Found by
# ownership-watch-seed-176804069: the watcher looked at ib0 alone.
# t1_default: T(ib1)'s default, polled (5 s at most) until it says $1
t1_default() {
	for _ in $(seq 100); do
		got=$(ip -n "$(ns h)" route show table "$(table_of h ib1)" default | sed 's/ *$//')
		[ "$got" = "$1" ] && break
		sleep 0.05
	done
	echo "$got"
}
ip netns exec "$(ns h)" "$IB_HOOK" --config "$T_DIR/h.conf" --watch >"$T_DIR/watch.log" 2>&1 &
W_PID=$!
copy1="default via 172.16.0.254 dev ib1 proto kernel mtu 1400"
expect_eq "the watcher keeps T(ib1)'s copy of the default" "$copy1" "$(t1_default "$copy1")"
ip -n "$(ns h)" route add 128.0.0.0/1 via 172.16.0.254 dev ib0 proto static
ip -n "$(ns h)" route add 0.0.0.0/1 via 172.16.0.254 dev ib0 proto static
expect_eq "  main's default hidden by 0.0.0.0/1 + 128.0.0.0/1 through ib0: T(ib1)'s copy goes" \
	"" "$(t1_default "")"
ip -n "$(ns h)" route del 128.0.0.0/1 via 172.16.0.254 dev ib0 proto static
ip -n "$(ns h)" route del 0.0.0.0/1 via 172.16.0.254 dev ib0 proto static
expect_eq "  ib0's split default deleted from main: T(ib1) has the copy again" \
	"$copy1" "$(t1_default "$copy1")"
kill -TERM "$W_PID"
wait "$W_PID"
expect_eq "the watcher exits 0 on SIGTERM" 0 "$?"
check "the watcher logged no error" sh -c "! grep -i -e error -e fail '$T_DIR/watch.log'"

for port in ib0 ib1; do
	expect_rc "remove $port" 0 ibh h --config "$T_DIR/h.conf" --remove --iface $port
done
expect_eq "remove leaves no table" "" \
	"$(ip -n "$(ns h)" route show table all | grep -e 'table 10' || true)"
done_testing
