#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Links come and go under one watcher (driver reloads, VFs, soft-RoCE
# re-created; issue 29, item 5): what it keeps of a link must not depend on
# how many links it has seen in its life. 70 links, each with a manager's
# main route that MainRoute=delete leaves (said once per link) and a rule
# that another program deletes once (a repair), come and go; then a program
# fights over a new link's rule: the back-off still holds it within the
# documented bound with its "waiting" line, and its notice is said once.
. "$(dirname "$0")/common.sh"
t_require

LINKS=70
ns_new c
m=$(ns c)
# no DAD on the links to come: each rule below is deleted in a settled
# namespace, and the end of a new link's DAD (a second or two later) would
# make a pass that repairs it whether or not the watcher follows the delete
nsx c sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
printf '[Match]\nName=ib*\n[Routing]\nMainRoute=delete\n' | conf churn
start_watcher c "$T_DIR/churn.conf"

# link NAME N: a port (veth) with a NetworkManager-like address and main route
link() {
	veth c "$1" "p$1" &&
		ip -n "$m" addr add "172.17.$2.1/24" dev "$1" noprefixroute &&
		ip -n "$m" route add "172.17.$2.0/24" dev "$1" proto kernel scope link \
			src "172.17.$2.1" metric 102
}
said() { grep -c "$1: main's route to .* is not the kernel's prefix route" "$T_DIR/c.log"; }

applied=0 repaired=0
for ((i = 1; i <= LINKS; i++)); do
	link "ibc$i" "$i" || exit 1
	t=$(table_of c "ibc$i")
	within 3 has_rule c "172.17.$i.1" "$t" && applied=$((applied + 1))
	settle c
	ip -n "$m" rule del from "172.17.$i.1" lookup "$t" priority 1000
	within 3 has_rule c "172.17.$i.1" "$t" && repaired=$((repaired + 1))
	ip -n "$m" link del "ibc$i"
done
expect_eq "$LINKS links that came and went were applied" "$LINKS" "$applied"
expect_eq "  and their rule repaired" "$LINKS" "$repaired"
n=0
for ((i = 1; i <= LINKS; i++)); do
	[ "$(said "ibc$i")" = 1 ] && n=$((n + 1))
done
expect_eq "  the manager's main route said once for each" "$LINKS" "$n"

link ibz 200 || exit 1
t=$(table_of c ibz)
idx=$(ip -n "$m" -o link show ibz | cut -d: -f1)
eventually "a new link is applied" 3 has_rule c 172.17.200.1 "$t"
before=$(wc -l <"$T_DIR/c.log")
fight "$FIGHT_S" ip -n "$m" rule del from 172.17.200.1 lookup "$t" priority 1000
check "a fight over its rule: the watcher says it backs off" \
	grep -q "interface $idx: .*before the next repair" "$T_DIR/c.log"
eventually "  after the fight the rule is back" 10 has_rule c 172.17.200.1 "$t"
n=$(repaired c "$before" "added rule from 172.17.200.1 ")
echo "# the watcher put the rule back $n times in a ${FIGHT_S} s fight"
check "  at most $fight_bound repairs ($n)" test "$n" -le "$fight_bound"
expect_eq "  the manager's main route of the new link said once" 1 "$(said ibz)"
done_testing
