#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CI: the DEP-8 tests of debian/tests/control run by autopkgtest against the
# package CI tests (.ci/lib.sh build_deb: the release .deb), in a Debian 12
# testbed of autopkgtest-virt-unshare: a root made by mmdebstrap, cached
# under $IB_HOOK_CI_CACHE. Prints "PASS:", "FAIL:" or "SKIP:" per test.
# Needs root with subordinate IDs (added here when missing).
#
#   .ci/autopkgtest.sh [PATH-TO-DEB]
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$top/.ci/lib.sh"

install_missing autopkgtest:autopkgtest mmdebstrap:mmdebstrap newuidmap:uidmap ||
	{ echo "FAIL: autopkgtest prerequisites"; exit 1; }
# unshare --map-auto of Debian 12's util-linux (2.38) maps the first range
# in /etc/subuid, whoever it belongs to: root's must come first
for f in /etc/subuid /etc/subgid; do
	[ "$(head -n 1 "$f" 2>/dev/null | cut -d: -f1)" = root ] && continue
	# the file may be missing, empty (a new machine: the group's last grep
	# then selects nothing and exits 1) or hold other users' ranges only;
	# grep's exit 1 is "no such line", not an error (2: unreadable)
	if ! touch "$f" || ! {
		if grep -q '^root:' "$f"; then grep '^root:' "$f"; else echo 'root:1000000:65536'; fi
		grep -v '^root:' "$f" || [ $? = 1 ]
	} >"$f.new" || ! cat "$f.new" >"$f"; then
		rm -f "$f.new"
		echo "FAIL: autopkgtest subordinate IDs ($f)"
		exit 1
	fi
	rm -f "$f.new"
done

tmp=$(mktemp -d /var/tmp/ib-hook-autopkgtest.XXXXXX)
trap 'rm -rf --one-file-system "$tmp"' EXIT
trap 'exit 130' INT TERM

deb=${1:-}
if [ -z "$deb" ]; then
	deb=$(build_deb "$top" "$tmp") || { echo "FAIL: autopkgtest (no .deb)"; exit 1; }
fi

tar=$(autopkgtest_testbed "$top" "$deb") || { echo "FAIL: autopkgtest testbed"; exit 1; }
start=$(date +%s)
export_tree "$top" "$tmp/src"
timeout 1500 autopkgtest "$deb" "$tmp/src" -o "$tmp/out" -- unshare --release bookworm --tarball "$tar" \
	</dev/null >"$tmp/autopkgtest.log" 2>&1
rc=$?
echo "# autopkgtest exit $rc, $(($(date +%s) - start)) s"
# the summary: "NAME PASS|FAIL|SKIP|FLAKY reason"
sed -n '/@@@@@@@@@@@@@@@@@@@@ summary$/,$p' "$tmp/autopkgtest.log" | sed 1d >"$tmp/summary"
if ! [ -s "$tmp/summary" ] || [ "$rc" -ge 8 ]; then
	tail -n 60 "$tmp/autopkgtest.log" | sed 's/^/    /'
	echo "FAIL: autopkgtest (exit $rc, no test ran)"
	exit 1
fi
while read -r name result reason; do
	case $result in
	PASS) echo "PASS: autopkgtest $name" ;;
	SKIP) echo "SKIP: autopkgtest $name ($reason)" ;;
	*)
		grep -E '^(not ok|FAIL|SKIP)' "$tmp/autopkgtest.log" | sed 's/^/    /'
		echo "FAIL: autopkgtest $name ($result${reason:+ $reason})"
		;;
	esac
done <"$tmp/summary"
[ "$rc" = 0 ] || [ "$rc" = 2 ]
