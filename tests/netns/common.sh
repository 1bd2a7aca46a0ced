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

conf default <<'CONF'
[Match]
Name=ib0 ib1 ibs5f0 ibs5f1
CONF
