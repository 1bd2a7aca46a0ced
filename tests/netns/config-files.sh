#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The configuration as a lab writes it: /etc/ib-hook.conf and drop-ins in
# /etc/ib-hook.conf.d/ read in lexical order (later values win, Name= adds
# up), --config reading one file alone, errors naming the drop-in, one file
# serving hosts whose ports are named differently ([Tables] shared by names
# that never meet), and [Hooks] switching a dispatcher family off.
. "$(dirname "$0")/common.sh"
t_require

etc=$T_DIR/etc
mkdir -p "$etc/ib-hook.conf.d"
chmod 0755 "$etc" "$etc/ib-hook.conf.d"
put() { # put PATH: stdin to $etc/PATH, root-owned 0644
	cat >"$etc/$1"
	chmod 0644 "$etc/$1"
}
memserver34 mem
m=$(ns mem)

# --- drop-ins over the main file
put ib-hook.conf <<'CONF'
[Match]
Name=ib0
[Routing]
Priority=900
CONF
put ib-hook.conf.d/50-lab.conf <<'CONF'
[Match]
Name=ib1
[Routing]
Priority=910
CONF
put ib-hook.conf.d/40-early.conf <<'CONF'
[Routing]
Priority=905
TableBase=2000
CONF
# not drop-ins: another suffix, a hidden file (both would be errors if read)
put ib-hook.conf.d/60-old.conf.dpkg-old <<<'[Nonsense]'
put ib-hook.conf.d/.70-hidden.conf <<<'[Nonsense]'

expect_rc "--all with a main file and two drop-ins" 0 with_etc mem "$etc" -- --all
T0=$((2000 + $(ip -n "$m" -o link show ib0 | cut -d: -f1)))
T1=$((2000 + $(ip -n "$m" -o link show ib1 | cut -d: -f1)))
expect_eq "ib0 (main file) and ib1 (a drop-in) are both managed, at the last Priority, in TableBase 2000" \
	"910:	from 172.16.34.1 lookup $T0
910:	from 172.16.34.2 lookup $T1" "$(ip -n "$m" rule show | grep '^910:')"
expect_eq "no rule at the main file's or the earlier drop-in's priority" "" \
	"$(ip -n "$m" rule show | grep -e '^900:' -e '^905:')"
expect_rc "--status: ok" 0 with_etc mem "$etc" -- --status
check "  the summary names the three files read, in order" \
	grep -qF "config: $IB_HOOK_SYSCONFDIR/ib-hook.conf,$IB_HOOK_SYSCONFDIR/ib-hook.conf.d/40-early.conf,$IB_HOOK_SYSCONFDIR/ib-hook.conf.d/50-lab.conf;" "$T_DIR/out"
expect_rc "--status --json" 0 with_etc mem "$etc" -- --status --json
expect_eq "  config_files lists them too" \
	"['$IB_HOOK_SYSCONFDIR/ib-hook.conf', '$IB_HOOK_SYSCONFDIR/ib-hook.conf.d/40-early.conf', '$IB_HOOK_SYSCONFDIR/ib-hook.conf.d/50-lab.conf']" \
	"$(python3 -c 'import json,sys; print(json.load(sys.stdin)["config_files"])' <"$T_DIR/out")"

# --- a bad drop-in: the error names it and its line, and nothing changes
before=$(state mem)
put ib-hook.conf.d/55-typo.conf <<'CONF'
[Routing]
Priorty=920
CONF
expect_rc "a drop-in with an unknown key" 2 with_etc mem "$etc" -- --all
expect_eq "  the message names the drop-in, line and key" \
	"ib-hook: $IB_HOOK_SYSCONFDIR/ib-hook.conf.d/55-typo.conf:2: unknown key 'Priorty' in section [Routing]" \
	"$(cat "$T_DIR/err")"
expect_rc "  and a dispatcher's run fails the same way" 2 with_etc mem "$etc" IFACE=ib1 STATE=routable
expect_eq "  nothing changed" "$before" "$(state mem)"
rm "$etc/ib-hook.conf.d/55-typo.conf"

# --- a drop-in linked to /dev/null is switched off, as with systemd
ln -s /dev/null "$etc/ib-hook.conf.d/50-lab.conf.new"
mv -T "$etc/ib-hook.conf.d/50-lab.conf.new" "$etc/ib-hook.conf.d/50-lab.conf"
expect_rc "50-lab.conf masked: --all" 0 with_etc mem "$etc" -- --all
expect_eq "  only ib0 is managed now, at 905; ib1's rule was taken back" \
	"905:	from 172.16.34.1 lookup $T0" "$(ip -n "$m" rule show | grep -e '^9[0-9][0-9]:')"

# --- --config reads that file alone, no drop-ins
expect_rc "--config the main file" 0 ibh mem --config "$etc/ib-hook.conf" --all
T0b=$((1000 + $(ip -n "$m" -o link show ib0 | cut -d: -f1)))
expect_eq "  its own Priority and TableBase, none of the drop-ins'" \
	"900:	from 172.16.34.1 lookup $T0b" "$(ip -n "$m" rule show | grep -e '^9[0-9][0-9]:')"
