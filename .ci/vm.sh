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
# Without an argument the .deb is .ci/lib.sh's build_deb (the release .deb,
# built in a Debian 11 root).
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

. "$srcdir/.ci/lib.sh"
install_missing qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils mmdebstrap:mmdebstrap mke2fs:e2fsprogs || fail "missing host prerequisites"

deb=${1:-}
if [ -z "$deb" ]; then
	tmp=$(mktemp -d /var/tmp/ib-hook-vm-build.XXXXXX) || fail "mktemp failed"
	deb=$(build_deb "$srcdir" "$tmp") || fail "could not build the .deb"
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
