#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPEC section 9, second bullet (issue 44 item 1): one subnet, a second
# router. ib0 172.16.1.1/16 and ib1 172.16.1.2/16 on one segment (a bridge)
# with the default router 172.16.0.1 (to 192.168.77.0/24) and a storage
# router 172.16.0.254 (to 10.50.0.0/16, which the default router does not
# know); main has `default via 172.16.0.1 dev ib0` and `10.50.0.0/16 via
# 172.16.0.254 dev ib0`. Every gateway route of main through ib0 is ib1's
# too: from ib1's address the storage network is reached through
# 172.16.0.254 out of ib1 (`ip route get`, and a ping counted on the veths),
# not sent to the default router. The same under the watcher, as the route
# is added, changed and deleted in main; a route of T(ib1) ib-hook did not
# install stays. IPv6 the same: 2001:db8:34::/64, routers ::1 and ::fe,
# storage 2001:db8:50::/64; last, the default router's RA defaults beside
# main's static IPv6 default of the same metric.
# (the watcher's helpers: start_watcher, settle)
. "$(dirname "$0")/../watch/common.sh"
t_require ping

# h the host, gw the default router, st the storage router, srv the storage
# server, far a peer behind the default router
for n in h gw st srv far; do
	ns_new $n
	# no DAD to wait for; on h no router solicitations nor repeated MLD
	# reports in the counters (a run beside other tests counted ib1 +3)
	ipv6_quiet $n
	nsx $n sysctl -qw net.ipv6.conf.default.accept_ra=0
done
segment sw h:ib0 h:ib1 gw:lan st:lan
veth gw wan fwan far
veth st san ssan srv
addr h ib0 172.16.1.1/16
addr h ib1 172.16.1.2/16
addr h ib0 2001:db8:34::11/64
addr h ib1 2001:db8:34::12/64
addr gw lan 172.16.0.1/16
addr gw lan 2001:db8:34::1/64
addr gw wan 192.168.77.254/24
addr far fwan 192.168.77.1/24
addr st lan 172.16.0.254/16
addr st lan 172.16.0.253/16
addr st lan 2001:db8:34::fe/64
addr st lan 2001:db8:34::fd/64
addr st san 10.50.0.254/16
addr st san 2001:db8:50::fe/64
addr srv ssan 10.50.0.1/16
addr srv ssan 2001:db8:50::1/64
nsx gw sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
nsx st sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
ip -n "$(ns far)" route add default via 192.168.77.254
ip -n "$(ns srv)" route add default via 10.50.0.254
ip -n "$(ns srv)" -6 route add default via 2001:db8:50::fe
ip -n "$(ns h)" route add default via 172.16.0.1 dev ib0 proto static
ip -n "$(ns h)" route add 10.50.0.0/16 via 172.16.0.254 dev ib0 proto static
ip -n "$(ns h)" -6 route add default via 2001:db8:34::1 dev ib0 proto static
ip -n "$(ns h)" -6 route add 2001:db8:50::/64 via 2001:db8:34::fe dev ib0 proto static
printf '[Match]\nName=ib0 ib1\n' | conf h
t0=$(table_of h ib0) t1=$(table_of h ib1)
a1=172.16.1.2 a6=2001:db8:34::12

# out SRC DST: the port whose counter rose by the three echo requests of a ping from SRC to DST
out() {
	b0=$(nsx h cat /sys/class/net/ib0/statistics/tx_packets)
	b1=$(nsx h cat /sys/class/net/ib1/statistics/tx_packets)
	nsx h ping -q -c 3 -i 0.2 -W "$(scaled 1)" -I "$1" "$2" >/dev/null 2>&1 || {
		echo unanswered
		return
	}
	d0=$(($(nsx h cat /sys/class/net/ib0/statistics/tx_packets) - b0))
	d1=$(($(nsx h cat /sys/class/net/ib1/statistics/tx_packets) - b1))
	if [ "$d0" -ge 3 ] && [ "$d1" -lt 3 ]; then echo ib0; elif [ "$d1" -ge 3 ] && [ "$d0" -lt 3 ]; then echo ib1; else echo "ib0 +$d0, ib1 +$d1"; fi
}

