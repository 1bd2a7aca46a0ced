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

. "$srcdir/.ci/lib.sh"
install_missing mmdebstrap:mmdebstrap systemd-nspawn:systemd-container nsenter:util-linux || fail_all "missing host prerequisites"

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-e2e-nm-build.XXXXXX) || fail_all "mktemp failed"
	deb=$(build_deb "$srcdir" "$tmp") || fail_all "could not build the .deb"
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
