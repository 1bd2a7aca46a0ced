#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A port renamed (same ifindex) or deleted and created again (same name, new
# ifindex) while it keeps its address and its table (issue 20, items 3 and 4):
# the first run for it converges. What ib-hook installed for the old identity
# and the link wants now stays, attributed to the link; what nobody wants any
# more is taken back.
. "$(dirname "$0")/common.sh"
t_require

conf glob <<'CONF'
[Match]
Name=ib*
CONF
{ cat "$T_DIR/glob.conf"; printf '[Routing]\nMainRoute=delete\n'; } | conf maindel
{ cat "$T_DIR/glob.conf"; printf '[Tables]\nib1=942\n'; } | conf fixed

# converged NS CONF IF TABLE WHAT: one rule per address of IF to TABLE, T has
# its routes, --status is ok and another run changes nothing
converged() {
	local n=$1 cfg=$2 dev=$3 t=$4 what=$5 m
	m=$(ns "$n")
	expect_eq "$what: one rule from 172.16.34.2 to $t" 1 \
		"$(ip -n "$m" -d rule | grep -c "from 172.16.34.2 lookup $t proto kernel *\$")"
	expect_eq "$what:   one from 2001:db8:34::2" 1 \
		"$(ip -n "$m" -6 -d rule | grep -c "from 2001:db8:34::2 lookup $t proto kernel *\$")"
	expect_eq "$what:   table $t routes through $dev" \
		"172.16.0.0/16 dev $dev proto kernel scope link src 172.16.34.2
2001:db8:34::/64 dev $dev proto kernel metric 1024 pref medium" "$(table "$n" "$t")"
	expect_eq "$what:   route get from 172.16.34.2" "$dev" "$(route_dev "$n" 172.16.16.1 172.16.34.2)"
	expect_rc "$what:   --status ok" 0 ibh "$n" --config "$cfg" --status
	expect_rc "$what:   another --all" 0 ibh "$n" --config "$cfg" --all
	expect_eq "$what:     changes nothing" "" "$(cat "$T_DIR/err")"
}

# host NS CONF: memserver34 with IPv6 on ib1, applied by hooks
host() {
	memserver34 "$1"
	ip -n "$(ns "$1")" -6 addr add 2001:db8:34::2/64 dev ib1 nodad
	for port in ib0 ib1; do
		hook "$1" "$2" IFACE=$port STATE=routable >/dev/null 2>&1
	done
}

rename_ib1() { # rename_ib1 NS NEW: as a person does it (a link must be down to be renamed)
	# the IPv6 address stays through the bounce, as the IPv4 one does
	nsx "$1" sysctl -qw net.ipv6.conf.ib1.keep_addr_on_down=1
	ip -n "$(ns "$1")" link set ib1 down
	ip -n "$(ns "$1")" link set ib1 name "$2"
	ip -n "$(ns "$1")" link set "$2" up
}

# -- 3. a renamed port that still matches: one run converges -----------------
host r1 "$T_DIR/glob.conf"
t1=$(table_of r1 ib1)
rename_ib1 r1 ibX
expect_rc "rename: --dry-run before any run" 0 ibh r1 --config "$T_DIR/glob.conf" --dry-run --all
check "  does not delete the rule ibX needs" sh -c "! grep -q 'rule del from 172.16.34.2 ' '$T_DIR/out'"
expect_rc "rename ib1 -> ibX: the hook for ibX" 0 hook r1 "$T_DIR/glob.conf" IFACE=ibX STATE=routable
check "  deleted no rule" sh -c "! grep -q 'deleted rule' '$T_DIR/err'"
converged r1 "$T_DIR/glob.conf" ibX "$t1" "rename, hook"

host r2 "$T_DIR/glob.conf"
t1=$(table_of r2 ib1)
rename_ib1 r2 ibX
expect_rc "rename ib1 -> ibX: --all" 0 ibh r2 --config "$T_DIR/glob.conf" --all
check "  deleted no rule" sh -c "! grep -q 'deleted rule' '$T_DIR/err'"
converged r2 "$T_DIR/glob.conf" ibX "$t1" "rename, --all"

