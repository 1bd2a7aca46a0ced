#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# release-deb.sh OUTDIR [SRCDIR]: build the release .deb, the one package for
# every Debian from 10 and every Ubuntu from 18.04, in a Debian 11
# (bullseye) root: the oldest Debian the mirror has, so that the package
# depends on bullseye's libc6 and libnl symbols (libc6 >= 2.17 today), not
# on the build host's. The unit tests run in the build, as an unprivileged
# user. Prints the path of the .deb in OUTDIR.
#
# Needs root and mmdebstrap. The root, with the Build-Depends of
# debian/control installed, is cached as a tar under $IB_HOOK_CI_CACHE
# (/var/cache/ib-hook-ci) keyed by them; the mirror is the host's (read from
# its apt sources, never written down). Build log: OUTDIR/release-build.log.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

if [ $# -lt 1 ]; then
	echo "usage: release-deb.sh OUTDIR [SRCDIR]" >&2
	exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "release-deb.sh: needs root (mmdebstrap, chroot)" >&2
	exit 77
fi
if ! command -v mmdebstrap >/dev/null; then
	echo "release-deb.sh: mmdebstrap is missing" >&2
	exit 77
fi
mkdir -p "$1" || exit 1
out=$(cd "$1" && pwd)
src=$(cd "${2:-$here/../..}" && pwd)
suite=${IB_HOOK_RELEASE_SUITE:-bullseye}

tmp=$(mktemp -d /tmp/ib-hook-release.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

root=$tmp/root
deps=build-essential,fakeroot,passwd,$(build_depends "$src/debian/control")
echo "# a Debian $suite build root (cached): $deps" >&2
debian_root "$suite" "$deps" "$root" >&2 || { echo "release-deb.sh: no $suite root" >&2; exit 1; }
export_tree "$src" "$root/build/ib-hook" || exit 1

# As on a buildd: the Build-Depends are checked against the root, and the
# build (unit tests included) runs without root.
chroot "$root" sh -ec '
	useradd --create-home builder
	chown -R builder: /build
	cd /build/ib-hook
	dpkg-checkbuilddeps
	LC_ALL=C.UTF-8 runuser -u builder -- dpkg-buildpackage -us -uc -b
' </dev/null >"$out/release-build.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	tail -n 40 "$out/release-build.log" >&2
	echo "release-deb.sh: dpkg-buildpackage failed in $suite (exit $rc)" >&2
	exit 1
fi
deb=$(ls "$root"/build/ib-hook_*.deb | head -n 1)
cp "$deb" "$out/" || exit 1
echo "$out/${deb##*/}"