# get [-6] DST SRC: where the kernel sends DST from SRC (via, dev)
get() {
	local fam=-4
	[ "$1" = -6 ] && fam=-6 && shift
	ip -n "$(ns h)" $fam route get "$1" from "$2" | head -n 1 | grep -o -e 'via [^ ]*' -e 'dev [^ ]*' | tr '\n' ' ' | sed 's/ $//'
}

# copies T DST: T's routes to DST (IPv4 and IPv6), one line each
copies() {
	{
		ip -n "$(ns h)" route show table "$1" "$2"
		ip -n "$(ns h)" -6 route show table "$1" "$3"
	} | sed 's/ *$//'
}

# wait_for DESCRIPTION EXPECTED T: poll (5 s at most, scaled) until copies T says EXPECTED
wait_for() {
	for _ in $(seq "$(scaled 100 | cut -d. -f1)"); do
		[ "$(copies "$3" 10.50.0.0/16 2001:db8:50::/64)" = "$2" ] && break
		sleep 0.05
	done
	expect_eq "$1" "$2" "$(copies "$3" 10.50.0.0/16 2001:db8:50::/64)"
}

expect_eq "before ib-hook: ib1's address reaches the storage server (out of ib0)" ib0 "$(out $a1 10.50.0.1)"
expect_eq "before ib-hook: the same for IPv6" ib0 "$(out $a6 2001:db8:50::1)"
main_before=$(ip -n "$(ns h)" route show table main; ip -n "$(ns h)" -6 route show table main)

expect_rc "ib-hook --all" 0 ibh h --config "$T_DIR/h.conf" --all
expect_eq "T(ib1) holds main's storage route through ib1" \
	"10.50.0.0/16 via 172.16.0.254 dev ib1 proto kernel
2001:db8:50::/64 via 2001:db8:34::fe dev ib1 proto kernel metric 1024 pref medium" \
	"$(copies "$t1" 10.50.0.0/16 2001:db8:50::/64)"
expect_eq "T(ib1) holds main's default through ib1" \
	"default via 172.16.0.1 dev ib1 proto kernel" \
	"$(ip -n "$(ns h)" route show table "$t1" default | sed 's/ *$//')"
expect_eq "T(ib0) holds the storage route through ib0" \
	"10.50.0.0/16 via 172.16.0.254 dev ib0 proto kernel
2001:db8:50::/64 via 2001:db8:34::fe dev ib0 proto kernel metric 1024 pref medium" \
	"$(copies "$t0" 10.50.0.0/16 2001:db8:50::/64)"
expect_eq "ip route get 10.50.0.1 from ib1's address: via the storage router out of ib1" \
	"via 172.16.0.254 dev ib1" "$(get 10.50.0.1 $a1)"
expect_eq "ip -6 route get 2001:db8:50::1 from ib1's address: the same" \
	"via 2001:db8:34::fe dev ib1" "$(get -6 2001:db8:50::1 $a6)"
expect_eq "ib1's address reaches the storage server out of ib1" ib1 "$(out $a1 10.50.0.1)"
expect_eq "  IPv6 too" ib1 "$(out $a6 2001:db8:50::1)"
expect_eq "ib0's address reaches it out of ib0" ib0 "$(out 172.16.1.1 10.50.0.1)"
expect_eq "ib1's address still reaches the default router's network out of ib1" ib1 \
	"$(out $a1 192.168.77.1)"
expect_eq "main is unchanged" "$main_before" \
	"$(ip -n "$(ns h)" route show table main; ip -n "$(ns h)" -6 route show table main)"
# a route of the user's in T(ib1), next to the copy: the same prefix, another
# metric; where T(ib1) holds no copy, the storage network is unreachable from ib1
ip -n "$(ns h)" route add unreachable 10.50.0.0/16 proto static metric 7 table "$t1"
expect_rc "a user's route beside the copy: --all" 0 ibh h --config "$T_DIR/h.conf" --all
want1="10.50.0.0/16 via 172.16.0.254 dev ib1 proto kernel
unreachable 10.50.0.0/16 proto static metric 7
2001:db8:50::/64 via 2001:db8:34::fe dev ib1 proto kernel metric 1024 pref medium"
expect_eq "  T(ib1) holds the copy and the user's route" "$want1" \
	"$(copies "$t1" 10.50.0.0/16 2001:db8:50::/64)"
