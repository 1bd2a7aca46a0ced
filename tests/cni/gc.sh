#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CNI GC (1.1, issue 46): the attachments of the network that ib-hook added
# and cni.dev/valid-attachments does not list lose their rules, routes and
# record entries, as their DEL would take them; a listed attachment, and one
# of another network, keep everything; a namespace that is gone takes its
# record and container's file with it.
. "$(dirname "$0")/cni-lib.sh"
t_require

# gc NETWORK VALID: GC of network NETWORK, VALID the JSON list of attachments
gc() {
	printf '{"cniVersion":"1.1.0","name":"%s","type":"ib-hook","cni.dev/valid-attachments":%s}\n' "$1" "$2" |
		CNI_COMMAND=GC "$IB_HOOK"
}

# conf_of POD IFNAME ADDRESS NETWORK: prev_conf's, of network NETWORK (the test's own:
# the tests of a run share /run/ib-hook, and GC reads every container's file there)
conf_of() {
	prev_conf "$1" "$2" "$3" 10.77.0.1 | sed "s/\"name\":\"n\"/\"name\":\"$4\"/"
}
n=n-$T_PFX
m=m-$T_PFX

pod p
pod q
attach p net1 10.77.0.11/16
attach p net2 10.77.0.12/16
attach p net3 10.77.0.13/16
attach q net1 10.77.0.21/16
conf_of p net1 10.77.0.11/16 "$n" | ibh_plugin ADD p net1 >/dev/null
conf_of p net2 10.77.0.12/16 "$n" | ibh_plugin ADD p net2 >/dev/null
conf_of p net3 10.77.0.13/16 "$m" | ibh_plugin ADD p net3 >/dev/null
conf_of q net1 10.77.0.21/16 "$n" | ibh_plugin ADD q net1 >/dev/null
recp=$(record_of p)
recq=$(record_of q)
net1=$(ip -n "$(ns p)" rule show from 10.77.0.11; ip -n "$(ns p)" route show table all | grep 'dev net1 table [0-9]')
net3=$(ip -n "$(ns p)" rule show from 10.77.0.13; ip -n "$(ns p)" route show table all | grep 'dev net3 table [0-9]')

gc "$n" "[{\"containerID\":\"ctr-${T_PFX}p\",\"ifname\":\"net1\"}]" >"$T_DIR/out"
expect_eq "GC of one network, only p's net1 listed: succeeds" "0 " "$? $(cat "$T_DIR/out")"
expect_eq "... p's net2 lost its rule" 0 "$(rules_from p 10.77.0.12)"
expect_eq "... and its table" "" "$(ip -n "$(ns p)" route show table all | grep 'dev net2 table [0-9]')"
check "... and its record entries" lacks 10.77.0.12 cat "$recp"
expect_eq "... p's net1 (listed) keeps everything" "$net1" \
	"$(ip -n "$(ns p)" rule show from 10.77.0.11; ip -n "$(ns p)" route show table all | grep 'dev net1 table [0-9]')"
expect_eq "... p's net3 (another network) keeps everything" "$net3" \
	"$(ip -n "$(ns p)" rule show from 10.77.0.13; ip -n "$(ns p)" route show table all | grep 'dev net3 table [0-9]')"
conf_of p net1 10.77.0.11/16 "$n" | ibh_plugin CHECK p net1 >"$T_DIR/out"
expect_eq "... CHECK of p's net1 passes" "" "$(cat "$T_DIR/out")"
expect_eq "... q's net1 lost its rule" 0 "$(rules_from q 10.77.0.21)"
check "... and q's record went" test ! -e "$recq"
check "... and q's container's file" test ! -e "$(pod_file q)"
gc "$n" "[{\"containerID\":\"ctr-${T_PFX}p\",\"ifname\":\"net1\"}]" >"$T_DIR/out"
expect_eq "GC again: succeeds" "0 " "$? $(cat "$T_DIR/out")"
expect_eq "... p's net1 still has its rule" 1 "$(rules_from p 10.77.0.11)"

ns_del "$(ns p)"
gc "$m" '[]' >"$T_DIR/out"
expect_eq "GC after p's namespace went: succeeds" "0 " "$? $(cat "$T_DIR/out")"
check "... p's record went" test ! -e "$recp"
check "... and p's container's file" test ! -e "$(pod_file p)"
done_testing
