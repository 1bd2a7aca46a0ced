#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The dispatcher environment only chooses an interface and an action: ib-hook
# runs no program (a PATH full of booby-trapped ip, sysctl, sh... is never
# used), and an IFACE with shell syntax, a path or an absurd length is only a
# name that no link has (exit 0, nothing changed). doc/how-it-works.md, "Security and failure modes".
. "$(dirname "$0")/../lib.sh"
t_require

ns_new h
hn=$(ns h)
veth h ib0 pib0
addr h ib0 172.16.34.1/16
conf c <<'CONF'
[Match]
Name=ib*
CONF
t0=$(table_of h ib0)
trap_dir=$T_DIR/bin
marker=$T_DIR/executed
mkdir -p "$trap_dir"
for p in ip sysctl sh bash dash env ifup ifdown modprobe systemctl logger networkctl; do
	printf '#!/bin/sh\necho "%s $*" >>%s\n' "$p" "$marker" >"$trap_dir/$p"
	chmod 0755 "$trap_dir/$p"
done
before=$(state h)

long=$(printf 'ib%.0s' $(seq 300))
for iface in '$(touch '"$marker"')' "\`touch $marker\`" 'ib0;touch '"$marker" \
	'../../../../etc/passwd' 'ib0/../../all' '..' '.' 'ib0 ib1' "$long" 'ib*' 'ib0
ib1'; do
	expect_rc "IFACE=$(printf %q "${iface:0:40}") STATE=routable" 0 \
		hook h "$T_DIR/c.conf" PATH="$trap_dir" IFACE="$iface" STATE=routable
	expect_eq "  silent" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
done
expect_eq "nothing changed" "$before" "$(state h)"

expect_rc "apply with the booby-trapped PATH (networkd-dispatcher)" 0 \
	hook h "$T_DIR/c.conf" PATH="$trap_dir" IFS=/ IFACE=ib0 STATE=routable \
	ADDR='$(touch '"$marker"')' IP_ADDRS='1.2.3.4;touch '"$marker" json='{"a":"$(reboot)"}'
expect_eq "  installs the rule" 1 "$(rules_from h 172.16.34.1)"
expect_eq "  addresses come from the kernel, not from ADDR or IP_ADDRS" 0 "$(rules_from h 1.2.3.4)"
expect_rc "remove with the booby-trapped PATH (ifupdown)" 0 \
	hook h "$T_DIR/c.conf" PATH="$trap_dir" IFACE=ib0 LOGICAL=ib0 ADDRFAM=inet \
	METHOD='`touch '"$marker"'`' MODE=stop PHASE=post-down
expect_eq "  removes it" 0 "$(ip -n "$hn" rule | grep -c "lookup $t0")"
expect_eq "no program was run" "" "$(cat "$marker" 2>/dev/null)"
done_testing
