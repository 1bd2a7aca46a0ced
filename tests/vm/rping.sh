#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/rping.sh DEB: a real RDMA CM connection (soft-RoCE rping) between
# two qemu VMs running Debian's kernel, before and after the ib-hook package.
#
# Two VMs (server: 172.16.1.1 and 172.16.2.1, client: 172.16.1.2 and
# 172.16.2.2, all /16, configured by systemd-networkd), soft-RoCE on every
# port (rxe@.service, before networkd), joined by a bridge in a network
# namespace this test creates and deletes; the VMs have no network to the
# host and are driven through a 9p share (tests/vm/image.sh's ci-agent).
# Site setting on both VMs: net.ipv4.conf.all.arp_ignore=1 (a port answers
# ARP only for its own address), so which rping fails before the package
# depends on the server's main table alone: the address on the port whose
# 172.16.0.0/16 route is not the first fails the RDMA CM's reverse-route check.
#
# Checks: before the package exactly that one fails; after dpkg -i (no
# config) both connect, again after a networkd restart, a link bounce and a
# reboot; after dpkg -r no rule of ib-hook is left. Exit 0 passed, 1 failed,
# 77 qemu cannot run here. Everything is time-boxed (VM_TIME_LIMIT, 780 s).
set -u
export LC_ALL=C.UTF-8
here=$(cd "$(dirname "$0")" && pwd)
TIME_LIMIT=${VM_TIME_LIMIT:-780}
DEB=${1:-}
failed=0
start=$(date +%s)

skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok - $* ($(($(date +%s) - start))s)"; }
notok() { echo "not ok - $*"; failed=1; }
note() { echo "# $*"; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespace, taps)"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is missing (apt-get install qemu-system-x86)"
command -v qemu-img >/dev/null || skip "qemu-img is missing (apt-get install qemu-utils)"
[ -f "$DEB" ] || { echo "not ok - no .deb given or '$DEB' missing"; exit 1; }

work=$(mktemp -d /var/tmp/ib-hook-vm.XXXXXX)
ns=ibhvm$$
pids=()
watchdog=
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		timeout 10 tail --pid="$p" -f /dev/null 2>/dev/null || kill -9 "$p" 2>/dev/null
	done
	[ -n "$watchdog" ] && kill "$watchdog" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	[ -n "${VM_KEEP:-}" ] || rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'echo "not ok - interrupted or over the time limit"; exit 1' INT TERM
(sleep "$TIME_LIMIT"; kill -TERM $$) 2>/dev/null &
watchdog=$!

# qemu must be able to run at all (TCG: /dev/kvm here is slower, see README)
timeout 20 qemu-system-x86_64 -machine q35,accel=tcg -display none -S -nodefaults \
	-monitor none -serial none -daemonize -pidfile "$work/probe.pid" 2>"$work/probe.err" ||
	skip "qemu cannot run here: $(head -n 1 "$work/probe.err")"
kill "$(cat "$work/probe.pid")" 2>/dev/null

img=$(timeout 600 "$here/image.sh") || { echo "not ok - VM image"; exit 1; }
ok "VM image $img"

ip netns add "$ns" || exit 1
ip -n "$ns" link add br0 type bridge
ip -n "$ns" link set br0 up
for v in 1 2; do
	for p in 1 2; do
		ip -n "$ns" tuntap add "tap$v$p" mode tap
		ip -n "$ns" link set "tap$v$p" master br0 up
	done
done

boot() { # boot VM (1: server, 2: client)
	local v=$1 d=$work/vm$1
	mkdir -p "$d/share"
	[ -f "$d/disk.qcow2" ] || qemu-img create -q -f qcow2 -F raw -b "$img/disk.raw" "$d/disk.qcow2"
	ip netns exec "$ns" qemu-system-x86_64 -machine q35,accel=tcg -cpu max -m 1024 -smp 1 \
		-nodefaults -display none -serial "file:$d/console.log" -monitor none \
		-kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 quiet" \
		-netdev "tap,id=n1,ifname=tap${v}1,script=no,downscript=no" \
		-device "virtio-net-pci,netdev=n1,mac=52:54:00:00:0$v:01,addr=3" \
		-netdev "tap,id=n2,ifname=tap${v}2,script=no,downscript=no" \
		-device "virtio-net-pci,netdev=n2,mac=52:54:00:00:0$v:02,addr=4" \
		-drive "file=$d/disk.qcow2,if=none,id=d0,format=qcow2" \
		-device "virtio-blk-pci,drive=d0,addr=5" \
		-fsdev "local,id=f0,path=$d/share,security_model=none" \
		-device "virtio-9p-pci,fsdev=f0,mount_tag=ci,addr=6" &
	pids+=($!)
}

seq_=0
# run V TIMEOUT SCRIPT: run SCRIPT as root in VM V, print its output, return its code
run() {
	local v=$1 t=$2 n d=$work/vm$1/share i
	seq_=$((seq_ + 1))
	n=$seq_
	printf '%s\n' "$3" >"$d/.cmd.$n"
	mv "$d/.cmd.$n" "$d/cmd.$n"
	for ((i = 0; i < t * 5; i++)); do
		if [ -f "$d/rc.$n" ]; then
			cat "$d/out.$n"
			return "$(cat "$d/rc.$n")"
		fi
		sleep 0.2
	done
	echo "(no answer from VM $v within ${t}s)"
	return 124
}

wait_agent() { # wait_agent V COUNT: until the VM's agent has started COUNT times
	local v=$1 i
	for ((i = 0; i < 240; i++)); do
		[ "$(ls "$work/vm$v/share"/agent.* 2>/dev/null | wc -l)" -ge "$2" ] && return 0
		sleep 1
	done
	return 1
}

