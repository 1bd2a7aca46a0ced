#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The problem and the fix in a few seconds, without InfiniBand hardware:
# memserver34 and cpuserver16 of the seed become two network namespaces whose
# ports (veth pairs named like the IPoIB ports) share one subnet on a bridge.
# The demo shows a ping sourced from memserver34's second address failing,
# runs ib-hook on every port exactly as networkd-dispatcher would, and shows
# the same ping working.
#
#   sudo demo/demo.sh            needs root; IB_HOOK=PATH picks the binary
#                                (default: build/src/ib-hook of this tree)
#   demo/demo.sh --test          as run by `meson test --suite demo`:
#                                exit 77 (skip) when a prerequisite is missing
#
# Nothing outside the namespaces the demo creates is changed; they are removed
# on every exit, Ctrl-C included. Exit 0 only when the ping failed before
# ib-hook ran and worked after.

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
test_mode=0
[ "${1:-}" = --test ] && test_mode=1

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
	B=$'\e[1m' D=$'\e[2m' G=$'\e[32m' R=$'\e[31m' Y=$'\e[33m' N=$'\e[0m'
else
	B='' D='' G='' R='' Y='' N=''
fi

# a missing prerequisite: the test suite skips, a person gets an error
unable() {
	echo "demo: $*" >&2
	[ "$test_mode" = 1 ] && exit 77
	exit 1
}

die() {
	echo "demo: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || unable "needs root to create network namespaces: sudo $0"
command -v ip >/dev/null || unable "needs ip (apt-get install iproute2)"
command -v ping >/dev/null || unable "needs ping (apt-get install iputils-ping)"

IB_HOOK=${IB_HOOK:-$top/build/src/ib-hook}
[ -x "$IB_HOOK" ] ||
	unable "no ib-hook binary at $IB_HOOK: build it first (meson setup build && ninja -C build)"

# In hook mode the binary reads only SYSCONFDIR/ib-hook.conf, so the demo's
# configuration is mounted there, in a mount namespace of the hook's own.
confdir=${IB_HOOK_SYSCONFDIR:-$("$IB_HOOK" --help | sed -n 's|.*(default \(/.*\)/ib-hook\.conf).*|\1|p')}
[ -n "$confdir" ] && [ -d "$confdir" ] ||
	unable "cannot find the directory the binary reads ib-hook.conf from (${confdir:-unknown})"

# namespace names of this run; ip netns exec needs them, the output does not
mem=memserver34-$$
cpu=cpuserver16-$$
fab=fabric-$$
made=""
tmp=""
host_before=$(ip rule show; ip route show)

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	rc=$?
	trap '' INT TERM
	for n in $made; do
		# the record ib-hook keeps for the namespace in /run/ib-hook (and the
		# files of its links' routes beside it) outlives it
		rec=$(ip netns exec "$n" "$IB_HOOK" --config /dev/null --status --json 2>/dev/null |
			sed -n 's|.*"record":"\(/run/ib-hook/netns-[^"/]*\)".*|\1|p')
		ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$n" 2>/dev/null
		[ -z "$rec" ] || rm -f "$rec" "$rec.watch" "$rec".routes-* "$rec".*.tmp
	done
	[ -n "$tmp" ] && rm -rf "$tmp"
	if [ -n "$made" ]; then
		left=$(ip netns list | awk '{ print $1 }' | grep -Fx -e "$mem" -e "$cpu" -e "$fab" | tr '\n' ' ')
		host_after=$(ip rule show; ip route show)
		if [ -n "$left" ] || [ "$host_after" != "$host_before" ]; then
			echo "${R}demo: cleanup incomplete: namespaces left: ${left:-none}; host rules and routes changed: $([ "$host_after" = "$host_before" ] && echo no || echo yes)${N}" >&2
			rc=1
		else
			echo "${D}Removed the demo's three namespaces; the host's rules and routes are as they were.${N}"
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

heading() {
	printf '\n%s== %s ==%s\n' "$B" "$*" "$N"
}

note() {
	printf '%s   %s%s\n' "$D" "$*" "$N"
}

nsname() {
	case $1 in
	memserver34) echo "$mem" ;;
	cpuserver16) echo "$cpu" ;;
	esac
}

