#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ib-hook attachments of one pod (issue 46, SPEC 11.1): one attachment's
# ADD never writes its sysctl values onto another's, and puts back another's
# own values where something changed them; a pod-wide setting (mainRoute,
# ipv6, priority) that differs from the first attachment's is refused in
# either direction (error 7) and changes nothing, so the healthy first
# attachment still passes CHECK and re-ADD.
. "$(dirname "$0")/cni-lib.sh"
t_require

pod p
attach p net1 10.77.0.11/16
attach p net2 10.77.0.12/16
prev_conf p net1 10.77.0.11/16 10.77.0.1 '"sysctls":{"arpIgnore":1,"arpAnnounce":"keep"}' >"$T_DIR/net1.json"
prev_conf p net2 10.77.0.12/16 10.77.0.1 >"$T_DIR/net2.json"

# sysctls: each attachment's own
ibh_plugin ADD p net1 <"$T_DIR/net1.json" >/dev/null
# as a tuning plugin would: net1 leaves arp_announce alone
nsx p sysctl -qw net.ipv4.conf.net1.arp_announce=1
ibh_plugin ADD p net2 <"$T_DIR/net2.json" >"$T_DIR/out"
expect_eq "ADD net2 (arp_ignore 2, the default) succeeds" none "$(cni_code "$T_DIR/out")"
expect_eq "... leaves net1's arp_ignore as net1 asked (1)" 1 "$(nsx p sysctl -n net.ipv4.conf.net1.arp_ignore)"
expect_eq "... and net1's arp_announce, which net1 leaves alone" 1 "$(nsx p sysctl -n net.ipv4.conf.net1.arp_announce)"
ibh_plugin CHECK p net1 <"$T_DIR/net1.json" >"$T_DIR/out"
expect_eq "CHECK of the untouched net1 passes" "" "$(cat "$T_DIR/out")"
nsx p sysctl -qw net.ipv4.conf.net1.arp_ignore=0
ibh_plugin ADD p net2 <"$T_DIR/net2.json" >/dev/null
expect_eq "an ADD of net2 puts net1's arp_ignore back to net1's own 1" 1 "$(nsx p sysctl -n net.ipv4.conf.net1.arp_ignore)"

# pod-wide settings: the first attachment decides, in either direction
s=$(state p)
for keys in '"mainRoute":"delete"' '"ipv6":false' '"priority":999'; do
	prev_conf p net2 10.77.0.12/16 10.77.0.1 "$keys" | ibh_plugin ADD p net2 >"$T_DIR/out"
	expect_eq "net2 ADD with $keys, net1 has the default: error 7" 7 "$(cni_code "$T_DIR/out")"
	k=${keys%%:*}
	check "... which names the setting" grep -q "${k//\"/}" "$T_DIR/out"
	expect_eq "... and changes nothing" "$s" "$(state p)"
	ibh_plugin CHECK p net1 <"$T_DIR/net1.json" >"$T_DIR/out"
	expect_eq "... CHECK of net1 still passes" "" "$(cat "$T_DIR/out")"
	ibh_plugin ADD p net1 <"$T_DIR/net1.json" >"$T_DIR/out"
	expect_eq "... re-ADD of net1 still succeeds" none "$(cni_code "$T_DIR/out")"
done
ibh_plugin DEL p net2 <"$T_DIR/net2.json" >/dev/null
ibh_plugin DEL p net1 <"$T_DIR/net1.json" >/dev/null
check "DEL of both leaves no container's file" test ! -e "$(pod_file p)"
expect_eq "... and nothing of ib-hook's" 0 "$(ip -n "$(ns p)" rule show pref 1000 | wc -l)"

# the other direction: net1 says ipv6 false and mainRoute delete, net2 the defaults
prev_conf p net1 10.77.0.11/16 10.77.0.1 '"ipv6":false,"mainRoute":"delete"' >"$T_DIR/net1.json"
ibh_plugin ADD p net1 <"$T_DIR/net1.json" >/dev/null
s=$(state p)
for keys in '"ipv6":false' '"mainRoute":"delete"'; do
	prev_conf p net2 10.77.0.12/16 10.77.0.1 "$keys" | ibh_plugin ADD p net2 >"$T_DIR/out"
	expect_eq "net2 ADD with only $keys of net1's two: error 7" 7 "$(cni_code "$T_DIR/out")"
	expect_eq "... and changes nothing" "$s" "$(state p)"
done
ibh_plugin CHECK p net1 <"$T_DIR/net1.json" >"$T_DIR/out"
expect_eq "CHECK of net1 still passes" "" "$(cat "$T_DIR/out")"
ibh_plugin DEL p net1 <"$T_DIR/net1.json" >/dev/null
expect_eq "DEL net1 gives main back its prefix route" 1 \
	"$(ip -n "$(ns p)" route show 10.77.0.0/16 dev net1 | wc -l)"
done_testing
