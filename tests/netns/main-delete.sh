#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# MainRoute=delete with [Tables] 941/942 reproduces the seed procedure's end
# state for memserver34: its `ip rule` (rule priorities aside: ib-hook uses
# one fixed priority), tables 941/942 and no 172.16.0.0/16 in main.
. "$(dirname "$0")/common.sh"
t_require

conf seed <<'CONF'
[Match]
Name=ib0 ib1
[Routing]
MainRoute=delete
[Tables]
ib0=941
ib1=942
CONF
memserver34 mem
expect_rc "routable ib0" 0 hook mem "$T_DIR/seed.conf" IFACE=ib0 STATE=routable
check "  main still reaches 172.16.0.0/16 through ib1: no warning" \
	lacks "left main without a route" cat "$T_DIR/err"
expect_rc "routable ib1" 0 hook mem "$T_DIR/seed.conf" IFACE=ib1 STATE=routable
# issue 48, item 2: the seed's end state leaves main no route to the subnet
# for sockets bound to no address (perftest's, UCX's TCP exchange): said
check "  the last one deleted: the warning names the prefix" \
	grep -q "ib1: MainRoute=delete left main without a route to 172.16.0.0/16" "$T_DIR/err"
expect_eq "ip rule (without priorities)" "from all lookup local
from 172.16.34.1 lookup 941
from 172.16.34.2 lookup 942
from all lookup main
from all lookup default" "$(ip -n "$(ns mem)" rule show | sed 's/^[0-9]*:[[:space:]]*//; s/ *$//')"
expect_eq "ip route show table 941" "172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1" \
	"$(ip -n "$(ns mem)" route show table 941 | sed 's/ *$//')"
expect_eq "ip route show table 942" "172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2" \
	"$(ip -n "$(ns mem)" route show table 942 | sed 's/ *$//')"
expect_eq "main holds no 172.16.0.0/16" "" "$(ip -n "$(ns mem)" route show table main 172.16.0.0/16)"
expect_eq "route get from 172.16.34.2" ib1 "$(route_dev mem 172.16.16.1 172.16.34.2)"
expect_rc "--status: ok" 0 ibh mem --config "$T_DIR/seed.conf" --status
check "  and warns that main has no route to the subnet" \
	grep -q "warning: main has no route to 172.16.0.0/16" "$T_DIR/out"
expect_rc "--status --json" 0 ibh mem --config "$T_DIR/seed.conf" --status --json
check "  main_reaches_prefix false for each address" test "$(grep -o '"main_reaches_prefix":false' "$T_DIR/out" | wc -l)" = 2
expect_rc "second run" 0 hook mem "$T_DIR/seed.conf" IFACE=ib1 STATE=routable
expect_eq "  is silent" "" "$(cat "$T_DIR/out" "$T_DIR/err")"

# the kernel puts the prefix route back when the link comes up again
nsx mem ip link set ib1 down
nsx mem ip link set ib1 up
check "link up re-created the main route" test -n "$(ip -n "$(ns mem)" route show table main 172.16.0.0/16 dev ib1)"
expect_rc "--status sees the duplicate" 1 ibh mem --config "$T_DIR/seed.conf" --status
check "  and names it" grep -q "pending: ip route del 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 table main" "$T_DIR/out"
expect_rc "routable after link up" 0 hook mem "$T_DIR/seed.conf" IFACE=ib1 STATE=routable
expect_eq "main holds no 172.16.0.0/16 again" "" "$(ip -n "$(ns mem)" route show table main 172.16.0.0/16)"
expect_eq "table 942 restored" "172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2" \
	"$(ip -n "$(ns mem)" route show table 942 | sed 's/ *$//')"

# MainRoute= back to keep: the next run gives main the kernel's own prefix
# routes back (a leftover of the earlier configuration), exactly as the kernel
# makes them, and MainRoute=delete takes them out again
sed '/MainRoute=/d' "$T_DIR/seed.conf" | conf keep
expect_rc "MainRoute=keep: --all" 0 ibh mem --config "$T_DIR/keep.conf" --all
expect_eq "  main has the kernel's prefix routes back" \
	"172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1
172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2" \
	"$(ip -n "$(ns mem)" route show table main 172.16.0.0/16 | sed 's/ *$//' | sort)"
expect_rc "MainRoute=delete again: --all" 0 ibh mem --config "$T_DIR/seed.conf" --all
expect_eq "  main holds no 172.16.0.0/16" "" "$(ip -n "$(ns mem)" route show table main 172.16.0.0/16)"
done_testing
