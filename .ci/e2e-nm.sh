#!/bin/sh
# CI: end-to-end test of the ib-hook package with NetworkManager's own
# dispatcher (issue 12), in a booted bookworm container (01-ifupdown bridge
# and native entry) and a booted trixie container (native entry only). Needs
# root. Roots are cached under /var/cache/ib-hook-ci by tests/e2e/nm-root.sh
# (about 1 min each when cold); each run takes under a minute when warm.
#
#   .ci/e2e-nm.sh [PATH-TO-DEB]
#
# Without an argument the .deb is built from a clean copy of the source tree
# (tracked and untracked, not ignored files) with dpkg-buildpackage.
# Prints "PASS: e2e-nm-SUITE" / "FAIL: e2e-nm-SUITE" per suite.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tmp=
cleanup() { [ -n "$tmp" ] && rm -rf --one-file-system "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
fail_all() {
	echo "$*" >&2
	echo "FAIL: e2e-nm-bookworm"
	echo "FAIL: e2e-nm-trixie"
	exit 1
}
[ "$(id -u)" = 0 ] || fail_all "e2e-nm needs root (mmdebstrap, systemd-nspawn)"

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
	apt_install $need || fail_all "could not install$need"
fi

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-e2e-nm-build.XXXXXX) || fail_all "mktemp failed"
	mkdir "$tmp/ib-hook"
	(cd "$srcdir" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -P -t "$tmp/ib-hook" --) || fail_all "copying the source tree failed"
	if ! (cd "$tmp/ib-hook" && dpkg-checkbuilddeps -P nocheck >/dev/null 2>&1); then
		command -v dpkg-buildpackage >/dev/null 2>&1 || apt_install dpkg-dev build-essential >/dev/null
		apt-get build-dep -y -P nocheck "$tmp/ib-hook" >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && apt-get build-dep -y -P nocheck "$tmp/ib-hook" >/dev/null; } ||
			fail_all "could not install the build dependencies"
	fi
	(cd "$tmp/ib-hook" && DEB_BUILD_OPTIONS=nocheck timeout 1800 dpkg-buildpackage -us -uc -b -Pnocheck) \
		>"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log" >&2; fail_all "dpkg-buildpackage failed"; }
	deb=$(ls "$tmp"/ib-hook_*.deb 2>/dev/null | head -n 1)
fi
[ -f "$deb" ] || fail_all "no .deb: $deb"

rc=0
for suite in bookworm trixie; do
	timeout -k 10 600 "$srcdir/tests/e2e/networkmanager.sh" "$suite" "$deb"
	case $? in
	0) echo "PASS: e2e-nm-$suite" ;;
	*) echo "FAIL: e2e-nm-$suite"; rc=1 ;;
	esac
done
exit $rc