# a run for another port comes first: what ibX wants is not ib0's run's to take
host r4 "$T_DIR/glob.conf"
t1=$(table_of r4 ib1)
rename_ib1 r4 ibX
expect_rc "rename ib1 -> ibX: a hook run for ib0 first" 0 hook r4 "$T_DIR/glob.conf" IFACE=ib0 STATE=routable
check "  deleted no rule" sh -c "! grep -q 'deleted rule' '$T_DIR/err'"
expect_rc "  then the hook for ibX" 0 hook r4 "$T_DIR/glob.conf" IFACE=ibX STATE=routable
check "  deleted no rule" sh -c "! grep -q 'deleted rule' '$T_DIR/err'"
converged r4 "$T_DIR/glob.conf" ibX "$t1" "rename, ib0 first"

host r3 "$T_DIR/maindel.conf"
t1=$(table_of r3 ib1)
rename_ib1 r3 ibX
expect_rc "rename under MainRoute=delete: the hook for ibX" 0 \
	hook r3 "$T_DIR/maindel.conf" IFACE=ibX STATE=routable
check "  deleted no rule" sh -c "! grep -q 'deleted rule' '$T_DIR/err'"
converged r3 "$T_DIR/maindel.conf" ibX "$t1" "rename, MainRoute=delete"
expect_eq "  main holds no 172.16.0.0/16 through ibX" "" \
	"$(ip -n "$(ns r3)" route show table main 172.16.0.0/16 dev ibX)"

# -- 4. a port deleted and created again with a [Tables] entry ---------------
host c1 "$T_DIR/fixed.conf"
m=$(ns c1)
ip -n "$m" link del ib1
veth c1 ib1 pib1
addr c1 ib1 172.16.34.2/16
ip -n "$m" -6 addr add 2001:db8:34::2/64 dev ib1 nodad
expect_rc "re-created ib1 (ib1=942): the hook for it" 0 hook c1 "$T_DIR/fixed.conf" IFACE=ib1 STATE=routable
check "  deleted no rule" sh -c "! grep -q 'deleted rule' '$T_DIR/err'"
converged c1 "$T_DIR/fixed.conf" ib1 942 "re-created"

host c2 "$T_DIR/fixed.conf"
m=$(ns c2)
ip -n "$m" link del ib1
veth c2 ib1 pib1
addr c2 ib1 172.16.34.2/16
ip -n "$m" -6 addr add 2001:db8:34::2/64 dev ib1 nodad
expect_rc "re-created ib1 (ib1=942): --all" 0 ibh c2 --config "$T_DIR/fixed.conf" --all
converged c2 "$T_DIR/fixed.conf" ib1 942 "re-created, --all"

{ cat "$T_DIR/fixed.conf"; printf '[Routing]\nMainRoute=delete\n'; } | conf fixeddel
host c4 "$T_DIR/fixeddel.conf"
m=$(ns c4)
ip -n "$m" link del ib1
veth c4 ib1 pib1
addr c4 ib1 172.16.34.2/16
ip -n "$m" -6 addr add 2001:db8:34::2/64 dev ib1 nodad
expect_rc "re-created ib1 (ib1=942, MainRoute=delete): the hook for it" 0 \
	hook c4 "$T_DIR/fixeddel.conf" IFACE=ib1 STATE=routable
check "  deleted no rule" sh -c "! grep -q 'deleted rule' '$T_DIR/err'"
converged c4 "$T_DIR/fixeddel.conf" ib1 942 "re-created, MainRoute=delete"
expect_eq "  main holds no 172.16.0.0/16 through ib1" "" \
	"$(ip -n "$m" route show table main 172.16.0.0/16 dev ib1)"

# -- a leftover nobody wants is still taken back ------------------------------
host c3 "$T_DIR/fixed.conf"
m=$(ns c3)
ip -n "$m" link del ib1
veth c3 ib1 pib1
addr c3 ib1 172.16.34.7/16
expect_rc "re-created ib1 with another address: the hook for it" 0 \
	hook c3 "$T_DIR/fixed.conf" IFACE=ib1 STATE=routable
expect_eq "  the old address's rules are taken back" "" \
	"$( (ip -n "$m" rule; ip -n "$m" -6 rule) | grep -e 'from 172.16.34.2 ' -e 'from 2001:db8:34::2 ')"
expect_eq "  the new one has its rule" 1 "$(ip -n "$m" rule | grep -c 'from 172.16.34.7 lookup 942')"
expect_rc "  --status ok" 0 ibh c3 --config "$T_DIR/fixed.conf" --status
done_testing
