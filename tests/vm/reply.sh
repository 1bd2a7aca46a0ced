# SPDX-License-Identifier: GPL-2.0-or-later
# The reply's route, as RDMA CM's passive side takes it (issue 39, item 8):
# sourced by rping.sh on the bookworm pair after tests/vm/fleet.sh, with the
# package on both VMs and the rping server listening on the server. On the
# server, the watcher stopped (nothing restores what is deleted), the rule of
# port P is deleted: P's address A is the one on main's second
# 172.16.0.0/16 route, so "ip route get 172.16.16.1 from A" leaves through
# the other port, while main still has P's own prefix route
# ("ip route get fibmatch 172.16.16.1 from A oif P" finds it). rping from
# the client's first address to A, both neighbour tables flushed before each:
#
#   reply-route-other-port-rp-filter-0-connects  rp_filter=0 (Debian's
#     default), arp_filter=0 (the kernel's; the site's all.arp_filter=1
#     lifted): connects. Measured: 1.0-2.9 s, as with the rule; the RDMA
#     traffic stays on P both ways (P's tx/rx counters +20/+21 packets for
#     3 pings, the other port's tx +0). rp_filter=2 (loose): connects too.
#   reply-route-other-port-rp-filter-1-fails  rp_filter=1 on P: fails.
#     Measured: "cma event RDMA_CM_EVENT_ADDR_ERROR, error -110" in 3 s (P
#     does not answer the ARP request: its reverse-path check fails); with
#     the client's neighbour entry left from a connection before, rping
#     hangs instead and TcpExtIPReversePathFilter counts the RoCE packets.
#   reply-route-other-port-arp-filter-1-fails  rp_filter=0, the site's
#     all.arp_filter=1: fails. Measured: ADDR_ERROR -110 in 3 s,
#     TcpExtArpFilter counts the ARP requests P dropped.
#   reply-route-not-through-port-fails  rp_filter=0, arp_filter=0, and main's
#     prefix route through P deleted too (main routes the subnet through the
#     other port only: as under MainRoute=delete with the rule gone, but with
#     a route left): "ip route get" the same as above, "fibmatch ... oif P"
#     says "No route to host", and the passive side rejects the connection
#     request. Measured: "cma event RDMA_CM_EVENT_REJECTED, error 28" in
#     0.8 s; with the route appended again, it connects.
#   reply-route-rule-back-connects  the control: the watcher started again
#     (it adds the rule), rp_filter=1 on P and the site's arp_filter=1:
#     connects.
#
# So the reply's route through another port breaks RDMA CM only through P's
# rp_filter=1 or arp_filter=1, and the passive side needs a route through P
# itself (in the tables the lookup reaches, the rule gone): a lookup bound
# to P, not the unbound "ip route get". Measured on Debian 12, kernel
# 6.1.0-56; IPv6 by hand in the same pair (fd00::/64 on all four ports, the
# rule of the address on main's second route deleted): connects, the traffic
# on its own port. 20 s under TCG at load 5, 32 s at load 10 (another VM
# pair beside it).
reply_start=$(date +%s)
# main's first and second route into the subnet: "O P A", A P's address
read -r reply_o reply_p reply_a < <(run 1 10 'o=$(ip -4 route show 172.16.0.0/16 | sed -n "1s/.* dev \([^ ]*\).*/\1/p")
p=$(ip -4 route show 172.16.0.0/16 | sed -n "2s/.* dev \([^ ]*\).*/\1/p")
echo "$o" "$p" "$(ip -4 -o addr show dev "$p" | sed -n "s/.* inet \([0-9.]*\)\/.*/\1/p")"')
# reply_rping WHEN SETTINGS: on the server SETTINGS (sh), both neighbour
# tables flushed, its route lookups printed; then rping from the client to
# reply_a (10 s at most: a failure is said in 3 s); the two expected to connect
# get a second try after a timeout (rping.sh's once_more)
reply_rping() {
	run 1 20 "$2
ip neigh flush dev ib0; ip neigh flush dev ib1
sysctl net.ipv4.conf.all.arp_filter net.ipv4.conf.$reply_p.arp_filter net.ipv4.conf.all.rp_filter net.ipv4.conf.$reply_p.rp_filter | sed 's/net.ipv4.conf.//; s/ //g' | paste -sd' ' -
echo \"ip route get 172.16.16.1 from $reply_a: \$(ip route get 172.16.16.1 from $reply_a 2>&1 | head -n 1)\"
echo \"ip route get fibmatch 172.16.16.1 from $reply_a oif $reply_p: \$(ip route get fibmatch 172.16.16.1 from $reply_a oif $reply_p 2>&1 | head -n 1)\"" >"$work/reply-$1"
	run 2 20 "ip neigh flush 172.16.34.0/24; timeout 10 stdbuf -oL rping -c -I 172.16.16.1 -a $reply_a -C 3 -v; rc=\$?; echo \"exit \$rc\"; exit \$rc" >>"$work/reply-$1"
}
# reply_says WHEN: the server's lookups and rping's outcome
reply_says() {
	grep -v '^ping data: rdma-ping-1' "$work/reply-$1" | indent
}
if [[ $reply_a == 172.16.34.[12] ]] && [[ $reply_o == ib[01] ]] && [[ $reply_p == ib[01] ]] && [ "$reply_p" != "$reply_o" ]; then
	note "reply's route: the rule of $reply_p ($reply_a) deleted on the server, the watcher stopped"
	# the rping server of the checks before goes on listening
	run 1 20 "pgrep -x rping >/dev/null || { (setsid rping -s -P -a 0.0.0.0 >/dev/null 2>&1 &); sleep 1; }
systemctl stop ib-hook.service
while ip rule del from $reply_a 2>/dev/null; do :; done
ip rule show" | indent
	once_more reply-rp-filter-0 reply_rping rp-filter-0 "sysctl -qw net.ipv4.conf.all.arp_filter=0"
	r=$?
	if [ $r = 0 ] && grep -qx "all.arp_filter=0 $reply_p.arp_filter=0 all.rp_filter=0 $reply_p.rp_filter=0" "$work/reply-rp-filter-0" &&
		grep -q "^ip route get 172.16.16.1 from $reply_a: .* dev $reply_o " "$work/reply-rp-filter-0" &&
		grep -q "^ip route get fibmatch .*: .* dev $reply_p " "$work/reply-rp-filter-0"; then
		pass "reply-route-other-port-rp-filter-0-connects"
	else
		fail "reply-route-other-port-rp-filter-0-connects (rping exit $r)"
	fi
	reply_says rp-filter-0
	if reply_rping rp-filter-1 "sysctl -qw net.ipv4.conf.$reply_p.rp_filter=1"; then
		fail "reply-route-other-port-rp-filter-1-fails (it connected)"
	else
		pass "reply-route-other-port-rp-filter-1-fails"
	fi
	reply_says rp-filter-1
	if reply_rping arp-filter-1 "sysctl -qw net.ipv4.conf.$reply_p.rp_filter=0 net.ipv4.conf.all.arp_filter=1"; then
		fail "reply-route-other-port-arp-filter-1-fails (it connected)"
	else
		pass "reply-route-other-port-arp-filter-1-fails"
	fi
	reply_says arp-filter-1
	reply_rping not-through-port "sysctl -qw net.ipv4.conf.all.arp_filter=0
ip route del 172.16.0.0/16 dev $reply_p table main"
	r=$?
	if [ $r != 0 ] && grep -q "^ip route get 172.16.16.1 from $reply_a: .* dev $reply_o " "$work/reply-not-through-port" &&
		grep -q "^ip route get fibmatch .*: RTNETLINK answers: No route to host" "$work/reply-not-through-port"; then
		pass "reply-route-not-through-port-fails"
	else
		fail "reply-route-not-through-port-fails (rping exit $r)"
	fi
	reply_says not-through-port
	# the control: the rule back (the watcher adds it), strict filters kept
	run 1 20 "ip route append 172.16.0.0/16 dev $reply_p proto kernel scope link src $reply_a
sysctl -qw net.ipv4.conf.all.arp_filter=1 net.ipv4.conf.$reply_p.rp_filter=1
systemctl start ib-hook.service" | indent
	settled 1 >"$work/reply-status" || { fail "reply-route-rule-back-status"; indent <"$work/reply-status"; }
	if once_more reply-rule-back reply_rping rule-back ":" && grep -q "^ip route get 172.16.16.1 from $reply_a: .* dev $reply_p " "$work/reply-rule-back"; then
		pass "reply-route-rule-back-connects"
	else
		fail "reply-route-rule-back-connects"
	fi
	reply_says rule-back
	run 1 10 "sysctl -qw net.ipv4.conf.$reply_p.rp_filter=0" | indent
else
	fail "reply-route-ports (main's 172.16.0.0/16 routes through '$reply_o' then '$reply_p', address '$reply_a')"
fi
note "reply's route cell: $(($(date +%s) - reply_start)) s"
