#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fleet view on routed rails (issue 31, SPEC 9 and 10): 4 hosts x 4
# ports, port N of every host on rail N, a /31 and an IPv6 /64 to the rail's
# router (namespace rN), the routers joined by a spine and dropping by strict
# rp_filter what arrives on a port their way back does not leave through
# (tests/rails/fabric.sh's fabric, with more hosts). Odd hosts' main holds an
# IPv4 default per port (metrics 100-103, as systemd-networkd leaves it); even
# hosts' goes through ib0 only, and [Gateways] names the other ports' gateway
# (peer); every host has an IPv6 default per port. The three steps run
# through pdsh as in fleet.sh. With ib-hook everywhere all 192 directed pairs
# between hosts are ok (48 local); then one at a time, at a random host and
# port: ib-hook never applied on one host (the route from a source leaves
# through another port: not-applied), a rule deleted (no-rule), T(X)'s copy
# of the gateway route deleted, IPv4 and IPv6 (wrong-port), and on an even
# host ib0's gateway route deleted from main, whose copy the next run takes
# back (no-route: a rail without a gateway route). Each breaks exactly the
# pairs whose route, as `ip route get` says on that host, leaves through
# another port or is missing, both ways, and a ping says the same of one
# broken and one ok pair. Four hosts hold every kind of pair (one rail,
# across rails, either layout at either end); more only repeat them.
# IB_HOOK_FLEET_SEED repeats a run; IB_HOOK_FLEET_ROUNDS (default 1) rounds,
# each with its seed.
. "$(dirname "$0")/../rails/fabric.sh"
. "$(dirname "$0")/common.sh"
t_require ping

HOSTS=4
PORTS=4
cfg=$T_DIR/%h.conf

# a4 HOST N / a6 HOST N: the address of host hK on port N
a4() {
	echo "10.$2.${1#h}.1"
}
a6() {
	echo "fd00:$2:${1#h}::2"
}

ns_new spine
for rl in $RAILS; do ns_new "r$rl"; done
for k in $(seq 1 $HOSTS); do ns_new "h$k"; done
for nsn in spine $(seq -f 'r%g' 0 3) $(seq -f 'h%g' 1 $HOSTS); do
	quiet "$nsn"
done
router_sysctls spine
for rl in $RAILS; do
	router_sysctls "r$rl"
	rail_router "$rl"
done
for k in $(seq 1 $HOSTS); do
	h=h$k
	printf '[Match]\nName=ib0 ib1 ib2 ib3\n' | conf "$h"
	[ $((k % 2)) = 0 ] && printf '[Gateways]\nib1=peer\nib2=peer\nib3=peer\n' >>"$T_DIR/$h.conf"
	for rl in $RAILS; do
		veth "$h" "ib$rl" "$h" "r$rl"
		addr "$h" "ib$rl" "$(a4 "$h" "$rl")/31"
		addr "$h" "ib$rl" "$(a6 "$h" "$rl")/64"
		addr "r$rl" "$h" "10.$rl.$k.0/31"
		addr "r$rl" "$h" "fd00:$rl:$k::1/64"
		addr "r$rl" "$h" "fe80::1/64"
		nsx "r$rl" sysctl -qw "net.ipv4.conf.$h.rp_filter=1"
		if [ $((k % 2)) = 1 ] || [ "$rl" = 0 ]; then
			ip -n "$(ns "$h")" route add default via "10.$rl.$k.0" dev "ib$rl" proto static \
				metric $((100 + rl)) || exit 1
		fi
		ip -n "$(ns "$h")" -6 route add default via fe80::1 dev "ib$rl" proto static \
			metric $((100 + rl)) || exit 1
	done
done

