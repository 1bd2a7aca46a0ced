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
ns_new gw
ns_new far
segment sw h:ib0 h:ib1 gw:lan
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

# With the watcher (issue 38 item 9, issue 44): a split default through ib0
# (`128.0.0.0/1` + `0.0.0.0/1`, a VPN's or a routing daemon's) is ib1's too,
# its gateway in ib1's prefix: T(ib1) copies both halves beside the default,
# and they go when main's do.
# t1_copies: T(ib1)'s copies (sorted), polled (5 s at most) until they say $1
t1_copies() {
	for _ in $(seq 100); do
		got=$(ip -n "$(ns h)" route show table "$(table_of h ib1)" | grep -v ' scope link' | sed 's/ *$//' | sort)
		[ "$got" = "$1" ] && break
		sleep 0.05
	done
	echo "$got"
}
ip netns exec "$(ns h)" "$IB_HOOK" --config "$T_DIR/h.conf" --watch >"$T_DIR/watch.log" 2>&1 &
W_PID=$!
copy1="default via 172.16.0.254 dev ib1 proto kernel mtu 1400"
expect_eq "the watcher keeps T(ib1)'s copy of the default" "$copy1" "$(t1_copies "$copy1")"
ip -n "$(ns h)" route add 128.0.0.0/1 via 172.16.0.254 dev ib0 proto static
ip -n "$(ns h)" route add 0.0.0.0/1 via 172.16.0.254 dev ib0 proto static
halves=$(printf '%s\n' "$copy1" "0.0.0.0/1 via 172.16.0.254 dev ib1 proto kernel" \
	"128.0.0.0/1 via 172.16.0.254 dev ib1 proto kernel" | sort)
expect_eq "  a split default through ib0 in main: T(ib1) copies both halves" \
	"$halves" "$(t1_copies "$halves")"
expect_eq "  ib1's address reaches the far peer out of ib1" ib1 "$(out 172.16.34.2)"
ip -n "$(ns h)" route del 128.0.0.0/1 via 172.16.0.254 dev ib0 proto static
ip -n "$(ns h)" route del 0.0.0.0/1 via 172.16.0.254 dev ib0 proto static
expect_eq "  ib0's split default deleted from main: T(ib1) has the default's copy alone" \
	"$copy1" "$(t1_copies "$copy1")"
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
