#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: a real container runtime with the CNI plugin (SPEC section 11, issue
# 40): Debian's podman with its CNI backend runs a container, from an image
# made here (mmdebstrap's extract of busybox-static, `podman import`: no
# registry), on two networks of Debian's bridge + host-local plugins chained
# with ib-hook, all in one /16. Checked from inside the container: each
# address routes out of its own interface and each interface answers ARP only
# for its own address; after `podman rm`: ib-hook's record of the container's
# namespace is gone (its DEL ran and took everything back). Everything runs
# inside a network namespace of the step's own (the bridges, the runtime's
# firewall rules), with storage, configuration and leases in a temporary
# directory. Prints PASS:/FAIL:/SKIP: lines and the step's time.
#
#   .ci/podman.sh [IB_HOOK-BINARY]     (default: build/src/ib-hook, else built here)
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/.ci/lib.sh"
step_begin podman-cni podman-rm
started=$(date +%s)
ns=ibhook-podman-$$

[ "$(id -u)" = 0 ] || fail "podman-cni needs root"
install_missing podman:podman mmdebstrap:mmdebstrap ip:iproute2 nsenter:util-linux ||
	fail "missing host prerequisites"
[ -x /usr/lib/cni/bridge ] || apt_install containernetworking-plugins ||
	fail "no CNI plugins (containernetworking-plugins)"
tmp=$(mktemp -d /var/tmp/ib-hook-podman.XXXXXX) || fail "mktemp failed"
trap 'nsenter --net="/var/run/netns/$ns" podman $P rm -af -t 0 >/dev/null 2>&1; ip netns del "$ns" 2>/dev/null; rm -rf --one-file-system "$tmp"' EXIT

bin=${1:-$srcdir/build/src/ib-hook}
if ! [ -x "$bin" ]; then
	meson setup "$tmp/build" "$srcdir" -Dtests=false >/dev/null && ninja -C "$tmp/build" >/dev/null ||
		fail "could not build ib-hook"
	bin=$tmp/build/src/ib-hook
fi
mkdir -p "$tmp/bin" "$tmp/net.d" "$tmp/ipam"
ln -s /usr/lib/cni/* "$tmp/bin/"
cp "$bin" "$tmp/bin/ib-hook"

# the image: busybox alone, from Debian's mirror
mmdebstrap --quiet --variant=extract --include=busybox-static bookworm "$tmp/rootfs.tar" \
	>"$tmp/mmdebstrap.log" 2>&1 || { cat "$tmp/mmdebstrap.log" >&2; fail "mmdebstrap failed"; }

cat >"$tmp/containers.conf" <<CONF
[network]
network_backend = "cni"
cni_plugin_dirs = ["$tmp/bin"]
network_config_dir = "$tmp/net.d"
CONF
export CONTAINERS_CONF=$tmp/containers.conf
P="--root $tmp/root --runroot $tmp/run --storage-driver vfs --cgroup-manager cgroupfs --events-backend file"
for i in 0 1; do
	cat >"$tmp/net.d/rail$i.conflist" <<CONF
{ "cniVersion": "1.0.0", "name": "rail$i", "plugins": [
  { "type": "bridge", "bridge": "rail$i",
    "ipam": { "type": "host-local", "dataDir": "$tmp/ipam",
              "ranges": [[{ "subnet": "10.99.0.0/16", "rangeStart": "10.99.$i.10", "rangeEnd": "10.99.$i.50" }]] } },
  { "type": "ib-hook" } ] }
CONF
done

ip netns add "$ns" || fail "cannot create a network namespace"
# nsenter, not ip netns exec: that mounts a /sys of its own, without the cgroup tree podman needs
in_ns() { nsenter --net="/var/run/netns/$ns" "$@"; }
in_ns ip link set lo up
# shellcheck disable=SC2086
in_ns podman $P import "$tmp/rootfs.tar" localhost/ibhook-busybox >/dev/null 2>"$tmp/err" || {
	cat "$tmp/err" >&2
	fail "podman import failed"
}
records_before=$(ls /run/ib-hook 2>/dev/null)
# shellcheck disable=SC2086
if ! in_ns podman $P run -d --name ibhook-c1 --ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit "nproc=$(ulimit -Hu):$(ulimit -Hu)" --pids-limit 0 --network rail0,rail1 localhost/ibhook-busybox \
	/bin/busybox sleep 600 >"$tmp/out" 2>"$tmp/err"; then
	cat "$tmp/err" >&2
	# a sandbox that lets no process set its own limits again (crun's
	# setrlimit of the host's own RLIMIT_NPROC is refused here) or has no
	# writable cgroup tree: no container can start, whatever the network
	if grep -qE 'setrlimit|cgroup' "$tmp/err"; then
		echo "SKIP: podman-cni (no container can start here: $(grep -m1 -E 'setrlimit|cgroup' "$tmp/err"))"
		echo "SKIP: podman-rm (no container)"
		echo "# podman step: $(($(date +%s) - started)) s"
		exit 0
	fi
	fail "podman run failed"
fi
# shellcheck disable=SC2086
pe() { in_ns podman $P exec ibhook-c1 /bin/busybox "$@"; }
addr() { pe ip -4 -o addr show dev "$1" | sed -n 's/.* inet \([0-9.]*\)\/.*/\1/p'; }
ok=1
for dev in eth0 eth1; do
	a=$(addr $dev)
	got=$(pe ip route get 10.99.200.1 from "$a" | head -1)
	echo "# in the container: ip route get 10.99.200.1 from $a: $got"
	case $got in *" dev $dev "*) ;; *) ok=0 ;; esac
	for k in arp_ignore arp_announce; do
		v=$(pe cat "/proc/sys/net/ipv4/conf/$dev/$k")
		echo "# $dev $k=$v"
		[ "$v" = 2 ] || ok=0
	done
done
pid=$(in_ns podman $P inspect -f '{{.State.Pid}}' ibhook-c1)
rec=$(nsenter -t "$pid" -n "$tmp/bin/ib-hook" --config /dev/null --status --json 2>/dev/null |
	sed -n 's|.*"record":"\(/run/ib-hook/netns-[^"/]*\)".*|\1|p')
[ "$ok" = 1 ] && [ -f "$rec" ] && echo "PASS: podman-cni" ||
	{ echo "FAIL: podman-cni"; ok=0; }
# shellcheck disable=SC2086
in_ns podman $P rm -f -t 0 ibhook-c1 >/dev/null 2>"$tmp/err" || cat "$tmp/err" >&2
if [ -n "$rec" ] && ! [ -e "$rec" ] && [ "$(ls /run/ib-hook 2>/dev/null)" = "$records_before" ]; then
	echo "PASS: podman-rm"
else
	echo "# after podman rm: record $rec $( [ -e "$rec" ] && echo is still there)" >&2
	echo "FAIL: podman-rm"
	ok=0
fi
echo "# podman step: $(($(date +%s) - started)) s"
[ "$ok" = 1 ]
