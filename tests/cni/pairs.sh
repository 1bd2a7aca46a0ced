#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPEC section 11, issue 40: two pods with four attachments each, made by
# Debian's bridge and host-local plugins run as libcni runs a plugin list,
# and the 16 directed pairs from pod A's addresses to pod B's: does the
# request leave A's interface of the source address, and does the answer come
# from B's interface of the destination address? Measured side by side for
# the attachments alone (baseline), with the CNI sbr plugin chained, and with
# ib-hook chained; ib-hook must give 16 of 16, and the baseline must not (else
# the measure cannot fail). Layouts: one /16 for every attachment (IPv4, and
# one /64 for IPv6, where the kernel itself already picks the source's
# device among routes to one prefix): a pair counts when A's neighbour entry for B's address is
# on A's source interface with the MAC of B's destination interface; routed
# rails (a /24 or /64 and a gateway per attachment, the bridge of each rail routing
# between them): a pair counts when the ping is answered, only A's source
# interface sent and only B's destination interface sent.
. "$(dirname "$0")/cni-lib.sh"
cni_require ping

N=4

# one_subnet_pair FAMILY I J: the pair from A's netI to B's netJ in one subnet
one_subnet_pair() {
	ai=$(pod_addr a "net$2" "$1")
	bj=$(pod_addr b "net$3" "$1")
	ip -n "$(ns a)" neigh flush all
	ip -n "$(ns b)" neigh flush all
	nsx a ping -"$1" -c1 -W2 -I "$ai" "$bj" >/dev/null 2>&1
	got=$(ip -n "$(ns a)" -"$1" neigh show to "$bj" dev "net$2" | awk '$2 == "lladdr" {print $3}')
	[ -n "$got" ] && [ "$got" = "$(pod_mac b "net$3")" ]
}

# tx POD: the transmitted packets of the pod's attachments, one line
tx() {
	for k in $(seq 0 $((N - 1))); do
		nsx "$1" cat "/sys/class/net/net$k/statistics/tx_packets"
	done | tr '\n' ' '
}

# only_sent BEFORE AFTER K: only interface K sent
only_sent() {
	set -- $1 -- $2 "$3"
	k=${*: -1}
	before=("$@")
	for x in $(seq 0 $((N - 1))); do
		d=$((${before[$((N + 1 + x))]} - ${before[$x]}))
		if [ "$x" = "$k" ]; then [ "$d" -gt 0 ] || return 1; else [ "$d" = 0 ] || return 1; fi
	done
}

# the pods' own chatter after their links came up (IPv6's unsolicited MLD
# reports, repeated for a few seconds) is over: no attachment sent for a second
quiet() {
	local before now
	before="$(tx a) $(tx b)"
	for _ in $(seq 20); do
		sleep 1
		now="$(tx a) $(tx b)"
		[ "$now" = "$before" ] && return 0
		before=$now
	done
	echo "# the pods never fell quiet: $now"
}

# routed_pair FAMILY I J: the pair from A's netI to B's netJ on routed rails.
# The rails' router (the node) forgets its neighbours too: an entry of the
# pair before left STALE there is probed by unicast while this pair runs, and
# the pod's answer from another attachment counted against it (issue 49: on
# a loaded host 1 pair of 16, IPv4 and IPv6, with ib-hook as without)
routed_pair() {
	ai=$(pod_addr a "net$2" "$1")
	bj=$(pod_addr b "net$3" "$1")
	ip -n "$(ns a)" neigh flush all
	ip -n "$(ns b)" neigh flush all
	ip -n "$(ns node)" neigh flush all
	ta=$(tx a)
	tb=$(tx b)
	nsx a ping -"$1" -c1 -W2 -I "$ai" "$bj" >/dev/null 2>&1 || { echo "# $ai -> $bj: no answer"; return 1; }
	only_sent "$ta" "$(tx a)" "$2" && only_sent "$tb" "$(tx b)" "$3" || { echo "# $ai -> $bj: sent: A $ta -> $(tx a), B $tb -> $(tx b)"; return 1; }
}

