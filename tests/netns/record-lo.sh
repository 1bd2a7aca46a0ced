#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A namespace keeps its record when lo's 127.0.0.1 is deleted and added again
# (issue 38, item 7), with the netns cookie taken away as on kernels before
# 5.14 (ib-hook-test, IB_HOOK_TEST_NO_NETNS_COOKIE=1). IPv6 is off in the
# namespace, so that neither ::1 nor a link-local address can vouch for the
# record: only the IPv4 addresses the record saw. Twice, lo's 127.0.0.1 goes
# and comes back while a managed address moves (to the other port, then
# away): the next run takes back ib-hook's rule for the old place, --status
# says so, and the namespace has one record, the one --status names.
. "$(dirname "$0")/../lib.sh"
t_require
IB_HOOK_TEST=${IB_HOOK_TEST:-$(dirname "$IB_HOOK")/../tests/ib-hook-test}
[ -x "$IB_HOOK_TEST" ] || skip "no ib-hook-test binary at $IB_HOOK_TEST"

nocookie() {
	ip netns exec "$(ns a)" env IB_HOOK_TEST_NO_NETNS_COOKIE=1 "$IB_HOOK_TEST" \
		--config "$T_DIR/a.conf" "$@"
}
# record: the record --status names
record() {
	nocookie --status --json 2>/dev/null | sed -n 's|.*"record":"\([^"]*\)".*|\1|p'
}
# records: this namespace's records (any name its inode starts, but the files of
# its links' routes beside it) in the run directory
records() {
	local ino dev
	ino=$(nsx a stat -L -c %i /proc/self/ns/net)
	dev=$(nsx a stat -L -c %d /proc/self/ns/net)
	find "$(dirname "$(record)")" -maxdepth 1 -name "netns-i$dev-$ino*" ! -name '*.watch' ! -name '*.routes-*' |
		sort | tr '\n' ' ' | sed 's/ $//'
}
rules_of() { # rules_of ADDR: the rules from ADDR, without priorities
	ip -n "$(ns a)" rule show | sed -n "s/^[0-9]*:[[:space:]]*\(from $1 .*\)/\1/p" | sed 's/[[:space:]]*$//'
}
lo_again() {
	ip -n "$(ns a)" addr del 127.0.0.1/8 dev lo
	ip -n "$(ns a)" addr add 127.0.0.1/8 dev lo
}

ns_new a
nsx a sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 ||
	skip "cannot switch IPv6 off in a namespace"
veth a ib0 pib0
veth a ib1 pib1
addr a ib0 172.16.35.1/16
addr a ib1 172.16.35.2/16
printf '[Match]\nName=ib0 ib1\n' | conf a
t0=$(table_of a ib0)
t1=$(table_of a ib1)

expect_rc "apply without the cookie" 0 nocookie --all
expect_eq "  a rule from each address" "from 172.16.35.1 lookup $t0|from 172.16.35.2 lookup $t1" \
	"$(rules_of '172\.16\.35\.[12]' | tr '\n' '|' | sed 's/|$//')"
t_record "$(ns a)" env IB_HOOK_TEST_NO_NETNS_COOKIE=1 "$IB_HOOK_TEST"
rec=$(record)
check "  --status names a record that exists" test -f "$rec"

# 1: lo's 127.0.0.1 anew, 172.16.35.1 from ib0 to ib1
lo_again
ip -n "$(ns a)" addr del 172.16.35.1/16 dev ib0
addr a ib1 172.16.35.1/16
expect_rc "lo's 127.0.0.1 anew, 172.16.35.1 moved to ib1: --all" 0 nocookie --all
expect_eq "  the rule to T(ib0) is taken back, T(ib1)'s is there" \
	"from 172.16.35.1 lookup $t1" "$(rules_of '172\.16\.35\.1')"
t_record "$(ns a)" env IB_HOOK_TEST_NO_NETNS_COOKIE=1 "$IB_HOOK_TEST"
expect_eq "  one record in the run directory, the one --status names" "$(record)" "$(records)"
expect_rc "  --status" 0 nocookie --status
check "  says 0 leftovers" grep -q '; 0 leftover(s);' "$T_DIR/out"

# 2: lo's 127.0.0.1 anew, 172.16.35.1 away
lo_again
ip -n "$(ns a)" addr del 172.16.35.1/16 dev ib1
expect_rc "lo's 127.0.0.1 anew, 172.16.35.1 gone: --all" 0 nocookie --all
expect_eq "  no rule from 172.16.35.1 is left" "" "$(rules_of '172\.16\.35\.1')"
expect_eq "  172.16.35.2's stays" "from 172.16.35.2 lookup $t1" "$(rules_of '172\.16\.35\.2')"
t_record "$(ns a)" env IB_HOOK_TEST_NO_NETNS_COOKIE=1 "$IB_HOOK_TEST"
expect_eq "  one record in the run directory, the one --status names" "$(record)" "$(records)"
expect_rc "  --status" 0 nocookie --status
check "  says 0 leftovers" grep -q '; 0 leftover(s);' "$T_DIR/out"
done_testing