# show HOST CMD...: print the command as typed on HOST, then its output
show() {
	h=$1
	shift
	printf '%s%s#%s %s\n' "$Y" "$h" "$N" "$*"
	ip netns exec "$(nsname "$h")" "$@" 2>&1 | sed 's/^/    /'
}

# ping_from HOST ARGS...: one ping, print the command, its summary and a verdict
ping_from() {
	h=$1
	shift
	printf '%s%s#%s ping %s\n' "$Y" "$h" "$N" "$*"
	out=$(ip netns exec "$(nsname "$h")" ping "$@" 2>&1)
	prc=$?
	printf '%s\n' "$out" | grep -E 'bytes from|packets transmitted' | sed 's/^/    /'
	if [ "$prc" = 0 ]; then
		echo "    ${G}${B}reply received${N}"
	else
		echo "    ${R}${B}no reply${N}"
	fi
	return "$prc"
}

setup() {
	tmp=$(mktemp -d /tmp/ib-hook-demo.XXXXXX) || die "mktemp failed"
	for n in "$mem" "$cpu" "$fab"; do
		ip netns add "$n" || die "cannot create network namespace $n"
		made="$made $n"
		ip -n "$n" link set lo up
	done
	ip -n "$fab" link add br0 type bridge || die "cannot create a bridge (is the bridge module available?)"
	ip -n "$fab" link set br0 up

	# A new namespace inherits the host's IPv4 settings: pin them, so that the
	# demo behaves the same on every machine. Strict reverse-path filtering as
	# on the seed's hosts; arp_ignore and arp_announce at the kernel's defaults
	# (ib-hook sets them per port).
	for n in "$mem" "$cpu"; do
		for c in all default; do
			ip netns exec "$n" sysctl -q -w \
				"net.ipv4.conf.$c.rp_filter=1" \
				"net.ipv4.conf.$c.arp_ignore=0" \
				"net.ipv4.conf.$c.arp_announce=0" \
				"net.ipv4.conf.$c.arp_filter=0" >/dev/null || die "sysctl failed in $n"
		done
	done

	# port NS IF MAC ADDRESS: a host port with a fixed, readable hardware
	# address, cabled to the bridge
	port() {
		ip -n "$1" link add "$2" address "$3" type veth peer name "p-$2" netns "$fab" ||
			die "cannot create $2"
		ip -n "$fab" link set "p-$2" master br0 up
		ip -n "$1" addr add "$4" dev "$2"
		ip -n "$1" link set "$2" up
	}
	port "$mem" ib0 02:00:00:34:00:01 172.16.34.1/16
	port "$mem" ib1 02:00:00:34:00:02 172.16.34.2/16
	port "$cpu" ibs5f0 02:00:00:16:00:01 172.16.16.1/16
	port "$cpu" ibs5f1 02:00:00:16:00:02 172.16.16.2/16

	# the bridge forwards on a port once it has seen its carrier come up
	for _ in $(seq 50); do
		[ "$(ip -n "$fab" -d link show master br0 | grep -c 'state forwarding')" = 4 ] && return 0
		sleep 0.1
	done
	die "the bridge ports did not start forwarding"
}

# hook HOST IFACE STATE: run ib-hook as networkd-dispatcher does for a state
# change of IFACE: no arguments, the dispatcher's variables, the installed
# configuration path. The journal is hidden so that its messages show here.
hook() {
	h=$1 ifc=$2 st=$3
	addrs=$(ip -n "$(nsname "$h")" -4 -o addr show dev "$ifc" | awk '{ sub("/.*", "", $4); print $4 }')
	printf '%s%s#%s IFACE=%s STATE=%s %s\n' "$Y" "$h" "$N" "$ifc" "$st" "$IB_HOOK"
	ip netns exec "$(nsname "$h")" sh -c '
		cfg=$1 dir=$2
		shift 2
		# a tmpfs hides the installed ib-hook.conf and ib-hook.conf.d from the hook
		mount -t tmpfs -o mode=0755 tmpfs "$dir" && cp "$cfg" "$dir/ib-hook.conf" || exit 90
		if [ -d /run/systemd/journal ]; then mount -t tmpfs tmpfs /run/systemd/journal; fi
		exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
	' hook "$tmp/ib-hook.conf" "$confdir" \
		IFACE="$ifc" STATE="$st" ADDR="$addrs" IP_ADDRS="$addrs" \
		OperationalState=routable AdministrativeState=configured \
		"$IB_HOOK" >"$tmp/hook.out" 2>&1
	hrc=$?
	sed 's/^/    /' "$tmp/hook.out"
	[ "$hrc" = 0 ] || { echo "    ${R}exit $hrc${N}"; return 1; }
	[ -s "$tmp/hook.out" ] || echo "    ${D}(nothing to do: no output)${N}"
}

