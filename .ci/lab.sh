#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: the recipes of doc/lab.md run for real (issue 24): the
# Ansible playbook, the clush and pdsh lines, the NHC check and the
# node_exporter textfile timer, and the fleet view's clush recipe and
# playbook (doc/fleet.md, issue 31) against three booted Debian 12 hosts reached
# over SSH (tests/lab/lab.sh). Needs root. The hosts' root is cached under
# /var/cache/ib-hook-ci by tests/e2e/root.sh (about 1.5 min cold); the test
# takes about 2 min warm.
#
#   .ci/lab.sh [PATH-TO-DEB]
#
# Without an argument the .deb is built as .ci/e2e.sh builds it. The control
# side's tools (ansible-core, clustershell, pdsh, curl) are installed when
# missing. The test prints its own "PASS: lab: ..." / "FAIL: ..." lines.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/.ci/lib.sh"
step_begin lab
[ "$(id -u)" = 0 ] || fail "lab needs root (mmdebstrap, systemd-nspawn)"

install_missing mmdebstrap:mmdebstrap systemd-nspawn:systemd-container nsenter:util-linux \
	ssh:openssh-client ansible-playbook:ansible-core clush:clustershell pdsh:pdsh \
	curl:curl jq:jq || fail "missing host prerequisites"

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-lab-build.XXXXXX) || fail "mktemp failed"
	deb=$(build_deb "$srcdir" "$tmp") || fail "could not build the .deb"
fi
[ -f "$deb" ] || fail "no .deb: $deb"

# the root (cold: mmdebstrap) is outside the test's own 300 s watchdog
timeout -k 10 600 "$srcdir/tests/lab/lab.sh" "$deb"
case $? in
0) ;;
77) fail "skipped: a prerequisite is missing" ;;
*) echo "FAIL: lab (exit status)"; exit 1 ;;
esac
