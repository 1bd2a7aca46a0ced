# SPDX-License-Identifier: GPL-2.0-or-later
# A routed rail fabric in namespaces (SPEC section 9): hosts a and b with four
# ports ib0-ib3 each; port N of each host is a /31 and an IPv6 /64 to the
# router of rail N (namespace rN); the routers forward, drop by strict
# rp_filter what arrives on a port their way back does not leave through, and
# reach the other rails through a spine with static routes.
#
#   host a ibN 10.N.0.1/31  fd00:N:a::2/64  --  rN 10.N.0.0/31  fd00:N:a::1/64 fe80::1
#   host b ibN 10.N.1.1/31  fd00:N:b::2/64  --  rN 10.N.1.0/31  fd00:N:b::1/64 fe80::1
#   rN s 10.250.N.1/31  fd99:N::1/64  --  spine sN 10.250.N.0/31  fd99:N::2/64
#
# Main on the hosts as systemd-networkd leaves it: `default via 10.N.x.0 dev
# ibN proto static metric 10N` (layout defaults) or a rail aggregate
# `10.0.0.0/12 via 10.N.x.0 dev ibN proto static metric 10N`, a fabric aggregate
# per port (layout aggregates), or the route to its own rail only, `10.N.0.0/16
# via 10.N.x.0 dev ibN proto static` (layout rails-only); and the
# IPv6 default the host's kernel learns from each router's advertisement
# (`default via fe80::1 dev ibN proto ra`).
. "$(dirname "$0")/../lib.sh"

RAILS="0 1 2 3"
RA_PY="$(dirname "$0")/ra.py"

# addr4 HOST N / addr6 HOST N: the address of host (a or b) on port N
addr4() {
	[ "$1" = a ] && echo "10.$2.0.1" || echo "10.$2.1.1"
}
addr6() {
	echo "fd00:$2:$1::2"
}
other() {
	[ "$1" = a ] && echo b || echo a
}
gw4() {
	[ "$1" = a ] && echo "10.$2.0.0" || echo "10.$2.1.0"
}

router_sysctls() {
	nsx "$1" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
		net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.default.rp_filter=1
}

# rail_router N: the link of rail N's router (namespace rN) to the spine, and
# the routes between them (both namespaces exist)
rail_router() {
	veth "r$1" s "s$1" spine
	addr "r$1" s "10.250.$1.1/31"
	addr "r$1" s "fd99:$1::1/64"
	addr spine "s$1" "10.250.$1.0/31"
	addr spine "s$1" "fd99:$1::2/64"
	ip -n "$(ns "r$1")" route add default via "10.250.$1.0"
	ip -n "$(ns "r$1")" -6 route add default via "fd99:$1::2"
	ip -n "$(ns spine)" route add "10.$1.0.0/16" via "10.250.$1.1"
	ip -n "$(ns spine)" -6 route add "fd00:$1::/32" via "fd99:$1::1"
}

# fabric LAYOUT: the namespaces, links, addresses and routes
fabric() {
	layout=$1
	for h in a b; do
		ns_new "$h"
		ipv6_quiet "$h"
	done
	routers
	for rl in $RAILS; do
		rail_port a "$rl"
		rail_port b "$rl"
		for h in a b; do
			addr "$h" "ib$rl" "$(addr4 "$h" "$rl")/31"
			addr "$h" "ib$rl" "$(addr6 "$h" "$rl")/64"
		done
	done
	for h in a b; do
		for rl in $RAILS; do
			case $layout in
			defaults) dst=default metric="metric $((100 + rl))" ;;
			aggregates) dst=10.0.0.0/12 metric="metric $((100 + rl))" ;;
			rails-only) dst=10.$rl.0.0/16 metric= ;;
			esac
			ip -n "$(ns "$h")" route add $dst via "$(gw4 "$h" "$rl")" dev "ib$rl" \
				proto static $metric || exit 1
		done
	done
	for rl in $RAILS; do
		learn_ra a "$rl"
		learn_ra b "$rl"
	done
	warm
	printf '[Match]\nName=ib0 ib1 ib2 ib3\n' | conf host
}

