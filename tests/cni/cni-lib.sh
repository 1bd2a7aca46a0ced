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

# ib-hook alone as a plugin, called as a runtime calls it, without
# Debian's plugins: links of a pod made by the test, prevResult written here

# ibh_plugin COMMAND POD IFNAME: ib-hook for IFNAME of POD, the configuration on stdin
ibh_plugin() {
	CNI_COMMAND=$1 CNI_CONTAINERID=ctr-$T_PFX$2 CNI_NETNS=$(netns_path "$2") CNI_IFNAME=$3 \
		"$IB_HOOK"
}

# prev_conf POD IFNAME ADDRESS GATEWAY [KEYS]: the plugin's configuration,
# KEYS (JSON members) beside its type, prevResult naming IFNAME of POD with
# ADDRESS and GATEWAY as a plugin before ib-hook reports them
prev_conf() {
	printf '{"cniVersion":"1.0.0","name":"n","type":"ib-hook"%s,"prevResult":{"cniVersion":"1.0.0","interfaces":[{"name":"%s","sandbox":"%s"}],"ips":[{"address":"%s","gateway":"%s","interface":0}]}}\n' \
		"${5:+,$5}" "$2" "$(netns_path "$1")" "$3" "$4"
}

# cni_code FILE: the code of the CNI error object in FILE (ib-hook's own
# compact JSON: no python to start for each), or "none"
cni_code() {
	local c
	c=$(sed -n 's/^{"cniVersion":"[^"]*","code":\([0-9]*\),.*/\1/p' "$1")
	echo "${c:-none}"
}

# attach POD IFNAME ADDRESS: a link of POD with that address, up (a veth whose
# peer stays in POD without an address: this kernel may lack dummy links)
attach() {
	local peer="p${2//[^a-z0-9]/}"
	ip -n "$T_PFX$1" link add "$2" type veth peer name "$peer" &&
		ip -n "$T_PFX$1" link set "$peer" up && ip -n "$T_PFX$1" link set "$2" up &&
		ip -n "$T_PFX$1" addr add "$3" dev "$2"
}

# pod_file POD: the container's file ib-hook keeps beside the pod's record
pod_file() {
	echo "/run/ib-hook/cni-ctr-$T_PFX$1"
}
