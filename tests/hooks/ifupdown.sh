#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian's ifupdown runs the hook links that `meson install` creates. Every
# ifup/ifdown runs in the test's network namespace and a private mount
# namespace where /etc and /usr/sbin are overlays (so /etc/ib-hook.conf and
# /usr/sbin/ib-hook can exist without touching the host), /etc/network is the
# test's own directory and /run a tmpfs whose /run/network and /run/ib-hook (ib-hook's record) outlive
# each step, as they do on a host.
. "$(dirname "$0")/../lib.sh"
t_require meson ninja
[ -x /sbin/ifup ] || skip "needs ifupdown (/sbin/ifup)"

. "$(dirname "$0")/stage.sh"
stage "$T_DIR/build" "$T_DIR/dest" || {
	echo "not ok - building and installing with --prefix=/usr --sysconfdir=/etc"
	exit 1
}

mkdir -p "$T_DIR/ovl" "$T_DIR/etc.add" "$T_DIR/sbin.add" "$T_DIR/run-network" "$T_DIR/run-ib-hook"
cp "$T_DIR/dest/usr/sbin/ib-hook" "$T_DIR/sbin.add/ib-hook"
cp -a "$T_DIR/dest/etc/network" "$T_DIR/network"
mkdir -p "$T_DIR/network/if-pre-up.d" "$T_DIR/network/if-down.d"
cat >"$T_DIR/etc.add/ib-hook.conf" <<'EOF'
[Match]
Name=ib0 ib1
EOF
chmod 0644 "$T_DIR/etc.add/ib-hook.conf"
cat >"$T_DIR/network/interfaces" <<'EOF'
auto lo
iface lo inet loopback

auto ib0
iface ib0 inet static
	address 172.16.34.1/16
iface ib0 inet6 static
	address fd00:34::1/64
	dad-attempts 0

auto ib1
iface ib1 inet static
	address 172.16.34.2/16

# an alias stanza: a service address on ib1, brought up by hand
iface ib1:0 inet static
	address 172.16.34.12/16
EOF

ns_new host
ns_new peer
veth host ib0 pib0 peer
veth host ib1 pib1 peer
ip -n "$(ns host)" link set ib0 down
ip -n "$(ns host)" link set ib1 down

# sandbox CMD...: CMD in the host namespace with the test's /etc/network; the
# overlays' upper layers live on a tmpfs (an overlay cannot be the upper layer
# of another, and $T_DIR may be on one)
sandbox() {
	ip netns exec "$(ns host)" sh -c '
		t=$1
		shift
		mount -t tmpfs -o mode=0755 tmpfs "$t/ovl" &&
		mkdir "$t/ovl/etc" "$t/ovl/etc.work" "$t/ovl/sbin" "$t/ovl/sbin.work" &&
		cp -a "$t/etc.add/." "$t/ovl/etc/" &&
		cp -a "$t/sbin.add/." "$t/ovl/sbin/" &&
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$t/ovl/etc,workdir=$t/ovl/etc.work" /etc &&
		mount -t overlay overlay -o "lowerdir=/usr/sbin,upperdir=$t/ovl/sbin,workdir=$t/ovl/sbin.work" /usr/sbin &&
		mkdir -p /etc/network &&
		mount --bind "$t/network" /etc/network &&
		mount -t tmpfs -o mode=0755 tmpfs /run &&
		mkdir /run/network &&
		mkdir /run/ib-hook &&
		mount --bind "$t/run-network" /run/network &&
		mount --bind "$t/run-ib-hook" /run/ib-hook || exit 90
		exec "$@"
	' sandbox "$T_DIR" "$@"
}

rc=0
sandbox true || rc=$?
[ "$rc" = 90 ] && skip "cannot mount overlays over /etc and /usr/sbin in a private mount namespace"

check "if-up.d/ib-hook resolves to the installed binary" \
	sandbox sh -c '[ "$(readlink -f /etc/network/if-up.d/ib-hook)" = /usr/sbin/ib-hook ] &&
		cmp -s /usr/sbin/ib-hook "$0"' "$T_DIR/dest/usr/sbin/ib-hook"
