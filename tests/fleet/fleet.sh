#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fleet view (issue 31, SPEC 10): 8 hosts x 4 ports in one subnet (IPv4
# and IPv6), each host a network namespace whose ports (veths named like IB
# ports) meet on one bridge. The three steps run through a parallel shell,
# pdsh with its exec module standing in for ssh: --inventory on every host,
# --check --fleet on every host, --join once. With ib-hook applied everywhere all 992
# directed pairs are ok (96 local); then each fault kind at a random host and
# port, one at a time: the matrix names exactly that host, port and cause,
# and no other pair is broken. One host (at random) sets AcceptLocal: the
# pairs between its own ports are judged (ARP between them), and a port there
# with accept_local=0 by hand drops them; every other host's are local.
# IB_HOOK_FLEET_SEED repeats a run;
# IB_HOOK_FLEET_ROUNDS (default 2) rounds of faults, each with its seed;
# IB_HOOK_FLEET_SHELL=clush runs the steps through clush instead.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.sh"

HOSTS=8
PORTS=4
printf '[Match]\nName=%s\n' "$(seq -f 'ib%g' -s ' ' 0 $((PORTS - 1)))" | conf fleet
# each host reads its own file (pdsh puts its name for %h): one sets AcceptLocal (below)
cfg=$T_DIR/%h.conf
for h in $(seq 1 $HOSTS); do
	conf "h$h" <"$T_DIR/fleet.conf"
done

# the lab: a bridge namespace, and host hN's port ibP at 10.10.N.(P+1)/16
ns_new sw
ip -n "$(ns sw)" link add br0 type bridge || exit 1
ip -n "$(ns sw)" link set br0 up
for h in $(seq 1 $HOSTS); do
	ns_new "h$h"
	for p in $(seq 0 $((PORTS - 1))); do
		veth "h$h" "ib$p" "h${h}i$p" sw
		ip -n "$(ns sw)" link set "h${h}i$p" master br0
		addr "h$h" "ib$p" "10.10.$h.$((p + 1))/16"
		ip -n "$(ns "h$h")" addr add "fd00:10::$h:$((p + 1))/64" dev "ib$p" nodad || exit 1
	done
done

