#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A record outlives its namespace (issue 29, item 1), with the netns cookie
# taken away as on kernels before 5.14 (ib-hook-test,
# IB_HOOK_TEST_NO_NETNS_COOKIE=1): the kernel gives the inode of a namespace
# that went to a later one. A namespace where ib-hook applied goes without
# --remove; the next namespace with its inode holds the same rule and route,
# made by hand, and manages nothing: `--all` there leaves them alone. lo down
# and up keeps a namespace's record; lo without 127.0.0.1 is refused. The
# record's name is the inode: a's record is b's name, and only a's witnesses
# (addresses of a, with when they were added) keep b from taking it.
. "$(dirname "$0")/../lib.sh"
t_require stat
IB_HOOK_TEST=${IB_HOOK_TEST:-$(dirname "$IB_HOOK")/../tests/ib-hook-test}
[ -x "$IB_HOOK_TEST" ] || skip "no ib-hook-test binary at $IB_HOOK_TEST"

# nocookie NS ARGS...: ib-hook-test in NS without the netns cookie (and with
# the inode $FORCE_INODE, when set)
FORCE_INODE=
nocookie() {
	local n=$1
	shift
	ip netns exec "$(ns "$n")" env IB_HOOK_TEST_NO_NETNS_COOKIE=1 \
		${FORCE_INODE:+IB_HOOK_TEST_NETNS_INODE=$FORCE_INODE} "$IB_HOOK_TEST" "$@"
}
inode() { ip netns exec "$(ns "$1")" stat -L -c %i /proc/self/ns/net; }

port_host a ib0 172.16.34.1/16
t=$(table_of a ib0)
expect_rc "a: apply without the cookie" 0 nocookie a --config "$T_DIR/a.conf" --iface ib0
route=$(ip -n "$(ns a)" route show table "$t" | sed 's/ *$//')
rule=$(ip -n "$(ns a)" rule show | sed -n "s/^\([0-9]*\):\t\(from 172.16.34.1 lookup $t.*\)/priority \1 \2/p")
check "  a rule and a route in table $t" test -n "$route" -a -n "$rule"
ip -n "$(ns a)" link set lo down
ip -n "$(ns a)" link set lo up
expect_rc "  lo down and up: the record is still the namespace's (--status)" 0 \
	nocookie a --config "$T_DIR/a.conf" --status --iface ib0
ino=$(inode a)
# a's record outlives a, on purpose; it goes at the end with the test's own
t_record "$(ns a)" env IB_HOOK_TEST_NO_NETNS_COOKIE=1 "$IB_HOOK_TEST"

# a goes without --remove; namespaces come until one has its inode. The
# kernel gives the lowest free one once a's cleanup ran: those that do not
# get it stay, so that a's becomes the lowest. Namespaces of other programs
# may take it first: then ib-hook-test gives the last one a's inode.
ns_del "$(ns a)"
for ((i = 1; i <= 20; i++)); do
	b=b$i
	ns_new "$b"
	[ "$(inode "$b")" = "$ino" ] && break
	sleep 0.05
done
if [ "$(inode "$b")" = "$ino" ]; then
	echo "# $b, the ${i}th namespace after a, has a's inode $ino"
else
	echo "# no namespace got a's inode $ino in time: ib-hook-test gives it to $b"
	FORCE_INODE=$ino
fi

# b: the same port, and by hand the rule and route ib-hook installed in a
veth "$b" ib0 pib0
addr "$b" ib0 172.16.34.1/16
# shellcheck disable=SC2086
ip -n "$(ns "$b")" route add $route table "$t"
# shellcheck disable=SC2086
ip -n "$(ns "$b")" rule add $rule
printf '[Match]\nName=ib9\n' | conf b-none
before=$(state "$b")
expect_rc "b: --all, managing nothing" 0 nocookie "$b" --config "$T_DIR/b-none.conf" --all
expect_eq "  b's own rule and route stay" "$before" "$(state "$b")"
check "  and it deletes nothing" sh -c "! grep -q deleted '$T_DIR/out' '$T_DIR/err'"
# the same name as a's (the inode): a's record is read, and refused by its witnesses
check "  a's record is read as an earlier namespace's" \
	grep -q "names none of this network namespace's addresses" "$T_DIR/err"

t_record "$(ns "$b")" env IB_HOOK_TEST_NO_NETNS_COOKIE=1 \
	${FORCE_INODE:+IB_HOOK_TEST_NETNS_INODE=$FORCE_INODE} "$IB_HOOK_TEST"

# lo without 127.0.0.1: refused, nothing changed
ip -n "$(ns "$b")" addr del 127.0.0.1/8 dev lo
printf '[Match]\nName=ib0\n' | conf b
expect_rc "b: lo without 127.0.0.1: refused" 1 nocookie "$b" --config "$T_DIR/b.conf" --all
check "  saying why" grep -q "cannot tell this network namespace from an earlier one" "$T_DIR/err"
expect_eq "  nothing changed" "$before" "$(state "$b")"
done_testing
