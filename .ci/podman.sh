#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: a real container runtime with the CNI plugin (SPEC section 11, issue
# 40): Debian's podman with its CNI backend runs a container, from an image
# made here (mmdebstrap's extract of busybox-static, `podman import`: no
# registry), on two networks of Debian's bridge + host-local plugins chained
# with ib-hook, all in one /16. Checked from inside the container: each
# address routes out of its own interface and each interface has ib-hook's ARP
# settings; after `podman rm`: ib-hook's record of the container's
# namespace is gone, its rules are gone from that namespace (held open across
# the rm to look) and podman's handle of the namespace is gone too.
#
# Everything runs inside a network namespace of the step's own (the bridges)
# and a mount namespace of its own (podman's mounts, its namespace handles),
# with storage, configuration (CONTAINERS_CONF), networks and leases in a
# temporary directory: the machine's containers.conf and CNI networks are
# neither read nor changed, and no cgroup is made (--cgroups=disabled).
# Prints PASS:/FAIL: lines and the step's time.
#
#   .ci/podman.sh [IB_HOOK-BINARY]     (default: build/src/ib-hook, else built here)
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/.ci/lib.sh"
step_begin podman-cni podman-rm
started=${IB_HOOK_PODMAN_STARTED:-$(date +%s)}
ns=ibhook-podman-$$

[ "$(id -u)" = 0 ] || fail "podman-cni needs root"
install_missing podman:podman mmdebstrap:mmdebstrap ip:iproute2 nsenter:util-linux unshare:util-linux ||
	fail "missing host prerequisites"
[ -x /usr/lib/cni/bridge ] || apt_install containernetworking-plugins ||
	fail "no CNI plugins (containernetworking-plugins)"

# the rest in a mount namespace of its own: podman's mounts and its handles
# of the container's network namespace (/run/netns/netns-*) stay in it
if [ -z "${IB_HOOK_PODMAN_MNTNS-}" ]; then
	# shellcheck disable=SC2093 # a failed exec carries on
	IB_HOOK_PODMAN_MNTNS=1 IB_HOOK_PODMAN_STARTED=$started \
		exec unshare --mount --propagation private -- bash "$0" "$@"
	fail "cannot make a mount namespace (unshare)"
fi
# crun refuses a hybrid cgroup layout (a cgroup2 tree with a controller in it,
# mounted at /sys/fs/cgroup/unified besides the v1 trees, as in the sandbox
# this was written in: "cgroups in hybrid mode not supported"), even with
# --cgroups=disabled. This mount namespace's copy of that mount goes; the
# machine keeps its own.
if [ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ] &&
	[ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
	umount /sys/fs/cgroup/unified || fail "cannot unmount /sys/fs/cgroup/unified in the step's mount namespace"
fi

tmp=$(mktemp -d /var/tmp/ib-hook-podman.XXXXXX) || fail "mktemp failed"
# shellcheck disable=SC2086
trap 'nsenter --net="/var/run/netns/$ns" podman $P rm -af -t 0 >/dev/null 2>&1
	umount "$tmp/held-netns" 2>/dev/null; ip netns del "$ns" 2>/dev/null; rm -rf --one-file-system "$tmp"' EXIT

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
image_started=$(date +%s)
mmdebstrap --quiet --variant=extract --include=busybox-static bookworm "$tmp/rootfs.tar" \
	>"$tmp/mmdebstrap.log" 2>&1 || { cat "$tmp/mmdebstrap.log" >&2; fail "mmdebstrap failed"; }

cat >"$tmp/containers.conf" <<CONF
[network]
network_backend = "cni"
cni_plugin_dirs = ["$tmp/bin"]
network_config_dir = "$tmp/net.d"
[engine]
events_logger = "file"
tmp_dir = "$tmp/libpod"
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

# The container's limits: ones podman's own process already has. For root,
# podman 4.3 asks for nofile=1048576 and (containers/common) lowers its own
# RLIMIT_NPROC to kernel.pid_max, then asks for that; raising a hard limit
# again needs CAP_SYS_RESOURCE, which a sandbox may lack (this one's bounding
# set has every capability but that one): crun's setrlimit then fails with
# EPERM before anything else. Lowering is always allowed.
hard_min() { # hard_min ULIMIT-HARD-VALUE CAP: the smaller, "unlimited" counting as infinite
	if [ "$1" = unlimited ] || [ "$1" -gt "$2" ]; then echo "$2"; else echo "$1"; fi
}
nofile=$(hard_min "$(ulimit -Hn)" 1048576)
nproc=$(hard_min "$(ulimit -Hu)" "$(cat /proc/sys/kernel/pid_max)")

ip netns add "$ns" || fail "cannot create a network namespace"
# nsenter, not ip netns exec: that mounts a /sys of its own
in_ns() { nsenter --net="/var/run/netns/$ns" "$@"; }
in_ns ip link set lo up
# shellcheck disable=SC2086
in_ns podman $P import "$tmp/rootfs.tar" localhost/ibhook-busybox >/dev/null 2>"$tmp/err" || {
	cat "$tmp/err" >&2
	fail "podman import failed"
}
echo "# the image (mmdebstrap, podman import): $(($(date +%s) - image_started)) s"
# shellcheck disable=SC2086
in_ns podman $P run -d --name ibhook-c1 --cgroups=disabled \
	--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc" \
	--network rail0,rail1 localhost/ibhook-busybox /bin/busybox sleep 600 >/dev/null 2>"$tmp/err" || {
	cat "$tmp/err" >&2
	fail "podman run failed"
}

