#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CI: the Debian package builds reproducibly. reprotest builds a clean copy
# of the tree twice on this host (the "null" testbed) and compares the
# .debs, varying what changes between real builders and costs seconds: the
# environment, the build path, the time (faketime), the time zone, the
# umask, HOME, PATH's order and the kernel's uname. Prints one PASS:/FAIL:
# line. Needs root (apt) when reprotest or the Build-Depends are missing.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$top/.ci/lib.sh"

install_missing reprotest:reprotest faketime:faketime dpkg-buildpackage:dpkg-dev ||
	{ echo "FAIL: reprotest prerequisites"; exit 1; }
tmp=$(mktemp -d /var/tmp/ib-hook-reprotest.XXXXXX)
trap 'rm -rf --one-file-system "$tmp"' EXIT
trap 'exit 130' INT TERM

export_tree "$top" "$tmp/ib-hook"
if ! (cd "$tmp/ib-hook" && dpkg-checkbuilddeps -P nocheck) >/dev/null 2>&1; then
	apt-get build-dep -y -P nocheck "$tmp/ib-hook" >/dev/null 2>&1 ||
		{ echo "FAIL: reprotest (Build-Depends)"; exit 1; }
fi
variations=-all,+environment,+build_path,+time,+timezone,+umask,+home,+exec_path,+kernel
start=$(date +%s)
if (cd "$tmp" && timeout 1200 reprotest --variations="$variations" --store-dir="$tmp/out" \
	--build-command 'DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b -Pnocheck' ib-hook '../*.deb' -- null) \
	</dev/null >"$tmp/reprotest.log" 2>&1 && grep -q '^No differences in' "$tmp/reprotest.log"; then
	echo "PASS: reprotest ($variations: $(grep -cE '^[0-9a-f]{64}  .*\.deb$' "$tmp/reprotest.log") .debs identical, $(($(date +%s) - start)) s)"
else
	tail -n 60 "$tmp/reprotest.log" | sed 's/^/    /'
	echo "FAIL: reprotest ($variations)"
	exit 1
fi