expect_eq "  ib1's address reaches the storage server out of ib1" ib1 "$(out $a1 10.50.0.1)"
expect_rc "--status: no drift" 0 ibh h --config "$T_DIR/h.conf" --status --iface ib1
check "  --status shows the copy" grep -q "copy 10.50.0.0/16 via 172.16.0.254 dev ib1 proto kernel: ok" "$T_DIR/out"
expect_rc "--check 10.50.0.1 from ib1" 0 ibh h --config "$T_DIR/h.conf" --check --iface ib1 10.50.0.1
expect_rc "--dry-run --all: nothing to do" 0 ibh h --config "$T_DIR/h.conf" --dry-run --all
check "  --dry-run prints no command" sh -c "! grep -q '^ip ' '$T_DIR/out'"

# drift: the copy deleted by hand, then main's route changed behind ib-hook's back
ip -n "$(ns h)" route del 10.50.0.0/16 via 172.16.0.254 dev ib1 proto kernel table "$t1"
expect_rc "the copy deleted by hand: --status is drift" 1 ibh h --config "$T_DIR/h.conf" --status --iface ib1
check "  --status names the missing copy" grep -q "copy 10.50.0.0/16 via 172.16.0.254 dev ib1 proto kernel: missing" "$T_DIR/out"
expect_rc "  --check from ib1 says so" 1 ibh h --config "$T_DIR/h.conf" --check --iface ib1 10.50.0.1
expect_rc "  --dry-run --all" 0 ibh h --config "$T_DIR/h.conf" --dry-run --all
check "  --dry-run adds the copy back" grep -q "^ip route append 10.50.0.0/16 via 172.16.0.254 dev ib1 proto kernel table $t1" "$T_DIR/out"
expect_rc "  --all puts it back" 0 ibh h --config "$T_DIR/h.conf" --all
expect_eq "  T(ib1) as before" "$want1" "$(copies "$t1" 10.50.0.0/16 2001:db8:50::/64)"
ip -n "$(ns h)" route replace 10.50.0.0/16 via 172.16.0.253 dev ib0 proto static
expect_rc "main's route changed: --status is drift (the copy is stale)" 1 ibh h --config "$T_DIR/h.conf" --status --iface ib1
expect_rc "  a hook run for ib1 follows" 0 hook h "$T_DIR/h.conf" IFACE=ib1 STATE=routable \
	ADDR=dummy OperationalState=routable AdministrativeState=configured
expect_eq "  T(ib1) holds the new route, and the user's" \
	"10.50.0.0/16 via 172.16.0.253 dev ib1 proto kernel
unreachable 10.50.0.0/16 proto static metric 7
2001:db8:50::/64 via 2001:db8:34::fe dev ib1 proto kernel metric 1024 pref medium" \
	"$(copies "$t1" 10.50.0.0/16 2001:db8:50::/64)"
ip -n "$(ns h)" route del 10.50.0.0/16 via 172.16.0.253 dev ib0
ip -n "$(ns h)" -6 route del 2001:db8:50::/64 via 2001:db8:34::fe dev ib0
expect_rc "main's storage routes deleted: --all" 0 ibh h --config "$T_DIR/h.conf" --all
expect_eq "  their copies go; the user's route stays" \
	"unreachable 10.50.0.0/16 proto static metric 7" \
	"$(copies "$t1" 10.50.0.0/16 2001:db8:50::/64)"
expect_eq "  T(ib0)'s go too" "" "$(copies "$t0" 10.50.0.0/16 2001:db8:50::/64)"

