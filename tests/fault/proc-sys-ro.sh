#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# /proc/sys is read-only (containers mount it so): setting arp_ignore and
# arp_announce fails with one warning each on stderr, routing is still applied
# and the exit code is 0: routing is what keeps the port reachable, and a
# failed hook would abort `ifup` (doc/how-it-works.md, "Security and failure modes").
# --status reports the sysctls it could not set as drift.
# Once /proc/sys is writable again, the next apply sets them.
# The read-only bind of /proc/sys lives in the private mount namespace of one
# `ip netns exec`, so nothing else sees it.
. "$(dirname "$0")/../lib.sh"
t_require mount

port_host h ib0 172.16.34.1/16
hn=$(ns h)
t0=$(table_of h ib0)
sysctls_before=$(sysctls h ib0)

# ro NS CMD...: CMD in NS, with /proc/sys read-only for it alone
ro() {
	ip netns exec "$(ns "$1")" sh -c '
		mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys || exit 90
		exec "$@"' ro "${@:2}"
}

# ro_hook NS CONF VAR=VALUE...: as hook (lib.sh), with /proc/sys read-only
ro_hook() {
	[ -d "$IB_HOOK_SYSCONFDIR" ] || skip "no $IB_HOOK_SYSCONFDIR to mount the test config on"
	ip netns exec "$(ns "$1")" sh -c '
		cfg=$1 dir=$2 bin=$3
		shift 3
		mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys || exit 90
		mount -t tmpfs -o mode=0755 tmpfs "$dir" || exit 90
		cp "$cfg" "$dir/ib-hook.conf"
		if [ -d /run/systemd/journal ]; then mount -t tmpfs tmpfs /run/systemd/journal; fi
		exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" "$bin"
	' hook "$2" "$IB_HOOK_SYSCONFDIR" "$IB_HOOK" "${@:3}"
}

ro h sh -c 'echo 1 >/proc/sys/net/ipv4/conf/ib0/arp_ignore' 2>/dev/null &&
	skip "cannot make /proc/sys read-only here"

expect_rc "apply with /proc/sys read-only (by hand)" 0 \
	ro h "$IB_HOOK" --config "$T_DIR/h.conf" --iface ib0
check "  warns that arp_ignore cannot be set" \
	grep -q "ib0: cannot set arp_ignore to 2: Read-only file system" "$T_DIR/err"
check "  warns that arp_announce cannot be set" \
	grep -q "ib0: cannot set arp_announce to 2: Read-only file system" "$T_DIR/err"
check "  still reports the routing it applied" \
	grep -q "ib0: added rule from 172.16.34.1 lookup $t0 priority 1000" "$T_DIR/err"
expect_eq "  and nothing else" 0 "$(grep -c -v -e 'cannot set arp_' -e "lookup $t0" -e "in table $t0" "$T_DIR/err")"
expect_eq "rule installed once" 1 "$(rules_from h 172.16.34.1)"
expect_eq "table route installed" "172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1" \
	"$(ip -n "$hn" route show table "$t0" | sed 's/ *$//')"
expect_eq "sysctls unchanged" "$sysctls_before" "$(sysctls h ib0)"
routing=$(state h)

expect_rc "apply again as networkd-dispatcher, /proc/sys still read-only" 0 \
	ro_hook h "$T_DIR/h.conf" IFACE=ib0 STATE=routable
expect_eq "  only the two warnings again" \
	"ib0: cannot set arp_ignore to 2: Read-only file system
ib0: cannot set arp_announce to 2: Read-only file system" "$(sed -E 's/^(ib-hook: )?(warning: )?//' "$T_DIR/err")"
expect_eq "  routing unchanged" "$routing" "$(state h)"
expect_rc "--status with /proc/sys read-only: drift (sysctls not set)" 1 \
	ro h "$IB_HOOK" --config "$T_DIR/h.conf" --status --iface ib0
check "  names the pending sysctl" grep -q "pending: sysctl -w net.ipv4.conf.ib0.arp_ignore=2" "$T_DIR/out"
check "  rule and table route are ok" \
	grep -q "address 172.16.34.1/16: rule ok; table route 172.16.0.0/16 ok" "$T_DIR/out"

expect_rc "apply with /proc/sys writable again" 0 hook h "$T_DIR/h.conf" IFACE=ib0 STATE=routable
expect_eq "  sets the sysctls, and only them" "ib0: set arp_ignore=2
ib0: set arp_announce=2" "$(cat "$T_DIR/err")"
expect_rc "--status" 0 ibh h --config "$T_DIR/h.conf" --status --iface ib0
expect_rc "remove with /proc/sys read-only" 0 \
	ro h "$IB_HOOK" --config "$T_DIR/h.conf" --remove --iface ib0
expect_eq "no rule of ib-hook left" 0 "$(rules_from h 172.16.34.1)"
expect_eq "table $t0 empty" "" "$(ip -n "$hn" route show table "$t0")"
done_testing
