# SPDX-License-Identifier: GPL-2.0-or-later
# The seed's lab hosts as namespaces: memserver34 (ib0, ib1) and cpuserver16
# (ibs5f0, ibs5f1), every port a veth whose peer (p<port>) is not managed.
. "$(dirname "$0")/../lib.sh"

memserver34() {
	ns_new "${1:-mem}"
	veth "${1:-mem}" ib0 pib0
	veth "${1:-mem}" ib1 pib1
	addr "${1:-mem}" ib0 172.16.34.1/16
	addr "${1:-mem}" ib1 172.16.34.2/16
}

cpuserver16() {
	ns_new "${1:-cpu}"
	veth "${1:-cpu}" ibs5f0 pibs5f0
	veth "${1:-cpu}" ibs5f1 pibs5f1
	addr "${1:-cpu}" ibs5f0 172.16.16.1/16
	addr "${1:-cpu}" ibs5f1 172.16.16.2/16
}

# ifindex NS IF
ifindex() {
	ip -n "$(ns "$1")" -o link show "$2" | cut -d: -f1
}

# table_of NS IF: T(IF) with the default TableBase
table_of() {
	echo $((1000 + $(ifindex "$1" "$2")))
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

conf default <<'CONF'
[Match]
Name=ib0 ib1 ibs5f0 ibs5f1
CONF
