#!/bin/sh
# CI: end-to-end test of the ib-hook package with NetworkManager's own
# dispatcher (issue 12), in a booted bookworm container (01-ifupdown bridge
# and native entry) and a booted trixie container (native entry only). Needs
# root. Roots are cached under /var/cache/ib-hook-ci by tests/e2e/root.sh
# (about 1 min each when cold); each run takes under a minute when warm.
#
#   .ci/e2e-nm.sh [PATH-TO-DEB]
#
# Without an argument the .deb is .ci/lib.sh's build_deb (the release .deb,
# built in a Debian 11 root).
# Prints "PASS: e2e-nm-SUITE" / "FAIL: e2e-nm-SUITE" per suite.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/.ci/lib.sh"
step_begin e2e-nm-bookworm e2e-nm-trixie
[ "$(id -u)" = 0 ] || fail "e2e-nm needs root (mmdebstrap, systemd-nspawn)"

install_missing mmdebstrap:mmdebstrap systemd-nspawn:systemd-container nsenter:util-linux || fail "missing host prerequisites"

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-e2e-nm-build.XXXXXX) || fail "mktemp failed"
	deb=$(build_deb "$srcdir" "$tmp") || fail "could not build the .deb"
fi
[ -f "$deb" ] || fail "no .deb: $deb"

rc=0
for suite in bookworm trixie; do
	timeout -k 10 600 "$srcdir/tests/e2e/networkmanager.sh" "$suite" "$deb"
	case $? in
	0) echo "PASS: e2e-nm-$suite" ;;
	*) echo "FAIL: e2e-nm-$suite"; rc=1 ;;
	esac
done
exit $rc
