#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: end-to-end test of the ib-hook package on a booted ifupdown host with
# the watcher (issue 13). Needs root. The root is cached under
# /var/cache/ib-hook-ci by tests/e2e/root.sh (under a minute cold); the test
# takes well under a minute warm.
#
#   .ci/e2e-ifupdown.sh [PATH-TO-DEB]
#
# Without an argument the .deb is built as .ci/e2e.sh builds it (.ci/lib.sh's
# build_deb: the release .deb, built in a Debian 11 root). The test prints its own
# "PASS: e2e-ifupdown: ..." / "FAIL: ..." lines.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/.ci/lib.sh"
step_begin e2e-ifupdown
[ "$(id -u)" = 0 ] || fail "e2e-ifupdown needs root (mmdebstrap, systemd-nspawn)"

install_missing mmdebstrap:mmdebstrap systemd-nspawn:systemd-container nsenter:util-linux || fail "missing host prerequisites"

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-e2e-ifupdown-build.XXXXXX) || fail "mktemp failed"
	deb=$(build_deb "$srcdir" "$tmp") || fail "could not build the .deb"
fi
[ -f "$deb" ] || fail "no .deb: $deb"

timeout -k 10 300 "$srcdir/tests/e2e/ifupdown.sh" "$deb"
case $? in
0) ;;
77) fail "skipped: a prerequisite is missing" ;;
*) echo "FAIL: e2e-ifupdown (exit status)"; exit 1 ;;
esac