# main_port HOST [-6]: the port the main table sends traffic into the subnet through
main_port() {
	if [ "${2:-}" = -6 ]; then
		ip -n "$(ns "$1")" -6 route get fd00:10::ff:ff | sed -n '1s/.* dev \([^ ]*\).*/\1/p'
	else
		ip -n "$(ns "$1")" route get 10.10.255.255 | sed -n '1s/.* dev \([^ ]*\).*/\1/p'
	fi
}
# routed_port HOST [-6]: a port the main table does not leave through: a lost rule shows there
routed_port() {
	mp=$(main_port "$@")
	while :; do
		q=ib$((RANDOM % PORTS))
		[ "$q" != "$mp" ] && break
	done
	echo "$q"
}
# back HOST PORT [-6]: into $T_DIR/back, the ports of the other hosts to which
# the kernel of HOST sends from PORT's address through another port than PORT;
# into $T_DIR/unbound, those of them whose pair the reply does not carry
# (carries: no route through PORT bound to it, or arp_filter=1)
back() {
	: >"$T_DIR/back"
	: >"$T_DIR/unbound"
	for k in $(seq 1 $HOSTS); do
		[ "h$k" = "$1" ] && continue
		for q in $(seq 0 $((PORTS - 1))); do
			if [ "${3:-}" = -6 ]; then
				from=fd00:10::${1#h}:$((${2#ib} + 1)) to=fd00:10::$k:$((q + 1))
			else
				from=10.10.${1#h}.$((${2#ib} + 1)) to=10.10.$k.$((q + 1))
			fi
			dev=$(ip -n "$(ns "$1")" ${3:-} route get "$to" from "$from" 2>/dev/null |
				sed -n '1s/.* dev \([^ ]*\).*/\1/p')
			[ "$dev" = "$2" ] && continue
			echo "h$k ib$q" >>"$T_DIR/back"
			carries "$1" "$2" "$from" "$to" ${3:-} || echo "h$k ib$q" >>"$T_DIR/unbound"
		done
	done
}
# bad input: a clear error, exit 2
echo '{"version":1,"host":"x","ports":[' >"$T_DIR/broken.json"
expect_rc "--check --fleet with a broken inventory: exit 2" 2 nsx h1 "$IB_HOOK" --check --fleet "$T_DIR/broken.json"
check "  says where" grep -q "is no joined inventory (ib-hook(8)), near byte" "$T_DIR/err"
expect_rc "--check --fleet naming no port of this host: exit 2" 2 nsx h1 "$IB_HOOK" --check --fleet - </dev/null
expect_rc "--join without --fleet: exit 2" 2 "$IB_HOOK" --join "$T_DIR/broken.json"
expect_rc "--html without --join: exit 2" 2 "$IB_HOOK" --inventory --html
expect_rc "--check --fleet with a peer: exit 2" 2 "$IB_HOOK" --check --fleet "$T_DIR/broken.json" 10.0.0.1
expect_rc "--join of a broken answer: exit 2" 2 "$IB_HOOK" --join --fleet /dev/null "$T_DIR/broken.json"

seed=${IB_HOOK_FLEET_SEED:-$(date +%s)}
rounds=${IB_HOOK_FLEET_ROUNDS:-2}

# ib-hook never applied on one host
RANDOM=$seed
echo "# seed $seed (IB_HOOK_FLEET_SEED=$seed repeats it)"
n=h$((RANDOM % HOSTS + 1))
# the host that sets AcceptLocal: another one, so that ib-hook sets it there
lh=h$(((${n#h} + RANDOM % (HOSTS - 1)) % HOSTS + 1))
printf '[Sysctl]\nAcceptLocal=1\n' >>"$T_DIR/$lh.conf"
echo "# $lh sets AcceptLocal: the pairs between its ports are judged"
apply -x "$n"
check "steps 1-3 with ib-hook on every host but $n" steps
expect not-applied "$n" -
sed -n '1p' "$T_DIR/matrix.txt" | sed 's/^/# /'

# coverage: FleetProbers=1 (the default), so each of the 32 IPv4 addresses is
# asked by one other host, from one port: 32 pairs probed; the AcceptLocal
# host asks its own 12 pairs; the other 908 - 44 judged pairs take the
# verdict of their destination address's probe (derived)
healthy "992 pairs: 908 ok, 0 not ok, 84 local (not judged); ARP probed for 44, derived for 864"
expect_eq "  step 2 made those 44 ARP probes, each host its share" 44 "$(arp_asked)"
check "  the page has a cell per pair" test "$(grep -o '<td class="cell ' "$T_DIR/matrix.html" | wc -l)" = 992
valid_all
check "  the page fetches nothing" lacks '<[sS][cC][rR][iI][pP][tT]|<[lL][iI][nN][kK]|[sS][rR][cC]=|[hH][tT][tT][pP][sS]?://' cat "$T_DIR/matrix.html"
echo "# 992 pairs checked and joined in $took s"

for round in $(seq 1 "$rounds"); do
	next_round "$round"

	h=h$((RANDOM % HOSTS + 1))
	p=$(routed_port "$h")
	ip -n "$(ns "$h")" rule del from "10.10.${h#h}.$((${p#ib} + 1))"
	back "$h" "$p"
	# one subnet: main's one route into it sends every reply through its own port
	expect_eq "IPv4 no-rule $h $p: the kernel sends every reply from it elsewhere" \
		$(((HOSTS - 1) * PORTS)) "$(wc -l <"$T_DIR/back")"
	# but main keeps every port's prefix route: a lookup bound to the port finds
	# one through it, and RDMA CM's passive side answers through it (doc/fleet.md,
	# the reply's route, measured): only the pairs from the port are broken
	expect_eq "  a lookup bound to $p finds a route through it for every reply" \
		0 "$(wc -l <"$T_DIR/unbound")"
	steps
	family="IPv4 " expect no-rule "$h" "$p" "$T_DIR/unbound"
	apply

	h=h$((RANDOM % HOSTS + 1))
	p=$(routed_port "$h" -6)
	ip -n "$(ns "$h")" -6 rule del from "fd00:10::${h#h}:$((${p#ib} + 1))"
	back "$h" "$p" -6
	steps
	family="IPv6 " expect no-rule "$h" "$p" "$T_DIR/unbound"
	apply

	h=h$((RANDOM % HOSTS + 1))
	p=ib$((RANDOM % PORTS))
	nsx "$h" sysctl -qw "net.ipv4.conf.$p.arp_ignore=0" "net.ipv4.conf.$p.arp_filter=0"
	steps
	expect arp-flux "$h" "$p"
	apply

	# a port of the AcceptLocal host no longer takes its host's own addresses
	p=ib$((RANDOM % PORTS))
	nsx "$lh" sysctl -qw "net.ipv4.conf.$p.accept_local=0"
	steps
	expect local-dropped "$lh" "$p"
	apply

	h=h$((RANDOM % HOSTS + 1))
	p=$(routed_port "$h")
	# the way back from the port leaves through another one, which rp_filter=1 does not let in
	ip -n "$(ns "$h")" rule del from "10.10.${h#h}.$((${p#ib} + 1))"
	nsx "$h" sysctl -qw "net.ipv4.conf.$p.rp_filter=1"
	back "$h" "$p"
	steps
	expect rp-filter "$h" "$p" "$T_DIR/back"
	nsx "$h" sysctl -qw "net.ipv4.conf.$p.rp_filter=0"
	apply

	h=h$((RANDOM % HOSTS + 1))
	p=ib$((RANDOM % PORTS))
	ip -n "$(ns "$h")" link set "$p" down
	steps
	expect port-down "$h" "$p"
	ip -n "$(ns "$h")" link set "$p" up
	# the kernel dropped the port's IPv6 address with the link: give it back
	ip -n "$(ns "$h")" addr add "fd00:10::${h#h}:$((${p#ib} + 1))/64" dev "$p" nodad
	apply
done
steps
expect none

done_testing
