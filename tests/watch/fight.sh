#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Another program fights the watcher (issue 20, item 11): it deletes ib-hook's
# rule, or puts back the main route that MainRoute=delete took out, as fast as
# it can for a few seconds. Every kind of repair counts towards the documented
# back-off (8 repairs within 10 s, then a hold of 1 s, doubling): the watcher
# says so once and its repairs stay within what that back-off allows, while
# the other port is still repaired at once; when the fight ends it converges.
. "$(dirname "$0")/common.sh"
t_require

no_main() { lacks . ip -n "$(ns "$1")" route show table main 172.16.0.0/16 dev "$2"; }

# -- a program deletes ib-hook's rule over and over --------------------------
port_host r ib0 172.16.34.1/16 ib1 172.16.34.2/16
printf '[Match]\nName=ib*\n' | conf rules
m=$(ns r)
t0=$(table_of r ib0)
t1=$(table_of r ib1)
start_watcher r "$T_DIR/rules.conf"
eventually "rules: the watcher applied" 3 has_rule r 172.16.34.2 "$t1"
before=$(wc -l <"$T_DIR/r.log")
fight "$FIGHT_S" ip -n "$m" rule del from 172.16.34.2 lookup "$t1" priority 1000
check "rules: the watcher says it backs off" grep -q "before the next repair" "$T_DIR/r.log"
ip -n "$m" rule del from 172.16.34.1 lookup "$t0" priority 1000
eventually "rules:   the other port is repaired at once" 1 has_rule r 172.16.34.1 "$t0"
eventually "rules: after the fight the rule is back" 10 has_rule r 172.16.34.2 "$t1"
n=$(repaired r "$before" "added rule from 172.16.34.2 ")
echo "# the watcher put the rule back $n times in a ${FIGHT_S} s fight"
check "rules:   at most $fight_bound repairs ($n)" test "$n" -le "$fight_bound"
stop_watcher

# -- a program puts back the main route that MainRoute=delete takes out ------
port_host d ib0 172.16.34.1/16 ib1 172.16.34.2/16
printf '[Match]\nName=ib*\n[Routing]\nMainRoute=delete\n' | conf main
m=$(ns d)
start_watcher d "$T_DIR/main.conf"
eventually "main: the watcher applied" 3 no_main d ib1
before=$(wc -l <"$T_DIR/d.log")
fight "$FIGHT_S" ip -n "$m" route add 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2
check "main: the watcher says it backs off" grep -q "before the next repair" "$T_DIR/d.log"
eventually "main: after the fight the route is out of main again" 10 no_main d ib1
n=$(repaired d "$before" "deleted route 172.16.0.0/16 dev ib1 from table main")
echo "# the watcher took the main route out $n times in a ${FIGHT_S} s fight"
check "main:   at most $fight_bound repairs ($n)" test "$n" -le "$fight_bound"
stop_watcher
done_testing
