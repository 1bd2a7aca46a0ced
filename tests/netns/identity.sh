#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A route is ib-hook's only when it equals what ib-hook installs in every
# attribute the kernel reports (issue 20, cases 1, 2 and 6):
# - an IPv6 route with `pref high` or `expires` in T(ib1) is the user's: never
#   adopted, never taken for ib-hook's after it replaced ib-hook's, never
#   deleted by --remove; it keeps ib-hook's route out (the kernel's EEXIST), so
#   apply refuses and names it, and nothing enters the record;
# - under MainRoute=delete only the exact route the kernel made for the
#   address is deleted from main and given back: a user's prefix route with
#   `mtu` or another metric stays, and a second apply changes nothing.
. "$(dirname "$0")/common.sh"
t_require

v6host() { # v6host NS: memserver34 with an IPv6 address on each port
	memserver34 "$1"
	ip -n "$(ns "$1")" -6 addr add 2001:db8:34::1/64 dev ib0 nodad
	ip -n "$(ns "$1")" -6 addr add 2001:db8:34::2/64 dev ib1 nodad
}

# no_record_line NS CONF PATTERN: --status names the record, and either says
# it is absent and no such file exists, or the file exists and neither it nor
# a file of a link's routes beside it has a line matching PATTERN
no_record_line() {
	local line rec
	line=$(ibh "$1" --config "$2" --status 2>/dev/null | grep -o '; record: [^ ;]*\( (absent)\)\?')
	rec=${line#; record: }
	rec=${rec% (absent)}
	[ -n "$rec" ] || { echo "# --status names no record"; return 1; }
	case $line in
	*' (absent)') [ ! -e "$rec" ] ;;
	*) [ -f "$rec" ] && ! cat "$rec" "$rec".routes-* 2>/dev/null | grep -q "$3" ;;
	esac
}

# route6 NS T: table T's IPv6 routes, with their details
route6() {
	ip -n "$(ns "$1")" -6 -d route show table "$2" | sed 's/ *$//'
}

conf v6 <<'CONF'
[Match]
Name=ib0 ib1
CONF
conf="$T_DIR/v6.conf"

# -- 1a: a user's `pref high` route planted before the first run
v6host pa
t1=$(table_of pa ib1)
ip -n "$(ns pa)" -6 route add 2001:db8:34::/64 dev ib1 table "$t1" proto kernel metric 1024 pref high
user=$(route6 pa "$t1")
expect_rc "pref high planted: apply refuses" 1 ibh pa --config "$conf" --iface ib1
check "  and names the route in the way" grep -q "2001:db8:34::/64.*pref high" "$T_DIR/err"
expect_eq "  the user's route is untouched" "$user" "$(route6 pa "$t1")"
check "  the record holds no IPv6 route" no_record_line pa "$conf" '^route ib1 .*2001:db8:34::/64'
expect_rc "  --status says refused" 1 ibh pa --config "$conf" --status --iface ib1
check "  verdict refused" grep -q "verdict: refused" "$T_DIR/out"
expect_rc "  --remove" 0 ibh pa --config "$conf" --remove --iface ib1
expect_eq "  --remove leaves the user's route" "$user" "$(route6 pa "$t1")"

# -- 1b: a user's route with `expires`
v6host pe
t1=$(table_of pe ib1)
ip -n "$(ns pe)" -6 route add 2001:db8:34::/64 dev ib1 table "$t1" proto kernel metric 1024 expires 3600
expect_rc "expires planted: apply refuses" 1 ibh pe --config "$conf" --iface ib1
check "  and names the route in the way" grep -q "2001:db8:34::/64.*expires" "$T_DIR/err"
expect_rc "  --remove" 0 ibh pe --config "$conf" --remove --iface ib1
check "  --remove leaves the user's route" sh -c "ip -n '$(ns pe)' -6 route show table $t1 | grep -q expires"

