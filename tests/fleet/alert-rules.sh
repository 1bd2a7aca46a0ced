#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The alerting rules of the node_exporter metric
# (contrib/node-exporter/ib-hook.rules.yml) under promtool's rule tests
# (ib-hook.rules.test.yml): they fire on drift, on no verdict, on a stale
# file and on no file, and only then, on series of a healthy host too. In
# the fleet suite, the one CI runs where it installs what the quick start's
# roots lack: promtool (Debian's prometheus). Without it, skips and says so.
src=${IB_HOOK_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v promtool >/dev/null || {
	echo "SKIP: needs promtool to test the alerting rules (apt-get install prometheus)"
	exit 77
}
cd "$src/contrib/node-exporter" || exit 1
out=$(promtool test rules ib-hook.rules.test.yml 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/#   /'
if [ "$rc" = 0 ]; then
	echo "ok 1 - the alerting rules fire on drift, no verdict, a stale file, no file, and only then"
else
	echo "not ok 1 - the alerting rules fire on drift, no verdict, a stale file, no file, and only then"
fi
echo "1..1"
exit "$rc"