ibh mem --config "$etc/ib-hook.conf" --remove --all >/dev/null 2>&1
rm -f "$etc"/ib-hook.conf.d/*

# --- one file for the lab: memserver34's and cpuserver16's ports in one [Tables]
put ib-hook.conf <<'CONF'
[Match]
Name=ib0 ib1 ibs5f0 ibs5f1
[Tables]
ib0=941
ib1=942
ibs5f0=941
ibs5f1=942
CONF
cpuserver16 cpu
for host in mem cpu; do
	expect_rc "lab-wide file on $host: --all" 0 with_etc "$host" "$etc" -- --all
done
expect_eq "memserver34: T(ib1) is 942" "172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2" "$(table mem 942)"
expect_eq "cpuserver16: T(ibs5f1) is 942" "172.16.0.0/16 dev ibs5f1 proto kernel scope link src 172.16.16.2" "$(table cpu 942)"
expect_eq "cpuserver16: ip route get from its second port says ibs5f1" ibs5f1 "$(route_dev cpu 172.16.1.1 172.16.16.2)"
# ... until both names of one table exist on one host: both are refused, and
# what worked stays until the file is fixed
veth mem ibs5f0 pibs5f0
addr mem ibs5f0 172.16.34.9/16
before=$(state mem)
expect_rc "ib0 and ibs5f0 on one host with table 941: --all fails" 1 with_etc mem "$etc" -- --all
check "  the message names both" grep -q "table 941 is also the table of 'ib0'" "$T_DIR/err"
expect_eq "  nothing changed" "$before" "$(state mem)"
expect_rc "  --status says refused" 1 with_etc mem "$etc" -- --status
check "  for ib0" grep -q "table 941 is also the table of 'ibs5f0'" "$T_DIR/out"
ip -n "$m" link del ibs5f0

# --- [Hooks]: a family switched off does nothing; the others still run
with_etc mem "$etc" -- --remove --all >/dev/null 2>&1
put ib-hook.conf <<'CONF'
[Match]
Name=ib0 ib1
[Hooks]
Networkd=no
NetworkManager=no
CONF
expect_rc "Networkd=no: networkd-dispatcher's routable run" 0 with_etc mem "$etc" IFACE=ib1 STATE=routable
check "  says nothing" test ! -s "$T_DIR/err"
expect_eq "  and installs nothing" 0 "$(rules_from mem 172.16.34.2)"
expect_rc "NetworkManager=no: nm-dispatcher's 'ib1 up'" 0 \
	with_etc mem "$etc" NM_DISPATCHER_ACTION=up DEVICE_IFACE=ib1 -- ib1 up
expect_eq "  installs nothing" 0 "$(rules_from mem 172.16.34.2)"
expect_rc "NetworkManager=no: 01-ifupdown's run (METHOD=NetworkManager)" 0 \
	with_etc mem "$etc" IFACE=ib1 MODE=start PHASE=post-up ADDRFAM=inet METHOD=NetworkManager
expect_eq "  installs nothing" 0 "$(rules_from mem 172.16.34.2)"
expect_rc "Ifupdown=yes (the default): ifupdown's run applies" 0 \
	with_etc mem "$etc" IFACE=ib1 MODE=start PHASE=post-up ADDRFAM=inet METHOD=static
expect_eq "  the rule is there" 1 "$(rules_from mem 172.16.34.2)"
expect_rc "a person's run is never switched off" 0 with_etc mem "$etc" -- --iface ib0
expect_eq "  the rule is there" 1 "$(rules_from mem 172.16.34.1)"
expect_rc "Networkd=no: networkd-dispatcher's off run" 0 with_etc mem "$etc" IFACE=ib1 STATE=off
expect_eq "  removes nothing either" 1 "$(rules_from mem 172.16.34.2)"

# --- [IPoIB] acts on InfiniBand links only: a veth named like a port is left alone
put ib-hook.conf <<'CONF'
[Match]
Name=ib0 ib1
[IPoIB]
Mode=connected
MTU=9000
CONF
mtu_before=$(ip -n "$m" -o link show ib1 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
expect_rc "[IPoIB] on Ethernet links: --all" 0 with_etc mem "$etc" -- --all
expect_rc "  --dry-run" 0 with_etc mem "$etc" -- --dry-run --all
check "  plans nothing (no mode, no MTU)" test ! -s "$T_DIR/out"
expect_eq "  ib1's MTU is unchanged" "$mtu_before" "$(ip -n "$m" -o link show ib1 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')"
expect_rc "  --status --json" 0 with_etc mem "$etc" -- --status --json
check "  has no ipoib member for them" sh -c '! grep -q "\"ipoib\"" "$1"' - "$T_DIR/out"
done_testing