# warm: every neighbour entry a pair's ping needs, resolved once before the
# pairs are counted (each host to its rail routers, each router to the
# spine), so that a ping's short wait measures routing, not three ARP or ND
# resolutions in a row on a loaded machine (a CI run saw 4 of the 8 pairs on
# one rail unanswered before ib-hook); entries go stale, not away, and a
# stale one is used at once
warm() {
	pids=
	for h in a b; do
		for rl in $RAILS; do
			nsx "$h" ping -4 -q -c 1 -W 2 -I "ib$rl" "$(gw4 "$h" "$rl")" >/dev/null 2>&1 &
			pids="$pids $!"
			nsx "$h" ping -6 -q -c 1 -W 2 -I "ib$rl" "fd00:$rl:$h::1" >/dev/null 2>&1 &
			pids="$pids $!"
			nsx "$h" ping -6 -q -c 1 -W 2 "fe80::1%ib$rl" >/dev/null 2>&1 &
			pids="$pids $!"
		done
	done
	for rl in $RAILS; do
		nsx "r$rl" ping -4 -q -c 1 -W 2 "10.250.$rl.0" >/dev/null 2>&1 &
		pids="$pids $!"
		nsx "r$rl" ping -6 -q -c 1 -W 2 "fd99:$rl::2" >/dev/null 2>&1 &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086 # the list of pids
	wait $pids
}

# routers: the spine and the rail routers rN, joined and routed
routers() {
	ns_new spine
	ipv6_quiet spine
	router_sysctls spine
	for rl in $RAILS; do
		ns_new "r$rl"
		ipv6_quiet "r$rl"
		router_sysctls "r$rl"
		rail_router "$rl"
	done
}

# rail_port HOST N: HOST's port ibN (the namespace HOST exists), a veth to
# router N's port HOSTN, which holds the gateway addresses and a strict rp_filter
rail_port() {
	veth "$1" "ib$2" "$1$2" "r$2"
	addr "r$2" "$1$2" "$(gw4 "$1" "$2")/31"
	addr "r$2" "$1$2" "fd00:$2:$1::1/64"
	addr "r$2" "$1$2" "fe80::1/64"
	nsx "r$2" sysctl -qw "net.ipv4.conf.$1$2.rp_filter=1"
}

# learn_ra HOST N: router N advertises itself until host learns its default through ibN
learn_ra() {
	for _ in $(seq 50); do
		nsx "r$2" python3 "$RA_PY" "$1$2"
		ip -n "$(ns "$1")" -6 route show default dev "ib$2" | grep -q "via fe80::1 proto ra" &&
			return 0
		sleep 0.1
	done
	echo "# host $1 learnt no IPv6 default through ib$2" >&2
	exit 1
}

# hook_all HOST: the hook as networkd-dispatcher runs it, for each port
hook_all() {
	for rl in $RAILS; do
		hook "$1" "$T_DIR/host.conf" IFACE="ib$rl" STATE=routable ADDR=dummy \
			OperationalState=routable AdministrativeState=configured || return 1
	done
}

# tx HOST: the packets each port of host sent, "ib0 ib1 ib2 ib3" (one
# netlink dump, not a process per port: a pair reads them twice)
tx() {
	ip -n "$(ns "$1")" -s -o link show | awk -v rails="$RAILS" '
		{ n = $2; sub(/[@:].*/, "", n); for (i = 1; i < NF; i++) if ($i == "TX:") { p[n] = $(i + 9); break } }
		END { k = split(rails, r, " "); for (i = 1; i <= k; i++) printf "%s ", p["ib" r[i]] }'
}

# ends FAMILY HOST X Y: "SRC DST", the addresses of HOST's port X and of the
# other host's port Y
ends() {
	if [ "$1" = 4 ]; then
		echo "$(addr4 "$2" "$3") $(addr4 "$(other "$2")" "$4")"
	else
		echo "$(addr6 "$2" "$3") $(addr6 "$(other "$2")" "$4")"
	fi
}

