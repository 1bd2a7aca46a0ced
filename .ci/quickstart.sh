#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: the README's two quick-start commands, verbatim, in a fresh Debian 12
# root made from a clean copy of this checkout (issue 5). Needs root; installs
# mmdebstrap when missing. Prints PASS:/FAIL: lines (quickstart-readme,
# quickstart-cmd1, quickstart-cmd2, quickstart-host-untouched) and keeps the
# transcript in $QUICKSTART_TRANSCRIPT (default /var/tmp/ib-hook-quickstart.txt).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" != 0 ]; then
	echo "quickstart: needs root" >&2
	echo "FAIL: quickstart-cmd1"
	echo "FAIL: quickstart-cmd2"
	exit 1
fi

# the whole test suite runs inside the root: allow it 25 minutes at most
timeout -k 30 1500 bash "$top/tests/quickstart/fresh-root.sh" "$top"
rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "FAIL: quickstart (ran longer than 25 minutes)"
fi
exit "$rc"
