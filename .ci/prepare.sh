#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CI: build ahead the caches of the package, e2e and VM steps while .ci/run's
# first steps (the test suite, sanitizers, fuzzers: compiler-bound) run, as
# this work is bound by downloads and dpkg: the release .deb (in its Debian 11
# root), the roots of .ci/pkg.sh, .ci/release.sh and .ci/autopkgtest.sh, the
# networkd, netplan, NetworkManager, ifupdown and lab roots (tests/e2e/root.sh) and the VM images of the releases .ci/vm.sh boots
# (tests/vm/image.sh), one after the other, in the order the steps need them.
# Every producer holds a lock while it builds, so a step that needs a cache
# being built here waits for it instead of building it twice. Prints only
# comment lines: what could not be built here is built, and reported, by the
# step that needs it.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$top/.ci/lib.sh"

install_missing mmdebstrap:mmdebstrap dpkg-deb:dpkg 2>&1 | sed 's/^#* */# prepare: /'
tmp=$(mktemp -d /var/tmp/ib-hook-prepare.XXXXXX)
trap 'rm -rf --one-file-system "$tmp"' EXIT
trap 'exit 130' INT TERM

# ahead NAME COMMAND...: COMMAND, its output kept out of the CI log, one line
# (the producers set globals of their own: these names are prepare's)
ahead() {
	local prep_what=$1 prep_start prep_rc
	shift
	prep_start=$(date +%s)
	"$@" >"$tmp/out" 2>&1
	prep_rc=$?
	echo "# prepare: $prep_what: $([ "$prep_rc" = 0 ] && echo ready || echo "failed (exit $prep_rc)"), $(($(date +%s) - prep_start)) s"
}

started=$(date +%s)
ahead "release .deb" release_deb "$top" "$tmp"
deb=$(ls "$tmp"/ib-hook_*.deb 2>/dev/null | head -n 1)
if [ -n "$deb" ]; then
	deps=$(deb_depends "$deb")
	ahead "Debian 12 root of the install test" debian_root_tar bookworm "$deps"
	ahead "Debian 13 build root of lintian" debian_root_tar trixie "$(lintian_root_deps "$top/debian/control")"
	for suite in bullseye bookworm trixie; do
		ahead "$suite root of the release test" debian_root_tar "$suite" "$(release_root_deps "$deb")"
	done
	ahead "autopkgtest testbed" autopkgtest_testbed "$top" "$deb"
fi
ahead "networkd e2e root" "$top/tests/e2e/root.sh" networkd bookworm
# derived from the networkd root: netplan.io and udev installed into it
ahead "netplan e2e root" "$top/tests/e2e/root.sh" netplan bookworm
for suite in bookworm trixie; do
	ahead "NetworkManager e2e root ($suite)" "$top/tests/e2e/root.sh" nm "$suite"
done
ahead "ifupdown e2e root" "$top/tests/e2e/root.sh" ifupdown bookworm
ahead "lab root" "$top/tests/e2e/root.sh" lab bookworm
for release in $(vm_releases "$top"); do
	ahead "VM image $release" "$top/tests/vm/image.sh" "$release"
done
echo "# prepare: done in $(($(date +%s) - started)) s"
