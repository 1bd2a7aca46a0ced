#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPEC section 9: the copies follow main with the watcher running. In main:
# a default replaced by one through a new gateway, a gateway route deleted, an
# aggregate added, an IPv6 route with its attributes added: T(X) matches
# (polled, bounded), main stays as the test left it, and ib-hook's copies are
# its own (the record), the traffic out of the changed port follows.
. "$(dirname "$0")/fabric.sh"
t_require python3 ping

fabric defaults
a=$(ns a)
t1=$(table_of a ib1) t2=$(table_of a ib2) t3=$(table_of a ib3)

# copies T: the routes of table T that are no prefix routes (copies), IPv4 and IPv6
copies() {
	{
		ip -n "$a" route show table "$1"
		ip -n "$a" -6 route show table "$1"
	} | grep -v ' scope link' | grep -v '::/64 dev' | sed 's/ *$//'
}

# wait_for DESCRIPTION EXPECTED T: poll (5 s at most) until copies T says EXPECTED
wait_for() {
	for _ in $(seq 100); do
		[ "$(copies "$3")" = "$2" ] && break
		sleep 0.05
	done
	expect_eq "$1" "$2" "$(copies "$3")"
}

ip netns exec "$a" "$IB_HOOK" --config "$T_DIR/host.conf" --watch >"$T_DIR/watch.log" 2>&1 &
W_PID=$!
wait_for "the watcher copies ib2's default into T(ib2)" "default via 10.2.0.0 dev ib2 proto kernel metric 102
default via fe80::1 dev ib2 proto kernel metric 1024 hoplimit 64 pref medium" "$t2"

main_before=$(ip -n "$a" route show table main)
ip -n "$a" route replace default via 10.2.0.7 dev ib2 proto static metric 102 onlink mtu 1400
wait_for "ip route replace default via NEWGW dev ib2 metric 102: T(ib2) follows" \
	"default via 10.2.0.7 dev ib2 proto kernel metric 102 onlink mtu 1400
default via fe80::1 dev ib2 proto kernel metric 1024 hoplimit 64 pref medium" "$t2"

ip -n "$a" route del default via 10.3.0.0 dev ib3
wait_for "a gateway route deleted from main: its copy goes" \
	"default via fe80::1 dev ib3 proto kernel metric 1024 hoplimit 64 pref medium" "$t3"

ip -n "$a" route add 10.0.0.0/12 via 10.1.0.0 dev ib1 proto static metric 50
ip -n "$a" -6 route add fd00::/16 via fe80::1 dev ib1 proto static metric 300 pref high mtu 1300
wait_for "an aggregate and an IPv6 route with attributes added to main: copied" \
	"default via 10.1.0.0 dev ib1 proto kernel metric 101
10.0.0.0/12 via 10.1.0.0 dev ib1 proto kernel metric 50
fd00::/16 via fe80::1 dev ib1 proto kernel metric 300 mtu 1300 pref high
default via fe80::1 dev ib1 proto kernel metric 1024 hoplimit 64 pref medium" "$t1"

expect_eq "main holds what the test made, nothing of ib-hook's" \
	"$(printf '%s\n' "$main_before" | sed 's/^default via 10.2.0.0 dev ib2 proto static metric 102 $/default via 10.2.0.7 dev ib2 proto static metric 102 onlink mtu 1400 /' |
		grep -v '^default via 10.3.0.0' | sed '1i 10.0.0.0/12 via 10.1.0.0 dev ib1 proto static metric 50 ' | sort)" \
	"$(ip -n "$a" route show table main | sort)"
check "the record holds the copies (ib-hook's own)" \
	grep -q "^route ib2 [0-9]* 0.0.0.0/0 [0-9]* $t2 - 102 0 2 1 via 10.2.0.7 flags 4 metric 2 1400\$" \
	<(cat "$(record_path a)" "$(record_path a)".routes-*)
check "ib2's traffic to another rail follows the new gateway" \
	sh -c "ip -n '$a' route get 10.1.1.1 from $(addr4 a 2) | grep -q 'via 10.2.0.7 dev ib2'"
kill -TERM "$W_PID"
wait "$W_PID"
expect_eq "the watcher exits 0 on SIGTERM" 0 "$?"
check "the watcher logged no error" sh -c "! grep -i -e error -e fail '$T_DIR/watch.log'"
done_testing
