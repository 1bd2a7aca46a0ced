#!/bin/sh
# CI: end-to-end test of the ib-hook package on a booted systemd-networkd
# system (issue 8). Needs root.
#
#   .ci/e2e.sh [PATH-TO-DEB]
#
# Without an argument the .deb is built from a clean copy of the source tree
# (tracked and untracked, not ignored files) with
# `dpkg-buildpackage -us -uc -b` (DEB_BUILD_OPTIONS=nocheck: the unit and
# netns suites have their own CI jobs). Host prerequisites (mmdebstrap,
# systemd-container) are installed with apt-get when missing. Prints
# "PASS: e2e-networkd" or "FAIL: e2e-networkd" as its last line.

set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tmp=

fail() {
	echo "$*" >&2
	echo "FAIL: e2e-networkd"
	exit 1
}
cleanup() { [ -n "$tmp" ] && rm -rf --one-file-system "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || fail "e2e-networkd needs root (mmdebstrap, systemd-nspawn)"

apt_install() {
	apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 && return 0
	apt-get update >/dev/null 2>&1
	apt-get install -y --no-install-recommends "$@"
}

need=
command -v mmdebstrap >/dev/null 2>&1 || need="$need mmdebstrap"
command -v systemd-nspawn >/dev/null 2>&1 || need="$need systemd-container"
command -v nsenter >/dev/null 2>&1 || need="$need util-linux"
command -v ip >/dev/null 2>&1 || need="$need iproute2"
if [ -n "$need" ]; then
	echo "# installing host prerequisites:$need"
	# shellcheck disable=SC2086
	apt_install $need || fail "could not install$need"
fi

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-e2e-build.XXXXXX) || fail "mktemp failed"
	mkdir "$tmp/ib-hook"
	echo "# building the .deb from a clean copy of $srcdir in $tmp"
	if git -C "$srcdir" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$srcdir" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 cp --parents -P -t "$tmp/ib-hook" --) || fail "copying the source tree failed"
	else
		(cd "$srcdir" && tar --exclude=./.git --exclude='./build*' --exclude=./debian/.debhelper -cf - .) |
			(cd "$tmp/ib-hook" && tar -xf -) || fail "copying the source tree failed"
	fi
	if ! (cd "$tmp/ib-hook" && dpkg-checkbuilddeps -P nocheck >/dev/null 2>&1); then
		echo "# installing build dependencies"
		command -v dpkg-buildpackage >/dev/null 2>&1 || apt_install dpkg-dev build-essential >/dev/null
		(apt-get build-dep -y -P nocheck "$tmp/ib-hook" >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && apt-get build-dep -y -P nocheck "$tmp/ib-hook"; }) ||
			fail "could not install the build dependencies"
	fi
	(cd "$tmp/ib-hook" && DEB_BUILD_OPTIONS=nocheck timeout 1800 dpkg-buildpackage -us -uc -b -Pnocheck) \
		>"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log" >&2; fail "dpkg-buildpackage failed"; }
	deb=$(ls "$tmp"/ib-hook_*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || fail "dpkg-buildpackage made no ib-hook_*.deb"
fi
[ -f "$deb" ] || fail "no such .deb: $deb"
echo "# package: $deb"

timeout -k 10 660 "$srcdir/tests/e2e/networkd.sh" "$deb"
rc=$?
case $rc in
0) echo "PASS: e2e-networkd" ;;
77) echo "# the test was skipped: a prerequisite is missing even after installing it"
    echo "FAIL: e2e-networkd"; exit 1 ;;
124) echo "# the test ran longer than 11 minutes"
     echo "FAIL: e2e-networkd"; exit 1 ;;
*) echo "FAIL: e2e-networkd"; exit 1 ;;
esac
