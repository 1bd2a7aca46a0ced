#!/bin/sh
# CI: end-to-end test of the ib-hook package on a booted systemd-networkd
# system (issue 8). Needs root.
#
#   .ci/e2e.sh [PATH-TO-DEB]
#
# Without an argument the .deb is .ci/lib.sh's build_deb: the release .deb of
# a clean copy of the source tree, built in a Debian 11 root (cached per
# tree), or else built on this host with dpkg-buildpackage. Host
# prerequisites (mmdebstrap, systemd-container) are installed with apt-get
# when missing. Prints
# "PASS: e2e-networkd" or "FAIL: e2e-networkd" as its last line.

set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/.ci/lib.sh"
step_begin e2e-networkd

[ "$(id -u)" = 0 ] || fail "e2e-networkd needs root (mmdebstrap, systemd-nspawn)"

install_missing mmdebstrap:mmdebstrap systemd-nspawn:systemd-container nsenter:util-linux ip:iproute2 || fail "missing host prerequisites"

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-e2e-build.XXXXXX) || fail "mktemp failed"
	deb=$(build_deb "$srcdir" "$tmp") || fail "could not build the .deb"
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