# the watcher: main's storage route added after it started, changed, deleted
start_watcher h "$T_DIR/h.conf"
# its first pass done, and nothing else to come: what follows is the notifications' doing
settle h
ip -n "$(ns h)" route add 10.50.0.0/16 via 172.16.0.254 dev ib0 proto static
ip -n "$(ns h)" -6 route add 2001:db8:50::/64 via 2001:db8:34::fe dev ib0 proto static
wait_for "main's storage route added: the watcher copies it into T(ib1)" "$want1" "$t1"
expect_eq "  ib1's address reaches the storage server out of ib1" ib1 "$(out $a1 10.50.0.1)"
expect_eq "  IPv6 too" ib1 "$(out $a6 2001:db8:50::1)"
ip -n "$(ns h)" route replace 10.50.0.0/16 via 172.16.0.253 dev ib0 proto static mtu 1400
ip -n "$(ns h)" -6 route replace 2001:db8:50::/64 via 2001:db8:34::fd dev ib0 proto static
wait_for "main's storage route changed (another gateway, an mtu): T(ib1) follows" \
	"10.50.0.0/16 via 172.16.0.253 dev ib1 proto kernel mtu 1400
unreachable 10.50.0.0/16 proto static metric 7
2001:db8:50::/64 via 2001:db8:34::fd dev ib1 proto kernel metric 1024 pref medium" "$t1"
expect_eq "  ip route get from ib1's address: the new gateway out of ib1" \
	"via 172.16.0.253 dev ib1" "$(get 10.50.0.1 $a1)"
expect_eq "  ib1's address reaches the storage server out of ib1" ib1 "$(out $a1 10.50.0.1)"
expect_eq "  IPv6 too" ib1 "$(out $a6 2001:db8:50::1)"
ip -n "$(ns h)" route del 10.50.0.0/16 via 172.16.0.253 dev ib0
ip -n "$(ns h)" -6 route del 2001:db8:50::/64 via 2001:db8:34::fd dev ib0
wait_for "main's storage route deleted: the copies go, the user's route stays" \
	"unreachable 10.50.0.0/16 proto static metric 7" "$t1"
kill -TERM "$W_PID"
wait "$W_PID"
expect_eq "the watcher exits 0 on SIGTERM" 0 "$?"
W_PID=
check "the watcher logged no error" sh -c "! grep -i -e error -e fail '$T_DIR/h.log'"

# The default router also sends router advertisements: main learns `default
# via fe80::1 proto ra metric 1024` through each port, beside its static
# default through ib0 of the same metric (not joined: the kernel joins no
# RA route). Copied into one table, the two would join into one multipath
# route that neither copy is, and the next run refused it as not its own:
# the copy that comes first stays (ib1's own, in T(ib1)), the other is left out.
nsx h sysctl -qw net.ipv6.conf.ib0.accept_ra=1 net.ipv6.conf.ib1.accept_ra=1
ip -n "$(ns gw)" addr add fe80::1/64 dev lan nodad
nsx gw python3 "$T_SRC/tests/rails/ra.py" lan
for _ in $(seq 100); do
	[ "$(ip -n "$(ns h)" -6 route show default proto ra | wc -l)" = 2 ] && break
	sleep 0.05
done
expect_eq "main has an RA default through each port" 2 \
	"$(ip -n "$(ns h)" -6 route show default proto ra | wc -l)"
expect_rc "RA defaults beside a static one of the same metric: --all" 0 ibh h --config "$T_DIR/h.conf" --all
expect_eq "  T(ib1): its own RA default's copy, not joined with the static one's" \
	"default via fe80::1 dev ib1 proto kernel metric 1024 hoplimit 64 pref medium" \
	"$(ip -n "$(ns h)" -6 route show table "$t1" default | sed 's/ *$//')"
expect_rc "  a second --all" 0 ibh h --config "$T_DIR/h.conf" --all
check "  changes nothing" sh -c "! test -s '$T_DIR/out' && ! test -s '$T_DIR/err'"
expect_rc "  --status: no drift" 0 ibh h --config "$T_DIR/h.conf" --status

expect_rc "remove --all" 0 ibh h --config "$T_DIR/h.conf" --remove --all
expect_eq "remove leaves the user's route alone" "unreachable 10.50.0.0/16 proto static metric 7" \
	"$(ip -n "$(ns h)" route show table "$t1" | sed 's/ *$//')"
expect_eq "  and nothing of ib-hook's" "" \
	"$({ ip -n "$(ns h)" route show table all; ip -n "$(ns h)" -6 route show table all; } |
		grep -e 'table 10' | grep -v '^unreachable 10.50.0.0/16 table' || true)"
done_testing