setup() { # the network of VM V: two ports, one /16, by systemd-networkd
	local v=$1
	run "$v" 60 "set -e
for p in 1 2; do
	printf '[Match]\nMACAddress=52:54:00:00:0$v:0%s\n[Network]\nAddress=172.16.%s.$v/16\n' \$p \$p \
		>/etc/systemd/network/10-p\$p.network
done
printf 'net.ipv4.conf.all.arp_ignore=1\n' >/etc/sysctl.d/90-site-arp.conf
sysctl -q --system
networkctl reload
networkctl reconfigure enp0s3 enp0s4
hostnamectl set-hostname vm$v"
}

ready() { # until both ports of VM V have their address and both rxe devices exist
	run "$1" 60 'for i in $(seq 1 100); do
	n=$(ip -4 -o addr show scope global | grep -c "172\.16\.")
	r=$(rdma link show 2>/dev/null | grep -c "state ACTIVE")
	[ "$n" = 2 ] && [ "$r" = 2 ] && { rdma link show; exit 0; }
	sleep 0.5
done
ip addr; rdma link show; exit 1'
}

server_start() {
	run 1 20 'pkill -x rping; (setsid rping -s -P -a 0.0.0.0 >/dev/null 2>&1 &); sleep 1; pgrep -x rping >/dev/null'
}

# rping_to ADDR: one RDMA CM connection from the client, 3 pings, 20 s at most
rping_to() {
	run 2 40 "timeout 20 rping -c -a $1 -C 3 -v; rc=\$?; echo \"rping -c -a $1 -C 3: exit \$rc\"; exit \$rc"
}

both() { # both WHEN: the client reaches both server addresses
	local a out
	for a in 172.16.1.1 172.16.2.1; do
		if out=$(rping_to $a); then
			ok "$1: rping to $a connects"
		else
			notok "$1: rping to $a fails"
			printf '%s\n' "$out" | tail -n 5 | sed 's/^/#   /'
		fi
		printf '%s\n' "$out" | tail -n 2 >>"$work/transcript"
	done
}

boot 1
boot 2
wait_agent 1 1 && wait_agent 2 1 || { notok "VMs booted"; tail -n 20 "$work"/vm*/console.log; exit 1; }
ok "both VMs booted (TCG)"
setup 1 >/dev/null && setup 2 >/dev/null || notok "networkd configuration"
if ready 1 >"$work/rdma1" && ready 2 >/dev/null; then
	ok "two ports with soft-RoCE on each VM"
	sed 's/^/#   /' "$work/rdma1"
else
	notok "addresses and rxe devices"
	sed 's/^/#   /' "$work/rdma1"
	exit 1
fi
server_start || notok "rping server"

# --- before the package: exactly the address on the server's second route fails
first=$(run 1 10 'ip -4 route show 172.16.0.0/16 | sed -n "1s/.* dev \([^ ]*\).*/\1/p"')
case $first in
enp0s3) good=172.16.1.1 bad=172.16.2.1 ;;
enp0s4) good=172.16.2.1 bad=172.16.1.1 ;;
*) notok "server's first 172.16.0.0/16 route: '$first'"; exit 1 ;;
esac
note "server's first 172.16.0.0/16 route is through $first: expecting $bad to fail"
{
	echo "### before the package (client vm2 -> server vm1)"
} >"$work/transcript"
for a in $good $bad; do
	out=$(rping_to $a)
	rc=$?
	printf '%s\n' "$out" | tail -n 2 >>"$work/transcript"
	if [ $a = $good ] && [ $rc = 0 ]; then
		ok "before: rping to $a (port of the first route) connects"
	elif [ $a = $bad ] && [ $rc != 0 ]; then
		ok "before: rping to $a (the other port) fails (exit $rc)"
	else
		notok "before: rping to $a exit $rc"
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/#   /'
	fi
done

# --- the package, no configuration
cp "$DEB" "$work/vm1/share/ib-hook.deb"
cp "$DEB" "$work/vm2/share/ib-hook.deb"
for v in 1 2; do
	out=$(run $v 120 'dpkg -i /ci/ib-hook.deb') && ok "dpkg -i on vm$v" ||
		{ notok "dpkg -i on vm$v"; printf '%s\n' "$out" | sed 's/^/#   /'; }
done
run 1 20 'ib-hook --status' | sed 's/^/#   /'
echo "### after dpkg -i ib-hook (no configuration)" >>"$work/transcript"
both "after dpkg -i"

for v in 1 2; do
	run $v 60 'systemctl restart systemd-networkd; sleep 5' >/dev/null
done
both "after systemctl restart systemd-networkd"

for v in 1 2; do
	run $v 60 'ip link set enp0s4 down; sleep 1; ip link set enp0s4 up; sleep 5' >/dev/null
done
both "after a link bounce of enp0s4"

for v in 1 2; do
	run $v 10 '(sleep 1; systemctl reboot) >/dev/null 2>&1 &' >/dev/null
done
if wait_agent 1 2 && wait_agent 2 2 && ready 1 >/dev/null && ready 2 >/dev/null; then
	ok "both VMs rebooted"
	server_start || notok "rping server after reboot"
	sleep 3
	both "after a reboot"
else
	notok "reboot"
fi

for v in 1 2; do
	run $v 60 'dpkg -r ib-hook' >/dev/null || notok "dpkg -r on vm$v"
	left=$(run $v 10 'ip rule show | grep -c "from 172\.16\."')
	[ "$left" = 0 ] && ok "after dpkg -r on vm$v: no rule of ib-hook" ||
		notok "after dpkg -r on vm$v: $left rules from 172.16 left"
done

echo "# transcript:"
sed 's/^/#   /' "$work/transcript"
cp "$work/transcript" "${VM_TRANSCRIPT:-/dev/null}" 2>/dev/null
exit $failed
