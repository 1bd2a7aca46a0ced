#!/bin/sh
# CI: a real RDMA CM connection that fails before the ib-hook package and
# connects after it (issue 14): tests/vm/rping.sh, two qemu VMs (TCG) running
# Debian 12's kernel with soft-RoCE, joined by a bridge in a network namespace
# of their own. Needs root. The VM image is cached under
# /var/cache/ib-hook-ci by tests/vm/image.sh (about 1 min when cold); a warm
# run takes about 3 min, and the step is bounded to 15 min.
#
#   .ci/vm.sh [PATH-TO-DEB]
#
# Without an argument the .deb is built from a clean copy of the source tree
# (tracked and untracked, not ignored files) with dpkg-buildpackage.
# Prints a "PASS: vm-CHECK" / "FAIL: vm-CHECK" line per check.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
started=$(date +%s)
tmp=
cleanup() { [ -n "$tmp" ] && rm -rf --one-file-system "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() {
	echo "$*" >&2
	echo "FAIL: vm"
	exit 1
}
[ "$(id -u)" = 0 ] || fail "vm needs root (network namespace, taps, mmdebstrap)"

apt_install() {
	apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 && return 0
	apt-get update >/dev/null 2>&1
	apt-get install -y --no-install-recommends "$@"
}
need=
command -v qemu-system-x86_64 >/dev/null 2>&1 || need="$need qemu-system-x86"
command -v qemu-img >/dev/null 2>&1 || need="$need qemu-utils"
command -v mmdebstrap >/dev/null 2>&1 || need="$need mmdebstrap"
command -v mke2fs >/dev/null 2>&1 || need="$need e2fsprogs"
if [ -n "$need" ]; then
	# shellcheck disable=SC2086
	apt_install $need >/dev/null || fail "could not install$need"
fi

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-vm-build.XXXXXX) || fail "mktemp failed"
	mkdir "$tmp/ib-hook"
	(cd "$srcdir" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -P -t "$tmp/ib-hook" --) || fail "copying the source tree failed"
	if ! (cd "$tmp/ib-hook" && dpkg-checkbuilddeps -P nocheck >/dev/null 2>&1); then
		command -v dpkg-buildpackage >/dev/null 2>&1 || apt_install dpkg-dev build-essential >/dev/null
		apt-get build-dep -y -P nocheck "$tmp/ib-hook" >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && apt-get build-dep -y -P nocheck "$tmp/ib-hook" >/dev/null; } ||
			fail "could not install the build dependencies"
	fi
	(cd "$tmp/ib-hook" && DEB_BUILD_OPTIONS=nocheck timeout 600 dpkg-buildpackage -us -uc -b -Pnocheck) \
		>"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log" >&2; fail "dpkg-buildpackage failed"; }
	deb=$(ls "$tmp"/ib-hook_*.deb 2>/dev/null | head -n 1)
fi
[ -f "$deb" ] || fail "no .deb: $deb"

# 15 min for the whole step: what building took comes off the test's share
left=$((900 - ($(date +%s) - started) - 20))
VM_TIME_LIMIT=$((left - 10)) timeout -k 10 "$left" "$srcdir/tests/vm/rping.sh" "$deb"
rc=$?
case $rc in
0) ;;
77) echo "# skipped: qemu cannot run here even after installing it"
    echo "FAIL: vm"; exit 1 ;;
124|137) echo "FAIL: vm (over the step's 15 minutes)"; exit 1 ;;
esac
echo "# vm step: $(($(date +%s) - started)) s"
exit $rc