# bad_routes HOST: into $T_DIR/routes, "HOST P K Q" for each port Q of another
# host K to which HOST's kernel sends from port P's address (IPv4 or IPv6)
# through another port than P, or not at all; into $T_DIR/replies, those of
# them whose pair Q to P such a reply does not carry (carries, common.sh: no
# route through P bound to it; an odd host's main holds a default through
# every port, an even host's through ib0 only)
bad_routes() {
	local p k q fam dev bad reply
	: >"$T_DIR/routes"
	: >"$T_DIR/replies"
	for p in $RAILS; do
		for k in $(seq 1 $HOSTS); do
			[ "h$k" = "$1" ] && continue
			for q in $RAILS; do
				bad='' reply=''
				for fam in 4 6; do
					dev=$(ip -n "$(ns "$1")" -$fam route get "$(a$fam "h$k" "$q")" \
						from "$(a$fam "$1" "$p")" 2>/dev/null |
						sed -n '1s/.* dev \([^ ]*\).*/\1/p')
					[ "$dev" = "ib$p" ] && continue
					bad=1
					carries "$1" "ib$p" "$(a$fam "$1" "$p")" "$(a$fam "h$k" "$q")" -$fam ||
						reply=1
				done
				[ -z "$bad" ] || echo "$1 ib$p h$k ib$q" >>"$T_DIR/routes"
				[ -z "$reply" ] || echo "$1 ib$p h$k ib$q" >>"$T_DIR/replies"
			done
		done
	done
}
# answered FAM "H P K Q": three pings from H's port P address to K's port Q
# address are answered, and left through P: its packet counter rose by three,
# no other port's did (IPv6 has no rp_filter on the routers to drop what
# leaves through another port; a neighbour advertisement may leave through P)
answered() {
	local before after rl
	set -- "$1" $2
	before=($(tx "$2"))
	nsx "$2" ping "-$1" -q -c 3 -i 0.2 -W "$(scaled 1)" -I "$(a$1 "$2" "${3#ib}")" \
		"$(a$1 "$4" "${5#ib}")" >/dev/null 2>&1 || return 1
	after=($(tx "$2"))
	for rl in $RAILS; do
		if [ "ib$rl" = "$3" ]; then
			[ $((after[rl] - before[rl])) -ge 3 ] || return 1
		else
			[ $((after[rl] - before[rl])) -lt 3 ] || return 1
		fi
	done
}
# truth FAM: a ping agrees with the matrix on the first broken pair of
# $T_DIR/routes and on a pair between two hosts other than the one at fault
truth() {
	local broken others k l fine
	broken=$(head -n 1 "$T_DIR/routes")
	others=($(seq 1 $HOSTS | grep -vx "${broken:1:1}"))
	k=$((RANDOM % ${#others[@]}))
	l=$(((k + 1 + RANDOM % (${#others[@]} - 1)) % ${#others[@]}))
	fine="h${others[k]} ib$((RANDOM % PORTS)) h${others[l]} ib$((RANDOM % PORTS))"
	if answered "$family" "$broken"; then
		not_ok "  IPv$family: a ping from $broken is answered out of its port, but the matrix breaks it"
	elif ! answered "$family" "$fine"; then
		not_ok "  IPv$family: a ping from $fine is not answered out of its port, but the matrix says ok"
	else
		ok "  IPv$family: a ping says the same (not from $broken; from $fine)"
	fi
}
# fault CAUSE HOST FAM: the matrix breaks exactly the pairs of HOST's bad routes, with CAUSE
fault() {
	bad_routes "$2"
	check "$1 at $2: the kernel has bad routes there ($(wc -l <"$T_DIR/routes"), replies not carried: $(wc -l <"$T_DIR/replies"))" \
		test -s "$T_DIR/routes"
	steps
	expect routes "$1" "$T_DIR/routes" "$T_DIR/replies"
	family=$3 truth
}

seed=${IB_HOOK_FLEET_SEED:-$(date +%s)}
rounds=${IB_HOOK_FLEET_ROUNDS:-1}
RANDOM=$seed
echo "# seed $seed (IB_HOOK_FLEET_SEED=$seed repeats it)"

n=h$((RANDOM % HOSTS + 1))
apply -x "$n"
fault not-applied "$n" 4
expect_eq "  from $n, the routes from ib1-ib3 to the other hosts leave through ib0" \
	"$(((HOSTS - 1) * PORTS * 3)) 0" \
	"$(wc -l <"$T_DIR/routes") $(grep -c " ib0 h" "$T_DIR/routes")"

# no address is on-link for another host's port (a /31 and a /64 to the
# rail's router): nothing is asked by ARP
healthy "240 pairs: 192 ok, 0 not ok, 48 local (not judged); ARP probed for 0, derived for 0"
# each of the 16 addresses per family looks up its 12 peers on other hosts
expect_eq "  every pair of ports between hosts is checked, IPv4 and IPv6" "192 192" \
	"$(python3 "$here/covered.py" "$T_DIR/inventory.json" "$T_DIR/answers.json")"
valid_all
echo "# 240 pairs checked and joined in $took s"

for round in $(seq 1 "$rounds"); do
	next_round "$round"

	# ib0 is where main sends every port's traffic: a fault shows on the others
	h=h$((RANDOM % HOSTS + 1))
	p=ib$((RANDOM % 3 + 1))
	ip -n "$(ns "$h")" rule del from "$(a4 "$h" "${p#ib}")"
	fault no-rule "$h" 4
	apply

	h=h$((RANDOM % HOSTS + 1))
	p=ib$((RANDOM % 3 + 1))
	ip -n "$(ns "$h")" route del default table "$(table_of "$h" "$p")"
	fault wrong-port "$h" 4
	apply

	h=h$((RANDOM % HOSTS + 1))
	p=ib$((RANDOM % 3 + 1))
	ip -n "$(ns "$h")" -6 route del default table "$(table_of "$h" "$p")"
	fault wrong-port "$h" 6
	check "  the cause names the IPv6 address" grep -q "from $(a6 "$h" "${p#ib}") " "$T_DIR/matrix.txt"
	apply

	# an even host: main's one IPv4 gateway route is ib0's
	h=h$((RANDOM % (HOSTS / 2) * 2 + 2))
	t=$(table_of "$h" ib0)
	ip -n "$(ns "$h")" route del default table "$t"
	steps
	expect none
	sed -n '1s/^/#   T(ib0) of '"$h"' lost its copy, main still sends it out of ib0: /p' "$T_DIR/matrix.txt"
	ip -n "$(ns "$h")" route del default dev ib0
	apply
	fault no-route "$h" 4
	ip -n "$(ns "$h")" route add default via "10.0.${h#h}.0" dev ib0 proto static metric 100
	apply
done
steps
expect none
done_testing
