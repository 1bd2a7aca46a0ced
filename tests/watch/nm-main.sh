#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# MainRoute=delete with NetworkManager's kind of address (noprefixroute) and
# prefix route (proto kernel, metric 102) on ib1: that route is not the
# kernel's, so neither the watcher nor a hook run deletes it; the watcher
# says so once, however often it looks at ib1; a person's second run is
# silent; --status shows it as "not the kernel's prefix route".
. "$(dirname "$0")/../lib.sh"
t_require

W_PID=
trap '[ -n "$W_PID" ] && kill -KILL "$W_PID" 2>/dev/null; t_cleanup' EXIT

port_host nm ib0 172.16.34.1/16 ib1 -
m=$(ns nm)
ip -n "$m" addr add 172.16.34.2/16 dev ib1 noprefixroute
ip -n "$m" route add 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 metric 102
printf '[Match]\nName=ib0 ib1\n[Routing]\nMainRoute=delete\n' | conf del
nm_route() { ip -n "$m" route show table main 172.16.0.0/16 dev ib1 | sed 's/ *$//'; }
before=$(nm_route)

# until CMD...: CMD succeeds within 3 s times $T_SCALE (a bounded poll)
until_ok() {
	local i
	for i in $(seq $((60 * T_SCALE))); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
has_rule() { ip -n "$m" rule | grep -q "from $1 lookup"; }
ip netns exec "$m" "$IB_HOOK" --config "$T_DIR/del.conf" --watch >"$T_DIR/watch.log" 2>&1 &
W_PID=$!
check "the watcher applied ib1" until_ok has_rule 172.16.34.2
# more passes over ib1: addresses coming and going, each seen by a pass (its
# rule comes and goes)
for i in 1 2 3; do
	ip -n "$m" addr add "172.16.34.2$i/16" dev ib1 noprefixroute
	check "pass $i: the watcher applied 172.16.34.2$i" until_ok has_rule "172.16.34.2$i"
	ip -n "$m" addr del "172.16.34.2$i/16" dev ib1
	check "pass $i: and took its rule back" until_ok lacks "from 172.16.34.2$i lookup" ip -n "$m" rule
done
expect_eq "NetworkManager's route stays in main" "$before" "$(nm_route)"
expect_eq "the watcher said so once" 1 "$(grep -c "ib1: main's route to 172.16.0.0/16 through ib1 is not the kernel's prefix route" "$T_DIR/watch.log")"
check "  and nothing about ib0, whose route is the kernel's and was deleted" \
	eval "lacks \"ib0: main's route\" cat '$T_DIR/watch.log' && lacks . ip -n '$m' route show table main 172.16.0.0/16 dev ib0"
kill -TERM "$W_PID"
wait "$W_PID" 2>/dev/null
W_PID=
expect_rc "a person's run" 0 ip netns exec "$m" "$IB_HOOK" --config "$T_DIR/del.conf" --iface ib1
expect_eq "  is silent" "" "$(cat "$T_DIR/out" "$T_DIR/err")"
expect_rc "--status" 0 ip netns exec "$m" "$IB_HOOK" --config "$T_DIR/del.conf" --status --iface ib1
check "  shows it as the manager's" grep -q "main route present, not the kernel's prefix route (left alone)" "$T_DIR/out"
expect_eq "NetworkManager's route still there" "$before" "$(nm_route)"
done_testing
