#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a person sees, recorded to compare two builds (issue 23: a refactoring
# changes no output): representative hosts in namespaces of their own, and at
# each step --dry-run, --dry-run --json, --status, --status --json with their
# exit codes. Only what legitimately differs between runs is normalised: the
# tables derived from ifindexes (T<n> for 1000+ifindex), the namespace's
# record path and the test's temporary directory.
#
#   IB_HOOK=old/ib-hook tests/netns/golden.sh OUT1
#   IB_HOOK=new/ib-hook tests/netns/golden.sh OUT2
#   diff OUT1 OUT2
. "$(dirname "$0")/common.sh"
t_require
OUT=${1:?usage: golden.sh OUTFILE}
: >"$OUT"

# norm NS: replace what depends on this run's ifindexes and paths
norm() {
	sed_args=(-e "s|$T_DIR|TMP|g" -e 's|/ib-hook/netns-[^" ;]*|/ib-hook/NETNS|g')
	for dev in $(ip -n "$(ns "$1")" -o link show | awk -F': ' '{print $2}' | cut -d@ -f1); do
		idx=$(ip -n "$(ns "$1")" -o link show "$dev" | cut -d: -f1)
		sed_args+=(-e "s/\\b$((1000 + idx))\\b/T($dev)/g")
	done
	sed "${sed_args[@]}"
}

# snap NS LABEL CONF: the four views and their exit codes
snap() {
	for args in "--dry-run --all" "--dry-run --json --all" "--status" "--status --json"; do
		echo "=== $2: $args" >>"$OUT"
		# shellcheck disable=SC2086
		ibh "$1" --config "$3" $args >"$T_DIR/o" 2>"$T_DIR/e"
		echo "rc=$?" >>"$OUT"
		norm "$1" <"$T_DIR/o" >>"$OUT"
		echo "--- stderr" >>"$OUT"
		norm "$1" <"$T_DIR/e" >>"$OUT"
	done
}

# apply NS CONF: a change run whose messages are recorded too
apply() {
	echo "=== apply $1 $(basename "$2")" >>"$OUT"
	ibh "$1" --config "$2" --all >"$T_DIR/o" 2>"$T_DIR/e"
	echo "rc=$?" >>"$OUT"
	norm "$1" <"$T_DIR/o" >>"$OUT"
	norm "$1" <"$T_DIR/e" >>"$OUT"
}

# memserver34 with IPv6, MainRoute=delete, [Tables] for ib0
memserver34 mem
m=$(ns mem)
addr mem ib0 fd00:34::1/64
addr mem ib1 fd00:34::2/64
conf mem6 <<'CONF'
[Match]
Name=ib0 ib1
[Routing]
MainRoute=delete
IPv6=yes
[Tables]
ib0=941
CONF
# settle IPv6 DAD so that addresses are not tentative
sleep 2
snap mem "mem: fresh" "$T_DIR/mem6.conf"
apply mem "$T_DIR/mem6.conf"
snap mem "mem: applied" "$T_DIR/mem6.conf"

# foreign objects: a rule and routes ib-hook did not make
ip -n "$m" rule add from 172.16.34.9 lookup 941 priority 1000
ip -n "$m" route add 10.9.0.0/16 dev ib0 table 941
ip -n "$m" -6 route add fd00:99::/64 dev ib1 table "$(table_of mem ib1)" metric 7
snap mem "mem: foreign" "$T_DIR/mem6.conf"
apply mem "$T_DIR/mem6.conf"
snap mem "mem: foreign applied" "$T_DIR/mem6.conf"

# drift: a rule and a table route removed by hand
ip -n "$m" rule del from 172.16.34.2 lookup "$(table_of mem ib1)" priority 1000
ip -n "$m" route del 172.16.0.0/16 dev ib0 table 941
snap mem "mem: drift" "$T_DIR/mem6.conf"

# a link down
ip -n "$m" link set ib1 down
snap mem "mem: ib1 down" "$T_DIR/mem6.conf"
ip -n "$m" link set ib1 up
sleep 2
apply mem "$T_DIR/mem6.conf"

# a configuration change leaves leftovers: another priority, ib0's table moved
conf mem900 <<'CONF'
[Match]
Name=ib0 ib1
[Routing]
MainRoute=keep
Priority=900
IPv6=yes
CONF
snap mem "mem: leftovers" "$T_DIR/mem900.conf"
apply mem "$T_DIR/mem900.conf"
snap mem "mem: leftovers applied" "$T_DIR/mem900.conf"
echo "=== remove" >>"$OUT"
ibh mem --config "$T_DIR/mem900.conf" --all --remove 2>&1 | norm mem >>"$OUT"
snap mem "mem: removed" "$T_DIR/mem900.conf"

# cpuserver16: defaults, one port without address
cpuserver16 cpu
ip -n "$(ns cpu)" addr flush dev ibs5f1
snap cpu "cpu: fresh" "$T_DIR/cpu.conf"
apply cpu "$T_DIR/cpu.conf"
snap cpu "cpu: applied" "$T_DIR/cpu.conf"
ibh cpu --config "$T_DIR/cpu.conf" --all --remove >/dev/null 2>&1
echo "golden: $(wc -l <"$OUT") lines in $OUT"
