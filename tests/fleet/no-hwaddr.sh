#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A managed port to which the kernel gives no hardware address (a tun
# device): --inventory fails naming it and prints nothing, as no host could
# tell its ARP answers; under another namespace's /sys (nsenter --net, as
# tests/fleet/foreign-sys.sh), where /sys/class/net shows none of it. Where
# /dev/net/tun is missing (a container), the device node is made in a mount
# namespace of the test's own; a kernel without tun skips, and says so.
. "$(dirname "$0")/../lib.sh"
t_require nsenter unshare

printf '[Match]\nName=ib0 ib1x\n' | conf tun
ns_new h1
veth h1 ib0 pib0
addr h1 ib0 10.20.1.1/16
ip netns exec "$(ns h1)" unshare --mount sh -c '
	[ -c /dev/net/tun ] || { mount -t tmpfs -o mode=0755 tmpfs /dev/net &&
		mknod -m 0600 /dev/net/tun c 10 200; } &&
	ip tuntap add dev ib1x mode tun' 2>"$T_DIR/tun.err" ||
	skip "cannot make a tun device here: $(head -n 1 "$T_DIR/tun.err")"
on() {
	nsenter --net="/run/netns/$(ns "$1")" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$@"
}
expect_rc "--inventory with a port that has no hardware address: exit 1" 1 \
	on h1 "$IB_HOOK" --config "$T_DIR/tun.conf" --inventory
check "  the error names the port" grep -q "no hardware address for port 'ib1x'" "$T_DIR/err"
check "  and nothing is printed" test ! -s "$T_DIR/out"
done_testing
