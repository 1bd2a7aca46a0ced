# SPDX-License-Identifier: GPL-2.0-or-later
# The seed's lab hosts as namespaces: memserver34 (ib0, ib1) and cpuserver16
# (ibs5f0, ibs5f1), every port a veth whose peer (p<port>) is not managed.
. "$(dirname "$0")/../lib.sh"

memserver34() {
	port_host "${1:-mem}" ib0 172.16.34.1/16 ib1 172.16.34.2/16
}

cpuserver16() {
	port_host "${1:-cpu}" ibs5f0 172.16.16.1/16 ibs5f1 172.16.16.2/16
}

# table NS T: the routes of table T, without iproute2's trailing blanks
table() {
	ip -n "$(ns "$1")" route show table "$2" 2>/dev/null | sed 's/ *$//'
	ip -n "$(ns "$1")" -6 route show table "$2" 2>/dev/null | sed 's/ *$//'
}

# route_dev NS DST SRC: the device `ip route get DST from SRC` picks
route_dev() {
	ip -n "$(ns "$1")" route get "$2" from "$3" | sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -n 1
}

# expect_applied DESCRIPTION NS: memserver34 as apply leaves it, read from
# the kernel: one rule from each address (ib1's IPv6 2001:db8:34::2 too, when
# it has it) to its port's table, each table's prefix route, arp_ignore=2 and
# arp_announce=2
applied_state() { # applied_state NS T0 T1: the rules from memserver34's addresses, T0 and T1
	{
		ip -n "$(ns "$1")" rule show
		ip -n "$(ns "$1")" -6 rule show
	} | grep -E 'from (172\.16\.34\.[12]|2001:db8:34::2) ' | sed 's/^[0-9]*:[[:space:]]*//; s/[[:space:]]*$//'
	table "$1" "$2"
	table "$1" "$3"
}
expect_applied() {
	local d=$1 n=$2 t0 t1 want
	t0=$(table_of "$n" ib0)
	t1=$(table_of "$n" ib1)
	want="from 172.16.34.1 lookup $t0
from 172.16.34.2 lookup $t1
172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1
172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2"
	if ip -n "$(ns "$n")" -6 addr show dev ib1 | grep -q 'inet6 2001:db8:34::2/64'; then
		want="$want
from 2001:db8:34::2 lookup $t1
2001:db8:34::/64 dev ib1 proto kernel metric 1024 pref medium"
	fi
	expect_eq "$d" "$(printf '%s\n' "$want" | sort)" "$(applied_state "$n" "$t0" "$t1" | sort)"
	expect_eq "$d: ARP sysctls" "2 2 2 2" "$(for i in ib0 ib1; do
		nsx "$n" cat "/proc/sys/net/ipv4/conf/$i/arp_ignore" "/proc/sys/net/ipv4/conf/$i/arp_announce"
	done | tr '\n' ' ' | sed 's/ $//')"
}

conf default <<'CONF'
[Match]
Name=ib0 ib1 ibs5f0 ibs5f1
CONF