# -- 1c: the user replaced ib-hook's route with a `pref high` one
v6host pr
t1=$(table_of pr ib1)
expect_rc "apply" 0 ibh pr --config "$conf" --iface ib1
ip -n "$(ns pr)" -6 route replace 2001:db8:34::/64 dev ib1 table "$t1" proto kernel metric 1024 pref high
user=$(route6 pr "$t1")
expect_rc "replaced by pref high: apply refuses" 1 ibh pr --config "$conf" --iface ib1
expect_eq "  the user's route is untouched" "$user" "$(route6 pr "$t1")"
expect_rc "  --remove" 0 ibh pr --config "$conf" --remove --iface ib1
expect_eq "  --remove leaves the user's route" "$user" "$(route6 pr "$t1")"
check "  and takes ib-hook's rules" test "$(rules_from pr 172.16.34.2)" = 0

# -- 6: a foreign proto static route where ib-hook's would go: EEXIST is no success
v6host st
t1=$(table_of st ib1)
ip -n "$(ns st)" -6 route add 2001:db8:34::/64 dev ib1 table "$t1" proto static metric 1024
user=$(route6 st "$t1")
for run in first second; do
	expect_rc "proto static in the way: $run apply exits 1" 1 ibh st --config "$conf" --iface ib1
	check "  names the route in the way" grep -q "2001:db8:34::/64.*ib-hook did not install" "$T_DIR/err"
done
check "  the record holds no IPv6 route" no_record_line st "$conf" '^route ib1 .*2001:db8:34::/64'
expect_rc "  --status agrees (exit 1, refused)" 1 ibh st --config "$conf" --status --iface ib1
check "  verdict refused" grep -q "verdict: refused" "$T_DIR/out"
expect_eq "  the user's route is untouched" "$user" "$(route6 st "$t1")"

# -- 2: MainRoute=delete and main-table routes that are not the kernel's own
conf main <<'CONF'
[Match]
Name=ib0 ib1
[Routing]
MainRoute=delete
CONF
mconf="$T_DIR/main.conf"
main_routes() { # main_routes NS: main's routes for ib1's subnets, both families
	{
		ip -n "$(ns "$1")" -d route show table main 172.16.0.0/16 dev ib1
		ip -n "$(ns "$1")" -6 -d route show table main 2001:db8:34::/64 dev ib1
	} | sed 's/ *$//' | sort
}

v6host mt
nsx mt ip route del 172.16.0.0/16 dev ib1
nsx mt ip route append 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 mtu 1400
nsx mt ip -6 route del 2001:db8:34::/64 dev ib1
nsx mt ip -6 route append 2001:db8:34::/64 dev ib1 proto kernel metric 256 mtu 1400
before=$(main_routes mt)
expect_rc "mtu 1400 in main: apply" 0 ibh mt --config "$mconf" --iface ib1
check "  says nothing about main" sh -c "! grep -q 'table main' '$T_DIR/err'"
expect_eq "  main keeps the user's routes" "$before" "$(main_routes mt)"
expect_rc "  second apply" 0 ibh mt --config "$mconf" --iface ib1
expect_eq "  is silent" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
expect_rc "  --remove" 0 ibh mt --config "$mconf" --remove --iface ib1
expect_eq "  --remove adds no plain route beside them" "$before" "$(main_routes mt)"

v6host mm
nsx mm ip route append 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 metric 50
nsx mm ip -6 route append 2001:db8:34::/64 dev ib1 proto kernel metric 50
expect_rc "another metric in main: apply" 0 ibh mm --config "$mconf" --iface ib1
# IPv6 looks the prefix up and finds the user's metric 50 before the kernel's
# 256: a route that no lookup reaches stays (ib-hook never dumps main)
expect_eq "  the kernel's IPv4 route goes, the user's stay" \
	"unicast 172.16.0.0/16 proto kernel scope link src 172.16.34.2 metric 50
unicast 2001:db8:34::/64 proto kernel scope global metric 256 pref medium
unicast 2001:db8:34::/64 proto kernel scope global metric 50 pref medium" \
	"$(main_routes mm)"
expect_rc "  second apply" 0 ibh mm --config "$mconf" --iface ib1
expect_eq "  is silent" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
expect_rc "  --remove" 0 ibh mm --config "$mconf" --remove --iface ib1
check "  gives the kernel's IPv4 route back" sh -c \
	"ip -n '$(ns mm)' route show table main 172.16.0.0/16 | grep -qx '172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 *'"
check "  and keeps the user's" sh -c \
	"ip -n '$(ns mm)' route show table main 172.16.0.0/16 | grep -q 'metric 50'"
done_testing