# pair FAMILY HOST X Y [WAIT]: a ping from HOST's address on port X to the
# other host's address on port Y is answered within WAIT seconds (0.5) after
# its last request, and it left through port X only (its packet counter rose
# by the three requests, no other port's did by as many). The requests go
# 50 ms apart (root may: 0.2 s before, 0.3 s more a pair, of some 380 pairs
# a run: rails-routed was the longest test of every suite run)
pair() {
	fam=$1 h=$2 x=$3 y=$4 pw=${5:-0.5}
	set -- $(ends "$fam" "$h" "$x" "$y")
	src=$1 dst=$2
	before=($(tx "$h"))
	nsx "$h" ping "-$fam" -q -c 3 -i 0.05 -W "$pw" -I "$src" "$dst" >/dev/null 2>&1 || return 1
	after=($(tx "$h"))
	for rl in $RAILS; do
		d=$((after[rl] - before[rl]))
		if [ "$rl" = "$x" ]; then
			[ "$d" -ge 3 ] || return 2
		else
			[ "$d" -lt 3 ] || return 3
		fi
	done
	return 0
}

# pairs FAMILY [HOSTS]: how many of the directed pairs from HOSTS (default
# both: 32) pass, and the failing ones in $T_DIR/failed. A pair whose ping
# went unanswered within its short wait has a second chance: all such pairs
# are pinged again at once, each waiting 2 s (times $T_SCALE), and one
# answered then (a loaded machine answers late) is tried again with that
# wait on its own, to count which port it leaves through; a pair answered
# whose counters say another port is counted once more. A pair that is not
# answered costs the long wait once per sweep, not once per pair.
pairs() {
	local long pids h x y rc
	good=0
	long=$(scaled 2)
	: >"$T_DIR/failed"
	: >"$T_DIR/unanswered"
	: >"$T_DIR/late"
	for h in ${2:-a b}; do
		for x in $RAILS; do
			for y in $RAILS; do
				pair "$1" "$h" "$x" "$y"
				rc=$?
				if [ "$rc" = 0 ]; then
					good=$((good + 1))
				elif [ "$rc" = 1 ]; then
					echo "$h $x $y" >>"$T_DIR/unanswered"
				elif pair "$1" "$h" "$x" "$y" "$long"; then
					# the counters disturbed once (another port's
					# packets): counted again, once
					echo "# IPv$1 $h ib$x -> ib$y: counted again (the first count: $rc)" >&2
					good=$((good + 1))
				else
					echo "$h ib$x -> ib$y (IPv$1, $?)" >>"$T_DIR/failed"
				fi
			done
		done
	done
	pids=
	while read -r h x y; do
		(
			set -- "$1" $(ends "$1" "$h" "$x" "$y")
			nsx "$h" ping "-$1" -q -c 3 -i 0.05 -W "$long" -I "$2" "$3" >/dev/null 2>&1 &&
				echo "$h $x $y" >>"$T_DIR/late"
		) &
		pids="$pids $!"
	done <"$T_DIR/unanswered"
	# shellcheck disable=SC2086 # the list of pids
	[ -z "$pids" ] || wait $pids
	while read -r h x y; do
		if grep -qx "$h $x $y" "$T_DIR/late"; then
			echo "# IPv$1 $h ib$x -> ib$y: answered only after ${long} s" >&2
			pair "$1" "$h" "$x" "$y" "$long"
			rc=$?
		else
			rc=1
		fi
		if [ "$rc" = 0 ]; then
			good=$((good + 1))
		else
			echo "$h ib$x -> ib$y (IPv$1, $rc)" >>"$T_DIR/failed"
		fi
	done <"$T_DIR/unanswered"
	echo "$good"
}

# rstate NS: state without the lifetimes of the RA routes, which count down
rstate() {
	state "$1" | sed 's/ expires [0-9]*sec//'
}

# record_path HOST: the record of HOST's namespace, as --status names it
record_path() {
	nsx "$1" "$IB_HOOK" --config "$T_DIR/host.conf" --status 2>&1 |
		sed -n 's/.*record: \([^ ]*\) (.*/\1/p'
}
