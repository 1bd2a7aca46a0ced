#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# root.sh KIND SUITE: a minbase SUITE root with systemd and the network
# stack KIND as a tar, cached under /var/cache/ib-hook-ci keyed by a hash of
# its inputs (bump RECIPE when the mmdebstrap call changes). Prints the path
# of the tar.
#
#   ifupdown   ifupdown (networking.service), no systemd-networkd enabled
#   networkd   systemd-networkd and networkd-dispatcher
#   netplan    the networkd root with netplan.io and udev installed into it
#              (`netplan apply` runs udevadm, which netplan.io does not
#              depend on; every real host has it, minbase has not): derived
#              from the cached networkd tar, which it builds when missing, by
#              apt-get in a chroot (20-50 s on a loaded 2-core host)
#   nm         NetworkManager
#   lab        ifupdown, with what the lab's tools need on a host
#              (tests/lab/lab.sh): openssh-server, sudo, python3 and python3-apt
#              for Ansible, jq, prometheus-node-exporter
#
# The mirror is the first Debian one apt is configured with (never written
# into the repository); trixie is fetched from the same mirror under its own
# suite name. Exit 77 when there is none.
set -eu
KIND=$1
SUITE=$2
BASE=systemd,systemd-sysv,dbus,iproute2,libnl-3-200,libsystemd0,procps,python3-minimal
case $KIND in
ifupdown) PKGS=$BASE,ifupdown ;;
networkd) PKGS=$BASE,networkd-dispatcher ;;
netplan) PKGS=netplan.io,udev ;;
lab) PKGS=$BASE,ifupdown,openssh-server,sudo,python3,python3-apt,jq,prometheus-node-exporter ;;
nm) PKGS=systemd,systemd-sysv,dbus,network-manager,iproute2,libnl-3-200,libsystemd0,procps ;;
*) echo "root.sh: unknown kind '$KIND'" >&2; exit 2 ;;
esac
MIRROR=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
	awk '$2 !~ /-security$|-updates$/ && $1 ~ /\/debian\/?$/ { print $1; exit }')
[ -n "$MIRROR" ] || { echo "no Debian mirror in apt's sources" >&2; exit 77; }
RECIPE=1
CACHE=${IB_HOOK_CI_CACHE:-/var/cache/ib-hook-ci}
FROM=
# a derived root's key holds its base's name, which holds the base's key
[ "$KIND" != netplan ] || FROM=$("$0" networkd "$SUITE") || exit
key=$(echo "$RECIPE $KIND $SUITE $MIRROR $PKGS${FROM:+ $(basename "$FROM")}" | sha256sum | cut -c1-16)
tar=$CACHE/$KIND-root-$SUITE-$key.tar
mkdir -p "$CACHE"
# one builder at a time (.ci/prepare.sh builds ahead in the background)
exec 9>"$tar.lock"
flock 9
if [ ! -s "$tar" ]; then
	tmp=$(mktemp --suffix=.tar "$CACHE/.$KIND-root-$SUITE.XXXXXX")
	trap 'rm -f "$tmp"' EXIT
	if [ -n "$FROM" ]; then
		dir=$(mktemp -d "$CACHE/.$KIND-root-$SUITE.XXXXXX")
		trap 'rm -f "$tmp"; rm -rf --one-file-system "$dir"' EXIT
		tar -C "$dir" -xf "$FROM"
		# the base's own sources.list (the mirror above); its lists and
		# downloads are not kept. The packages are downloaded first, and
		# their maintainer scripts run in a network namespace of their own
		unshare --mount --propagation private -- sh -c '
			mount -t proc proc "$1/proc" && mount -t sysfs sysfs "$1/sys" &&
			mount -t tmpfs tmpfs "$1/run" && mount -t tmpfs tmpfs "$1/tmp" &&
			chroot "$1" apt-get update -qq &&
			chroot "$1" timeout -k 10 600 apt-get install -y -qq --no-install-recommends \
				--download-only $2 >/dev/null &&
			unshare --net -- chroot "$1" env DEBIAN_FRONTEND=noninteractive \
				apt-get install -y -qq --no-install-recommends $2 >/dev/null &&
			chroot "$1" apt-get clean' sh "$dir" "$(echo "$PKGS" | tr , ' ')" >&2
		rm -rf "$dir"/var/lib/apt/lists/*
		[ -d "$dir/var/lib/apt/lists" ] && mkdir -p "$dir/var/lib/apt/lists/partial"
		tar -C "$dir" --numeric-owner -cf "$tmp" .
		rm -rf --one-file-system "$dir"
	else
		timeout -k 10 900 mmdebstrap --quiet --variant=minbase --include="$PKGS" \
			--customize-hook='rm -f "$1/etc/machine-id"' \
			"$SUITE" "$tmp" "deb $MIRROR $SUITE main" >&2
	fi
	mv "$tmp" "$tar"
	trap - EXIT
	# keep one root per kind and suite
	for old in "$CACHE/$KIND-root-$SUITE"-*.tar; do
		[ "$old" = "$tar" ] || rm -f "$old"
	done
fi
echo "$tar"
