#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: end-to-end test of the ib-hook package on a booted ifupdown host with
# the watcher (issue 13). Needs root. The root is cached under
# /var/cache/ib-hook-ci by tests/e2e/root.sh (under a minute cold); the test
# takes well under a minute warm.
#
#   .ci/e2e-ifupdown.sh [PATH-TO-DEB]
#
# Without an argument the .deb is built as .ci/e2e.sh builds it: from a clean
# copy of the source tree (tracked and untracked, not ignored files) with
# dpkg-buildpackage -us -uc -b -Pnocheck. The test prints its own
# "PASS: e2e-ifupdown: ..." / "FAIL: ..." lines.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tmp=
cleanup() { [ -n "$tmp" ] && rm -rf --one-file-system "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() {
	echo "$*" >&2
	echo "FAIL: e2e-ifupdown"
	exit 1
}
[ "$(id -u)" = 0 ] || fail "e2e-ifupdown needs root (mmdebstrap, systemd-nspawn)"

apt_install() {
	apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 && return 0
	apt-get update >/dev/null 2>&1
	apt-get install -y --no-install-recommends "$@"
}
need=
command -v mmdebstrap >/dev/null 2>&1 || need="$need mmdebstrap"
command -v systemd-nspawn >/dev/null 2>&1 || need="$need systemd-container"
command -v nsenter >/dev/null 2>&1 || need="$need util-linux"
if [ -n "$need" ]; then
	# shellcheck disable=SC2086
	apt_install $need || fail "could not install$need"
fi

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-e2e-ifupdown-build.XXXXXX) || fail "mktemp failed"
	mkdir "$tmp/ib-hook"
	(cd "$srcdir" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -P -t "$tmp/ib-hook" --) || fail "copying the source tree failed"
	if ! (cd "$tmp/ib-hook" && dpkg-checkbuilddeps -P nocheck >/dev/null 2>&1); then
		command -v dpkg-buildpackage >/dev/null 2>&1 || apt_install dpkg-dev build-essential >/dev/null
		apt-get build-dep -y -P nocheck "$tmp/ib-hook" >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && apt-get build-dep -y -P nocheck "$tmp/ib-hook" >/dev/null; } ||
			fail "could not install the build dependencies"
	fi
	(cd "$tmp/ib-hook" && DEB_BUILD_OPTIONS=nocheck timeout 1800 dpkg-buildpackage -us -uc -b -Pnocheck) \
		>"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log" >&2; fail "dpkg-buildpackage failed"; }
	deb=$(ls "$tmp"/ib-hook_*.deb 2>/dev/null | head -n 1)
fi
[ -f "$deb" ] || fail "no .deb: $deb"

timeout -k 10 300 "$srcdir/tests/e2e/ifupdown.sh" "$deb"
case $? in
0) ;;
77) fail "skipped: a prerequisite is missing" ;;
*) echo "FAIL: e2e-ifupdown (exit status)"; exit 1 ;;
esac
