#!/bin/bash
# CI: a real RDMA CM connection that fails before the ib-hook package and
# connects after it (issues 14 and 21): tests/vm/rping.sh, two qemu VMs (TCG)
# with soft-RoCE joined by a bridge in a network namespace of their own, once
# per release and network stack, one pair after the other (one release per CI
# run, in turn by the commit: .ci/lib.sh's vm_releases):
#
#   Debian 11 (kernel 5.10) with ifupdown
#   Debian 12 (kernel 6.1)  with systemd-networkd
#   Debian 13 (kernel 6.12) with NetworkManager
#
# The bookworm pair's extra cells (the fleet view, the reply's route, routed
# rails) run in turn too, "fleet reply" on one bookworm landing and "rails"
# on the next (.ci/lib.sh's vm_cells, printed; IB_HOOK_CI_VM_CELLS="fleet
# reply rails" runs all three). The same .deb in all three. Needs root. The VM images are cached under
# /var/cache/ib-hook-ci by tests/vm/image.sh (about 1-2 min each when cold,
# built ahead by .ci/prepare.sh). A pair took 3-4 min on the first CI
# host, the bookworm pair 1.5-2 min more (the fleet view and its routed
# rails cell, issues 31 and 33); on the later 2-core hosts, idle, 278, 501
# and 417 s (issue 41: the bookworm pair ran into its limit), before the
# VMs booted a third faster (tests/vm/image.sh, rping.sh's -cpu). Each pair
# is bounded to 9 min, the bookworm pair to 12, the step to 30.
#
#   .ci/vm.sh [PATH-TO-DEB]
#
# Without an argument the .deb is .ci/lib.sh's build_deb (the release .deb,
# built in a Debian 11 root). A .deb given that Debian 11's libc6 (2.31)
# cannot satisfy, as one built on Debian 12, is replaced by the release .deb
# (release_deb).
# Prints a "PASS: vm-RELEASE-CHECK" / "FAIL: vm-RELEASE-CHECK" line per check.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
started=$(date +%s)
STEP_LIMIT=1800
. "$srcdir/.ci/lib.sh"
step_begin vm
[ "$(id -u)" = 0 ] || fail "vm needs root (network namespace, taps, mmdebstrap)"

install_missing qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils mmdebstrap:mmdebstrap mke2fs:e2fsprogs || fail "missing host prerequisites"
tmp=$(mktemp -d /var/tmp/ib-hook-vm-build.XXXXXX) || fail "mktemp failed"

# fits_bullseye DEB: Debian 11's libc6 2.31 satisfies DEB's libc6 dependency
fits_bullseye() {
	need=$(dpkg-deb -f "$1" Depends Pre-Depends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' |
		sed -n 's/^[[:space:]]*libc6 (>= *\([^)]*\)).*/\1/p' | head -n 1)
	[ -z "$need" ] || dpkg --compare-versions 2.31 ge "$need"
}

deb=${1:-}
if [ -z "$deb" ]; then
	deb=$(build_deb "$srcdir" "$tmp") || fail "could not build the .deb"
fi
[ -f "$deb" ] || fail "no .deb: $deb"
if ! fits_bullseye "$deb"; then
	echo "# $deb needs a newer libc6 than Debian 11's: taking the release .deb instead"
	deb=$(release_deb "$srcdir" "$tmp") || fail "could not build the release .deb"
fi
echo "# the .deb for all three releases: $(basename "$deb") ($(dpkg-deb -f "$deb" Depends))"

# The pair's network namespace, named here: rping.sh takes it and its VMs
# away on every exit it sees (its EXIT trap, SIGINT, SIGTERM), but not when
# timeout's SIGKILL (-k 30) or a kill of the whole run ends it: then this
# step does, after the pair and on its own way out
pair_ns=
drop_pair_ns() {
	[ -n "$pair_ns" ] && [ -e "/run/netns/$pair_ns" ] || return 0
	echo "# rping.sh left its namespace $pair_ns (killed?): its VMs stopped, the namespace deleted"
	ip netns pids "$pair_ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
	ip netns del "$pair_ns" 2>/dev/null
}
pair=
trap 'drop_pair_ns; [ -z "$tmp" ] || rm -rf --one-file-system "$tmp"' EXIT
# a signal stops the pair first (timeout passes it on: rping.sh stops its VMs)
trap '[ -z "$pair" ] || { kill "$pair"; wait "$pair"; }; exit 1' INT TERM

rc=0
releases=$(vm_releases "$srcdir")
echo "# vm: the pair of $releases this run (IB_HOOK_CI_VM_RELEASES=\"bullseye bookworm trixie\" boots all three)"
for release in $releases; do
	# the image first (cached; about 2 min when not), outside the pair's time
	t0=$(date +%s)
	img=$(timeout -k 10 600 "$srcdir/tests/vm/image.sh" "$release") &&
		echo "# vm $release image: $img ($(($(date +%s) - t0)) s)"
	t0=$(date +%s)
	left=$((STEP_LIMIT - (t0 - started) - 20))
	limit=540
	[ "$release" = bookworm ] && [ -n "$(vm_cells "$srcdir" bookworm)" ] && limit=720
	[ "$left" -lt "$limit" ] && limit=$left
	if [ "$limit" -lt 120 ]; then
		echo "FAIL: vm-$release (no time left in the step's $((STEP_LIMIT / 60)) minutes)"
		rc=1
		continue
	fi
	# the test's own time limit comes first: it then stops its VMs and
	# deletes its namespace itself
	cells=$(vm_cells "$srcdir" "$release")
	echo "# vm $release: the pair's own checks, and the cells: ${cells:-none} (IB_HOOK_CI_VM_CELLS=\"fleet reply rails\" runs all)"
	# the pair's output to a file, followed until the pair ends: not a pipe
	# to tee, which whatever a killed pair left running could hold open
	pair_ns=ibhvm-ci$$-$release
	VM_NETNS=$pair_ns VM_CELLS=$cells VM_TIME_LIMIT=$((limit - 40)) timeout -k 30 "$limit" \
		"$srcdir/tests/vm/rping.sh" "$release" "$deb" >"$tmp/pair-$release.log" 2>&1 </dev/null &
	pair=$!
	tail -n +1 -f --pid="$pair" "$tmp/pair-$release.log" &
	follow=$!
	wait "$pair"
	r=$?
	wait "$follow"
	pair=
	drop_pair_ns
	case $r in
	0) ;;
	77) echo "# skipped: qemu cannot run here even after installing it"
	    echo "FAIL: vm-$release"; rc=1 ;;
	124) echo "FAIL: vm-$release (over its $limit s)"; rc=1 ;;
	137) echo "FAIL: vm-$release (killed: SIGKILL, timeout's 30 s after its $limit s or another's)"; rc=1 ;;
	*)
		# rping.sh names the failed check; should it not, this says so
		grep -q '^FAIL: ' "$tmp/pair-$release.log" ||
			echo "FAIL: vm-$release (exit $r without naming a failed check)"
		rc=1
		;;
	esac
	echo "# vm $release: $(($(date +%s) - t0)) s"
done
echo "# vm step: $(($(date +%s) - started)) s"
exit $rc
