#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nm-root.sh SUITE OUT-TAR: a minbase SUITE root with systemd and
# NetworkManager as a tar, cached under /var/cache/ib-hook-ci keyed by a hash
# of its inputs (suite, mirror, packages, RECIPE: bump it when the mmdebstrap
# call changes). The mirror is the
# first Debian one apt is configured with (never written into the repository);
# trixie is fetched from the same mirror under its own suite name.
# Prints the path of the cached tar.
set -eu
SUITE=$1
PKGS=systemd,systemd-sysv,dbus,network-manager,iproute2,libnl-3-200,libsystemd0,procps
MIRROR=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
	awk '$2 !~ /-security$|-updates$/ && $1 ~ /\/debian\/?$/ { print $1; exit }')
[ -n "$MIRROR" ] || { echo "no Debian mirror in apt's sources" >&2; exit 77; }
RECIPE=1
CACHE=${IB_HOOK_CI_CACHE:-/var/cache/ib-hook-ci}
key=$(echo "$RECIPE $SUITE $MIRROR $PKGS" | sha256sum | cut -c1-16)
tar=$CACHE/nm-root-$SUITE-$key.tar
if [ ! -s "$tar" ]; then
	mkdir -p "$CACHE"
	tmp=$(mktemp --suffix=.tar "$CACHE/.nm-root-$SUITE.XXXXXX")
	trap 'rm -f "$tmp"' EXIT
	timeout -k 10 900 mmdebstrap --quiet --variant=minbase --include="$PKGS" \
		--customize-hook='rm -f "$1/etc/machine-id"' \
		"$SUITE" "$tmp" "deb $MIRROR $SUITE main" >&2
	mv "$tmp" "$tar"
	trap - EXIT
	# keep one root per suite
	for old in "$CACHE"/nm-root-"$SUITE"-*.tar; do
		[ "$old" = "$tar" ] || rm -f "$old"
	done
fi
echo "$tar"