routing_state() {
	show memserver34 ip route
	show memserver34 ip rule
	show memserver34 ip route get 172.16.16.1 from 172.16.34.2
}

start=$(date +%s.%N)
setup

heading "Two hosts of the seed, each with two ports in one subnet"
note "memserver34: ib0 172.16.34.1/16 (02:00:00:34:00:01), ib1 172.16.34.2/16 (02:00:00:34:00:02)"
note "cpuserver16: ibs5f0 172.16.16.1/16, ibs5f1 172.16.16.2/16"
note "network namespaces, all four ports on one bridge; rp_filter=1 (strict) on both hosts"

heading "memserver34 before ib-hook"
routing_state
note "Both prefix routes are in main and the first wins: traffic from 172.16.34.2 leaves through ib0."

heading "Pings before ib-hook"
ping_from memserver34 -c 1 -W 1 172.16.16.1 ||
	die "the simulated fabric does not carry even a plain ping: nothing to show"
note "From 172.16.34.1 through ib0: fine."
ping_from memserver34 -I ib1 -c 1 -W 1 172.16.16.1
note "Bound to ib1: its ARP request tells cpuserver16 that 172.16.34.2 is at ib1's hardware address."
note "The reply comes in on ib1, where rp_filter drops it: the route back to 172.16.16.1 is via ib0."
show cpuserver16 ip neigh show 172.16.34.2
ping_from memserver34 -I 172.16.34.2 -c 1 -W 1 172.16.16.1
before=$?
note "Sent through ib0, answered to ib1, dropped. An RDMA connection to 172.16.34.2 never completes (rping hangs; doc/proof.md)."

heading "networkd-dispatcher runs ib-hook as each port becomes routable"
printf '[Match]\nName=ib0 ib1 ibs5f0 ibs5f1\n' >"$tmp/ib-hook.conf"
chmod 0644 "$tmp/ib-hook.conf"
note "$confdir/ib-hook.conf (mounted for the hook only): [Match] Name=ib0 ib1 ibs5f0 ibs5f1"
hooks_ok=0
hook memserver34 ib0 routable &&
	hook memserver34 ib1 routable &&
	hook cpuserver16 ibs5f0 routable &&
	hook cpuserver16 ibs5f1 routable &&
	hooks_ok=1
note "networkd-dispatcher may run it again for the same port; a second run changes nothing:"
hook memserver34 ib1 configured || hooks_ok=0

heading "memserver34 after ib-hook"
routing_state
for t in $(ip -n "$mem" rule show | sed -n 's/.*from 172\.16\.34\.[12] lookup \([0-9]*\).*/\1/p'); do
	show memserver34 ip route show table "$t"
done
note "Each address now has its own table; traffic from 172.16.34.2 leaves through ib1."

heading "Pings after ib-hook"
ping_from memserver34 -I 172.16.34.2 -c 1 -W 1 172.16.16.1
after=$?
ping_from memserver34 -I ib1 -c 1 -W 1 172.16.16.1
after_ib1=$?
ping_from memserver34 -c 1 -W 1 172.16.16.1
after_ib0=$?

elapsed=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
heading "Result"
if [ "$before" != 0 ] && [ "$hooks_ok" = 1 ] && [ "$after" = 0 ] && [ "$after_ib1" = 0 ] && [ "$after_ib0" = 0 ]; then
	echo "${G}${B}The ping from 172.16.34.2 failed before ib-hook and works after it.${N} (${elapsed}s)"
	exit 0
fi
[ "$before" = 0 ] && echo "${R}${B}Unexpected: the ping from 172.16.34.2 worked before ib-hook ran.${N}"
[ "$hooks_ok" = 1 ] || echo "${R}${B}ib-hook failed (see above).${N}"
[ "$after" = 0 ] && [ "$after_ib1" = 0 ] && [ "$after_ib0" = 0 ] ||
	echo "${R}${B}A ping failed after ib-hook ran.${N}"
exit 1