# run LAYOUT FAMILY MODE: attach, count the pairs, detach; prints the count
run() {
	layout=$1 fam=$2 mode=$3
	ns_new node
	pod a
	pod b
	if [ "$layout" = routed ]; then
		# nothing but the pings on the wire: no IPv6 in the pods
		[ "$fam" = 4 ] && for p in a b; do
			nsx "$p" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		done
	fi
	for i in $(seq 0 $((N - 1))); do
		case $layout-$fam in
		one-4) b=$(bridge_plugin fab 10.77.0.0/16 "10.77.$i.10" "10.77.$i.50") ;;
		one-6) b=$(bridge_plugin fab fd77::/64 "fd77::$i:10" "fd77::$i:50") ;;
		routed-4) b=$(bridge_plugin "rail$i" "10.80.$i.0/24" "10.80.$i.10" "10.80.$i.50" \
			',"gateway":"10.80.'$i'.1"' ',"isGateway":true') ;;
		routed-6) b=$(bridge_plugin "rail$i" "fd80:$i::/64" "fd80:$i::10" "fd80:$i::50" \
			',"gateway":"fd80:'$i'::1"' ',"isGateway":true') ;;
		esac
		case $mode in
		baseline) conflist "$T_DIR/net$i.conflist" "$mode$i" 1.0.0 "$b" ;;
		sbr) conflist "$T_DIR/net$i.conflist" "$mode$i" 1.0.0 "$b" '{"type":"sbr"}' ;;
		ib-hook) conflist "$T_DIR/net$i.conflist" "$mode$i" 1.0.0 "$b" '{"type":"ib-hook"}' ;;
		esac
	done
	for p in a b; do
		for i in $(seq 0 $((N - 1))); do
			cni node add "$T_DIR/net$i.conflist" "$p" "net$i" >/dev/null 2>"$T_DIR/err" || {
				not_ok "$layout IPv$fam $mode: ADD of $p net$i"
				sed 's/^/#  /' "$T_DIR/err" >&2
			}
		done
	done
	good=0
	[ "$layout" = routed ] && quiet
	for i in $(seq 0 $((N - 1))); do
		for j in $(seq 0 $((N - 1))); do
			if [ "$layout" = one ]; then
				one_subnet_pair "$fam" "$i" "$j" && good=$((good + 1))
			else
				routed_pair "$fam" "$i" "$j" && good=$((good + 1))
			fi
		done
	done
	if [ "$mode" = ib-hook ]; then
		rec=$(record_of a)
		check "$layout IPv$fam: the pod has a record ($rec)" test -s "$rec"
		# any attachment first: not in the order of the ADDs
		for i in 2 0 3 1; do
			for p in a b; do
				cni node del "$T_DIR/net$i.conflist" "$p" "net$i" 2>"$T_DIR/err" ||
					not_ok "$layout IPv$fam: DEL of $p net$i"
			done
		done
		expect_eq "$layout IPv$fam: DEL of every attachment leaves no rule or table of ib-hook's" \
			"$(printf '0:\tfrom all lookup local\n32766:\tfrom all lookup main\n32767:\tfrom all lookup default\n0:\tfrom all lookup local\n32766:\tfrom all lookup main')" \
			"$(ibh_state a)"
		check "$layout IPv$fam: DEL of the last attachment takes the pod's record ($rec)" test ! -e "$rec"
	fi
	for n in a b node; do ns_del "$(ns $n)"; done
	echo "$good" >"$T_DIR/good"
}

for layout in ${LAYOUTS:-one-4 one-6 routed-4 routed-6}; do
	l=${layout%-*} f=${layout#*-}
	line=
	for mode in baseline sbr ib-hook; do
		run "$l" "$f" "$mode"
		g=$(cat "$T_DIR/good")
		eval "good_${mode/-/_}=$g"
		line="$line $mode $g/16"
	done
	echo "# $l IPv$f:$line"
	expect_eq "$l IPv$f: ib-hook chained, 16 of 16 pairs leave and are answered by their own interfaces" 16 "$good_ib_hook"
	# IPv6 in one subnet: the kernel's route lookup already prefers, among
	# routes to one prefix, the one through the source address's device
	[ "$l-$f" = one-6 ] ||
		check "$l IPv$f: the baseline does not (the measure can fail: $good_baseline/16)" test "$good_baseline" -lt 16
done
done_testing