# from inside the container: its own busybox, in its own namespaces
# shellcheck disable=SC2086
pe() { in_ns podman $P exec ibhook-c1 /bin/busybox "$@"; }
addr() { pe ip -4 -o addr show dev "$1" | sed -n 's/.* inet \([0-9.]*\)\/.*/\1/p'; }
ok=1
addrs=
for dev in eth0 eth1; do
	a=$(addr $dev)
	[ -n "$a" ] || { echo "# the container has no IPv4 address on $dev" >&2; ok=0; continue; }
	addrs="$addrs $a"
	got=$(pe ip route get 10.99.200.1 from "$a" | head -1)
	echo "# in the container: ip route get 10.99.200.1 from $a: $got"
	case $got in *" dev $dev "*) ;; *) ok=0 ;; esac
	for k in arp_ignore arp_announce; do
		v=$(pe cat "/proc/sys/net/ipv4/conf/$dev/$k")
		echo "# $dev $k=$v"
		[ "$v" = 2 ] || ok=0
	done
done
# shellcheck disable=SC2086
pid=$(in_ns podman $P inspect -f '{{.State.Pid}}' ibhook-c1)
# shellcheck disable=SC2086
sandbox=$(in_ns podman $P inspect -f '{{.NetworkSettings.SandboxKey}}' ibhook-c1)
rec=$(nsenter -t "$pid" -n "$tmp/bin/ib-hook" --config /dev/null --status --json 2>/dev/null |
	sed -n 's|.*"record":"\(/run/ib-hook/netns-[^"/]*\)".*|\1|p')
echo "# the container's namespace: $sandbox; ib-hook's record: ${rec:-none}"
[ "$ok" = 1 ] && [ -n "$rec" ] && [ -f "$rec" ] && echo "PASS: podman-cni" ||
	{ echo "FAIL: podman-cni"; ok=0; }

# podman rm: the namespace is held open across it, to see what is left in it
rules() { # the rules from the container's addresses
	nsenter --net="$tmp/held-netns" ip -4 rule show | while read -r _ from a _; do
		case " $addrs " in *" $a "*) [ "$from" = from ] && echo "$from $a" ;; esac
	done
}
touch "$tmp/held-netns" && mount --bind "/proc/$pid/ns/net" "$tmp/held-netns" ||
	fail "cannot hold the container's network namespace"
before=$(rules | wc -l)
echo "# rules from the container's addresses before podman rm: $before"
# shellcheck disable=SC2086
in_ns podman $P rm -f -t 0 ibhook-c1 >/dev/null 2>"$tmp/err" || cat "$tmp/err" >&2
left=$(rules)
# shellcheck disable=SC2086
containers=$(in_ns podman $P ps -aq)
if [ "$before" -ge 2 ] && [ -n "$rec" ] && ! [ -e "$rec" ] && [ -z "$left" ] && [ -n "$sandbox" ] && ! [ -e "$sandbox" ] &&
	[ -z "$containers" ]; then
	echo "PASS: podman-rm"
else
	[ "$before" -ge 2 ] || echo "# before podman rm: $before rules from the container's addresses, not 2" >&2
	[ -n "$rec" ] && [ -e "$rec" ] && echo "# after podman rm: ib-hook's record $rec is still there" >&2
	[ -n "$left" ] && echo "# after podman rm: rules left in the container's namespace: $left" >&2
	[ -n "$sandbox" ] && [ -e "$sandbox" ] && echo "# after podman rm: $sandbox is still there" >&2
	[ -n "$containers" ] && echo "# after podman rm: containers left: $containers" >&2
	echo "FAIL: podman-rm"
	ok=0
fi
umount "$tmp/held-netns"
echo "# podman step: $(($(date +%s) - started)) s"
[ "$ok" = 1 ]
