#!/bin/sh
# CI: end-to-end test of the ib-hook package on a booted systemd-networkd
# system (issue 8), and on one whose ports are routed rails (issue 33:
# tests/e2e/rails.sh, its root cached by tests/e2e/root.sh). Needs root.
#
#   .ci/e2e.sh [PATH-TO-DEB]
#
# Without an argument the .deb is .ci/lib.sh's build_deb: the release .deb of
# a clean copy of the source tree, built in a Debian 11 root (cached per
# tree), or else built on this host with dpkg-buildpackage. Host
# prerequisites (mmdebstrap, systemd-container) are installed with apt-get
# when missing. Prints "PASS: NAME" or "FAIL: NAME" for e2e-networkd and
# e2e-rails.

set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/.ci/lib.sh"
step_begin e2e-networkd e2e-rails

[ "$(id -u)" = 0 ] || fail "e2e-networkd needs root (mmdebstrap, systemd-nspawn)"

install_missing mmdebstrap:mmdebstrap systemd-nspawn:systemd-container nsenter:util-linux ip:iproute2 ping:iputils-ping || fail "missing host prerequisites"

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-e2e-build.XXXXXX) || fail "mktemp failed"
	deb=$(build_deb "$srcdir" "$tmp") || fail "could not build the .deb"
fi
[ -f "$deb" ] || fail "no such .deb: $deb"
echo "# package: $deb"

# run NAME SECONDS SCRIPT: the test SCRIPT with the .deb, bounded; PASS/FAIL: NAME
rc=0
run() {
	timeout -k 10 "$2" "$srcdir/tests/e2e/$3" "$deb"
	case $? in
	0) echo "PASS: $1"; return ;;
	77) echo "# tests/e2e/$3 was skipped: a prerequisite is missing even after installing it" ;;
	124) echo "# tests/e2e/$3 ran longer than $2 s" ;;
	esac
	echo "FAIL: $1"
	rc=1
}
run e2e-networkd 660 networkd.sh
# routed rails on the same stack (issue 33), from the same cached root
run e2e-rails 360 rails.sh
exit $rc
