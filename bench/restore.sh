#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Restore latency of the three ways ib-hook is run on a link event (issue 13),
# each in a booted bookworm container (roots cached under /var/cache/ib-hook-ci):
#
#   watcher         ifupdown host, ib-hook.service running (nothing else
#                   reacts to a bare link event on such a host)
#   networkd        systemd-networkd + networkd-dispatcher, watcher stopped
#   networkmanager  NetworkManager 1.42 + its dispatcher, watcher stopped
#
#   sudo bench/restore.sh PATH-TO-DEB [ROUNDS] [WHICH...]
#
# RESTORE_ARGS passes more options to restore.py (e.g. "--down 8": the link
# stays down 8 s in a bounce instead of 1 s).
#
# bench/restore.py measures inside each container's network namespace; see
# there for the events and how they are timed. Needs root.
set -u
export LC_ALL=C.UTF-8
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
DEB=$(realpath "${1:?usage: restore.sh PATH-TO-DEB [ROUNDS] [watcher networkd networkmanager]}")
ROUNDS=${2:-20}
shift 2 2>/dev/null || shift $#
WHICH=${*:-watcher networkd networkmanager}
RESTORE_ARGS=${RESTORE_ARGS:-}
here=$(cd "$(dirname "$0")" && pwd)
e2e=$here/../tests/e2e
[ "$(id -u)" = 0 ] || { echo "restore.sh needs root" >&2; exit 77; }

# shellcheck source=tests/e2e/container.sh
. "$e2e/container.sh"
WORK=
trap remove_work EXIT
trap 'exit 1' INT TERM

setup_watcher() {
	veth_unit "$ROOT" networking.service
	printf 'auto lo\niface lo inet loopback\n' >"$ROOT/etc/network/interfaces"
	for i in 0 1; do
		printf '\nauto ib%s\niface ib%s inet static\n\taddress 172.16.34.%s/16\n' $i $i $((i + 1)) \
			>>"$ROOT/etc/network/interfaces"
	done
}
setup_networkd() {
	systemctl --root="$ROOT" enable systemd-networkd.service systemd-networkd.socket >/dev/null 2>&1
	systemctl --root="$ROOT" disable systemd-networkd-wait-online.service >/dev/null 2>&1
	mkdir -p "$ROOT/etc/systemd/network"
	for i in 0 1; do
		printf '[NetDev]\nName=ib%s\nKind=veth\n[Peer]\nName=ib%sp\n' $i $i >"$ROOT/etc/systemd/network/10-ib$i.netdev"
		printf '[Match]\nName=ib%s\n[Network]\nAddress=172.16.34.%s/16\nIPv6AcceptRA=no\n' $i $((i + 1)) \
			>"$ROOT/etc/systemd/network/10-ib$i.network"
		printf '[Match]\nName=ib%sp\n[Network]\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n' $i \
			>"$ROOT/etc/systemd/network/10-ib${i}p.network"
	done
}
setup_networkmanager() {
	veth_unit "$ROOT" NetworkManager.service
	systemctl --root="$ROOT" enable NetworkManager.service >/dev/null 2>&1
	systemctl --root="$ROOT" disable NetworkManager-wait-online.service >/dev/null 2>&1
	mkdir -p "$ROOT/etc/NetworkManager/conf.d" "$ROOT/etc/NetworkManager/system-connections"
	# managed=1: see tests/e2e/networkmanager.sh (85-nm-unmanaged.rules)
	printf '[keyfile]\nunmanaged-devices=interface-name:ib0p;interface-name:ib1p;interface-name:host0\n\n[device-ib]\nmatch-device=interface-name:ib0;interface-name:ib1\nmanaged=1\n' \
		>"$ROOT/etc/NetworkManager/conf.d/90-ib-bench.conf"
	for i in 0 1; do
		f=$ROOT/etc/NetworkManager/system-connections/ib$i.nmconnection
		printf '[connection]\nid=ib%s\ntype=ethernet\ninterface-name=ib%s\nautoconnect=true\n[ethernet]\n[ipv4]\nmethod=manual\naddress1=172.16.34.%s/16\n[ipv6]\nmethod=disabled\n' \
			$i $i $((i + 1)) >"$f"
		chmod 0600 "$f"
	done
}

ready() { # the reference state for ib1
	local t
	t=$((1000 + $(ct cat /sys/class/net/ib1/ifindex)))
	ct ip -4 rule show | grep -q "from 172.16.34.2 lookup $t" &&
		ct ip -4 route show table "$t" | grep -q 'dev ib1'
}

for which in $WHICH; do
	case $which in
	watcher) TAR=$("$e2e/root.sh" ifupdown bookworm) ;;
	networkd) TAR=$("$e2e/root.sh" networkd bookworm) ;;
	networkmanager) TAR=$("$e2e/root.sh" nm bookworm) ;;
	*) echo "unknown: $which" >&2; exit 2 ;;
	esac || exit 1
	MACHINE=ibhook-bench-$$
	unpack_root "$TAR" ib-hook-bench || exit 1
	"setup_$which"
	printf '[Match]\nName=ib0 ib1\n' >"$ROOT/etc/ib-hook.conf"
	install_deb "$ROOT" "$DEB" >"$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log" >&2; exit 1; }
	[ "$which" = watcher ] || ln -sf /dev/null "$ROOT/etc/systemd/system/ib-hook.service"
	boot || { tail -n 20 "$CONSOLE" >&2; exit 1; }
	wait_until 60 ready || echo "# $which: ib1 not in the reference state 60 s after boot" >&2
	T1=$((1000 + $(ct cat /sys/class/net/ib1/ifindex)))
	echo "# $which: ib-hook.service $(ct systemctl is-active ib-hook.service); table $T1"
	# real-time priority: the listener reads each notification as it comes
	rt=
	command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null && rt="chrt -f 10"
	# shellcheck disable=SC2086 # $rt and $RESTORE_ARGS are split on purpose
	$rt python3 "$here/restore.py" --pid "$LEADER" --label "$which" --table "$T1" --rounds "$ROUNDS" \
		--repair "nsenter -t $LEADER -a /usr/sbin/ib-hook --iface ib1" $RESTORE_ARGS
	if [ "$which" = watcher ]; then
		pid=$(ct systemctl show -p MainPID --value ib-hook.service)
		echo "# watcher: ib-hook.service $(ct grep -E '^(VmHWM|RssAnon|RssFile)' "/proc/$pid/status" | tr -s '\t\n ' ' ')"
	fi
	# who ran ib-hook (the bench's own repairs run in no unit)
	ct journalctl -b -t ib-hook -o cat --output-fields=_SYSTEMD_UNIT --no-pager | sort | uniq -c |
		sed "s/^/# $which: ib-hook log lines by unit: /"
	stop_container
	rm -rf --one-file-system "$WORK"
	WORK=
done