expect_eq "run-parts runs the if-up.d link" "/etc/network/if-up.d/ib-hook" \
	"$(sandbox run-parts --test /etc/network/if-up.d)"
expect_eq "run-parts runs the if-post-down.d link" "/etc/network/if-post-down.d/ib-hook" \
	"$(sandbox run-parts --test /etc/network/if-post-down.d)"

T0=$((1000 + $(ip netns exec "$(ns host)" cat /sys/class/net/ib0/ifindex)))
T1=$((1000 + $(ip netns exec "$(ns host)" cat /sys/class/net/ib1/ifindex)))
rules() {
	ip -n "$(ns host)" rule show
	ip -n "$(ns host)" -6 rule show
}
base=$(rules)

table() {
	ip -n "$(ns host)" route show table "$1" 2>/dev/null
	ip -n "$(ns host)" -6 route show table "$1" 2>/dev/null |
		sed -e 's/ metric [0-9]*//' -e 's/ pref medium//'
}

REF_RULES="0:	from all lookup local
1000:	from 172.16.34.1 lookup $T0
1000:	from 172.16.34.2 lookup $T1
32766:	from all lookup main
32767:	from all lookup default
0:	from all lookup local
1000:	from fd00:34::1 lookup $T0
32766:	from all lookup main"
REF_T0="172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1
fd00:34::/64 dev ib0 proto kernel"
REF_T1="172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2"

reference() {
	expect_eq "$1: rules of both ports once, before main" "$(echo "$REF_RULES" | sort)" \
		"$(rules | sed 's/ *$//' | sort)"
	expect_eq "$1: table $T0" "$REF_T0" "$(table "$T0" | sed 's/ *$//')"
	expect_eq "$1: table $T1" "$REF_T1" "$(table "$T1" | sed 's/ *$//')"
	check "$1: traffic from 172.16.34.2 leaves through ib1" \
		sh -c "ip -n $(ns host) route get 172.16.16.1 from 172.16.34.2 | grep -q ' dev ib1 '"
}

expect_rc "ifup ib0 ib1" 0 sandbox ifup ib0 ib1
check "ifup ib0 ib1: the hook reported its changes" grep -q '^ib1: ' "$T_DIR/err"
reference "ifup ib0 ib1"

expect_rc "ifup ib1:0 (an alias stanza)" 0 sandbox ifup ib1:0
expect_eq "ifup ib1:0: the alias's address has a rule to ib1's table" 1 \
	"$(rules | grep -c "from 172.16.34.12 lookup $T1\$")"
check "ifup ib1:0: traffic from the alias's address leaves through ib1" \
	sh -c "ip -n $(ns host) route get 172.16.16.1 from 172.16.34.12 | grep -q ' dev ib1 '"
expect_rc "ifdown ib1:0" 0 sandbox ifdown ib1:0
expect_eq "ifdown ib1:0: the alias's rule went with its address" 0 \
	"$(rules | grep -c 'from 172.16.34.12 ')"
reference "ifdown ib1:0: ib1 keeps its own"

expect_rc "ifdown ib1" 0 sandbox ifdown ib1
expect_eq "ifdown ib1: no rule from ib1's address" 0 "$(rules | grep -c 'from 172.16.34.2 ')"
expect_eq "ifdown ib1: table $T1 empty" "" "$(table "$T1")"
expect_eq "ifdown ib1: ib0's rules stay" 2 "$(rules | grep -c "lookup $T0\$")"

expect_rc "ifup -a" 0 sandbox ifup -a
reference "ifup -a"

expect_rc "ifdown -a" 0 sandbox ifdown -a
expect_eq "ifdown -a: rules as before the first ifup" "$base" "$(rules)"

expect_rc "ifup ib0 and ifup ib1 in parallel" 0 sandbox sh -c 'ifup ib0 & a=$!; ifup ib1 || exit; wait $a'
reference "parallel ifup"

expect_rc "ifdown -a after the parallel ifup" 0 sandbox ifdown -a
expect_eq "ifdown -a after the parallel ifup: rules as before the first ifup" "$base" "$(rules)"

done_testing
