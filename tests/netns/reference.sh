#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPEC section 7: the reference state on memserver34 (hook run as
# networkd-dispatcher does) and cpuserver16 (hook run as ifupdown does).
. "$(dirname "$0")/common.sh"
t_require

memserver34 mem
for port in ib0 ib1; do
	expect_rc "networkd-dispatcher routable for $port" 0 \
		hook mem "$T_DIR/default.conf" IFACE=$port STATE=routable ADDR=dummy \
		OperationalState=routable AdministrativeState=configured
done
t0=$(table_of mem ib0)
t1=$(table_of mem ib1)
rules=$(ip -n "$(ns mem)" rule show)
expect_eq "one rule for 172.16.34.1" 1 "$(grep -c "^[0-9]*:[[:space:]]*from 172.16.34.1 lookup $t0\$" <<<"$rules")"
expect_eq "one rule for 172.16.34.2" 1 "$(grep -c "^[0-9]*:[[:space:]]*from 172.16.34.2 lookup $t1\$" <<<"$rules")"
prio=$(grep "from 172.16.34.2 lookup" <<<"$rules" | cut -d: -f1)
check "rules come before main ($prio < 32766)" test "$prio" -lt 32766
expect_eq "table of ib1" "172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2" "$(table mem "$t1")"
expect_eq "table of ib0" "172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1" "$(table mem "$t0")"
expect_eq "route get from 172.16.34.2" ib1 "$(route_dev mem 172.16.16.1 172.16.34.2)"
expect_eq "route get from 172.16.34.1" ib0 "$(route_dev mem 172.16.16.1 172.16.34.1)"
check "rules carry protocol kernel" grep -q "from 172.16.34.2 lookup $t1 proto kernel" \
	<(ip -n "$(ns mem)" -d rule show)
expect_eq "arp sysctls of ib1" "arp_ignore=2 arp_announce=2 rp_filter=0 accept_local=0 " "$(sysctls mem ib1)"
check "main table keeps its prefix routes (MainRoute=keep)" \
	test "$(ip -n "$(ns mem)" route show 172.16.0.0/16 | wc -l)" = 2

cpuserver16 cpu
for port in ibs5f0 ibs5f1; do
	for fam in inet inet6; do
		expect_rc "ifupdown post-up $fam for $port" 0 \
			hook cpu "$T_DIR/default.conf" IFACE=$port LOGICAL=$port ADDRFAM=$fam \
			METHOD=static MODE=start PHASE=post-up VERBOSITY=0
	done
done
t0=$(table_of cpu ibs5f0)
t1=$(table_of cpu ibs5f1)
rules=$(ip -n "$(ns cpu)" rule show)
expect_eq "one rule for 172.16.16.1" 1 "$(grep -c "from 172.16.16.1 lookup $t0\$" <<<"$rules")"
expect_eq "one rule for 172.16.16.2" 1 "$(grep -c "from 172.16.16.2 lookup $t1\$" <<<"$rules")"
expect_eq "table of ibs5f1" "172.16.0.0/16 dev ibs5f1 proto kernel scope link src 172.16.16.2" "$(table cpu "$t1")"
expect_eq "table of ibs5f0" "172.16.0.0/16 dev ibs5f0 proto kernel scope link src 172.16.16.1" "$(table cpu "$t0")"
expect_eq "route get from 172.16.16.2" ibs5f1 "$(route_dev cpu 172.16.34.1 172.16.16.2)"
expect_eq "route get from 172.16.16.1" ibs5f0 "$(route_dev cpu 172.16.34.1 172.16.16.1)"
expect_rc "--status agrees" 0 ibh cpu --config "$T_DIR/default.conf" --status
done_testing
