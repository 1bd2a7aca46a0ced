# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the CNI tests: a node namespace that holds the fabric (a bridge
# made by Debian's bridge plugin), pods as namespaces of their own, and the
# plugin lists run as libcni runs them (cnitool.py), with ib-hook in CNI_PATH
# beside Debian's plugins. Everything lives in the test's namespaces and
# $T_DIR (host-local's leases, the result cache).
. "$(dirname "$0")/../lib.sh"

CNI_PLUGINS=${CNI_PLUGINS:-/usr/lib/cni}
CNITOOL="$(cd "$(dirname "$0")" && pwd)/cnitool.py"

cni_require() {
	t_require python3
	for p in bridge host-local sbr macvlan static; do
		[ -x "$CNI_PLUGINS/$p" ] ||
			skip "needs Debian's CNI plugins ($CNI_PLUGINS/$p; apt-get install containernetworking-plugins)"
	done
	mkdir -p "$T_DIR/bin" "$T_DIR/cache" "$T_DIR/ipam"
	ln -s "$CNI_PLUGINS"/* "$T_DIR/bin/"
	# the plugin is the program itself, under its plugin name
	ln -s "$IB_HOOK" "$T_DIR/bin/ib-hook"
	export CNI_PATH="$T_DIR/bin"
}

# pod NAME: a pod's network namespace, IPv6 without DAD and router solicitations (no waiting)
pod() {
	ns_new "$1"
	for k in accept_dad router_solicitations; do
		for c in all default; do
			nsx "$1" sysctl -qw "net.ipv6.conf.$c.$k=0"
		done
	done
}

# netns_path NAME: CNI_NETNS of pod NAME
netns_path() {
	echo "/var/run/netns/$T_PFX$1"
}

# cni NODE COMMAND CONFLIST POD IFNAME: the list run by the runtime of node NODE
cni() {
	nsx "$1" "$CNITOOL" "$2" "$3" "ctr-$T_PFX$4" "$(netns_path "$4")" "$5" "$T_DIR/cache"
}

# conflist FILE NAME CNIVERSION PLUGIN...: a network configuration list
conflist() {
	local f=$1 name=$2 v=$3 p first
	shift 3
	{
		printf '{"cniVersion":"%s","name":"%s","plugins":[' "$v" "$name"
		first=1
		for p in "$@"; do
			[ $first = 1 ] || printf ','
			first=0
			printf '%s' "$p"
		done
		printf ']}\n'
	} >"$f"
}

# bridge_plugin BRIDGE SUBNET START END [GATEWAY-JSON...]: bridge + host-local, one range
bridge_plugin() {
	printf '{"type":"bridge","bridge":"%s","ipam":{"type":"host-local","dataDir":"%s","ranges":[[{"subnet":"%s","rangeStart":"%s","rangeEnd":"%s"%s}]]}%s}' \
		"$1" "$T_DIR/ipam" "$2" "$3" "$4" "${5:-}" "${6:-}"
}

# ibh_state POD: the rules and every table but local and main (what ib-hook and sbr add)
ibh_state() {
	ip -n "$T_PFX$1" rule show
	ip -n "$T_PFX$1" -6 rule show
	ip -n "$T_PFX$1" route show table all | grep -e ' table ' | grep -v -e ' table local' -e ' table main'
	ip -n "$T_PFX$1" -6 route show table all | grep -e ' table ' | grep -v -e ' table local' -e ' table main'
}

# pod_addr POD IFNAME FAMILY: the interface's global address
pod_addr() {
	ip -n "$T_PFX$1" -"$3" -o addr show dev "$2" scope global | awk '{print $4}' | cut -d/ -f1 | head -1
}

pod_mac() {
	ip -n "$T_PFX$1" -o link show dev "$2" | sed 's/.*link\/ether \([^ ]*\).*/\1/'
}

# record_of POD: the record ib-hook keeps for the pod's namespace (noted for the cleanup)
record_of() {
	t_record "$(ns "$1")"
	echo "${T_RECORDS##* }"
}
