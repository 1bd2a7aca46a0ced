#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CI for the release .deb (issue 21): build it in a Debian 11 root
# (tests/pkg/release-deb.sh), check that its Depends are satisfied by the
# oldest releases it is for (Ubuntu 18.04, Debian 10), then install it in
# Debian 11, 12 and 13 roots, check its unit with each release's
# systemd-analyze verify and run the netns suite there against the installed
# /usr/sbin/ib-hook with each release's own iproute2 (a script that skips is
# reported as "SKIP: release-netns SUITE SCRIPT", not counted as passed).
#
#   .ci/release.sh [PATH-TO-DEB]
#
# Roots are cached under $IB_HOOK_CI_CACHE (/var/cache/ib-hook-ci); the
# built .deb is left there too (release-TREEHASH.deb), where the other
# package steps (.ci/lib.sh build_deb) take it. Prints "PASS: name" or
# "FAIL: name" per check. Needs root.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$top/.ci/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "release.sh: needs root" >&2
	exit 1
fi
install_missing mmdebstrap:mmdebstrap ip:iproute2 unshare:util-linux dpkg-deb:dpkg ||
	{ echo "FAIL: release prerequisites"; exit 1; }

tmp=$(mktemp -d /var/tmp/ib-hook-release-ci.XXXXXX)
trap 'rm -rf --one-file-system "$tmp"' EXIT
trap 'exit 130' INT TERM
failed=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }
log() { sed 's/^/    /' "$1"; }

# 1. the build, in a Debian 11 root
start=$(date +%s)
if [ $# -ge 1 ]; then
	deb=$(realpath "$1")
	echo "# package given: $deb"
elif deb=$(release_deb "$top" "$tmp"); then
	ok_tests=$(sed -n 's/^Ok:[[:space:]]*\([0-9]*\).*/\1/p' "$tmp/release-build.log" 2>/dev/null | tail -n 1)
	pass "release-deb (built in Debian 11, unit tests: ${ok_tests:-cached build} ok, $(($(date +%s) - start)) s)"
else
	fail "release-deb (built in Debian 11)"
	exit 1
fi

# 2. Depends: every versioned dependency satisfied by the oldest releases.
# Their versions (Ubuntu 18.04 bionic-updates, Debian 10 buster):
oldest() {
	case $1 in
	ubuntu-18.04) echo "libc6 2.27-3ubuntu1 libnl-3-200 3.2.29-0ubuntu3 libsystemd0 237-3ubuntu10" ;;
	debian-10) echo "libc6 2.28-10 libnl-3-200 3.4.0-1 libsystemd0 241-7~deb10u8" ;;
	esac
}
depends=$(dpkg-deb -f "$deb" Depends Pre-Depends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' | sed 's/^ *//; /^$/d')
for rel in ubuntu-18.04 debian-10; do
	bad=
	while read -r dep; do
		name=${dep%% *}
		# shellcheck disable=SC2046 # the table is words
		have=$(set -- $(oldest "$rel"); while [ $# -ge 2 ]; do
			[ "$1" = "$name" ] && { echo "$2"; break; }; shift 2; done)
		if [ -z "$have" ]; then
			bad="$bad $name(unknown to this table)"
			continue
		fi
		case $dep in
		*"("*")"*)
			op=$(echo "$dep" | sed -E 's/.*\(([<>=]+) *([^)]*)\).*/\1/')
			need=$(echo "$dep" | sed -E 's/.*\(([<>=]+) *([^)]*)\).*/\2/')
			case $op in
			">=") cmp=ge ;; "<=") cmp=le ;; "=") cmp=eq ;; ">>") cmp=gt ;; "<<") cmp=lt ;;
			*) cmp=bad ;;
			esac
			dpkg --compare-versions "$have" "$cmp" "$need" 2>/dev/null || bad="$bad $dep(has $have)"
			;;
		esac
	done <<<"$depends"
	if [ -z "$bad" ]; then
		pass "release-depends $rel ($(echo "$depends" | paste -sd, - | sed 's/,/, /g'))"
	else
		fail "release-depends $rel:$bad"
	fi
done

# 3. installed in Debian 11, 12 and 13: dpkg -i, then the netns suite with
# the installed binary and the release's iproute2. The tests run in the
# root's own mount namespace (its /run, /tmp and lock file), each network
# change in namespaces the tests create.
tests=$(sed -n "/suite : 'netns'/q; s/^[[:space:]]*'\([a-z-]*\)',$/\1/p" "$top/tests/netns/meson.build")
export_tree "$top" "$tmp/src" || { fail "copy the source tree"; exit 1; }
for suite in bullseye bookworm trixie; do
	start=$(date +%s)
	root=$tmp/root-$suite
	deps=$(release_root_deps "$deb")
	if ! debian_root "$suite" "$deps" "$root" >"$tmp/root.log" 2>&1; then
		log "$tmp/root.log"
		fail "release-install $suite (no root)"
		continue
	fi
	cp "$deb" "$root/tmp/ib-hook.deb"
	cp -a "$tmp/src" "$root/src"
	if ! unshare --net chroot "$root" dpkg -i /tmp/ib-hook.deb </dev/null >"$tmp/dpkg.log" 2>&1; then
		log "$tmp/dpkg.log"
		fail "release-install $suite (dpkg -i)"
		continue
	fi
	# shellcheck disable=SC2016 # dpkg-query's format
	iproute=$(chroot "$root" dpkg-query -W -f='${Version}' iproute2)
	# the watcher's unit as this release's systemd reads it: no warning at all
	# shellcheck disable=SC2016 # dpkg-query's format
	sd=$(chroot "$root" dpkg-query -W -f='${Version}' systemd)
	unit=$(chroot "$root" dpkg -L ib-hook | grep '/ib-hook\.service$')
	# shellcheck disable=SC2016 # a script for sh
	if out=$(unshare --net --mount --propagation private sh -c '
			mount -t proc proc "$1/proc" && mount --rbind /sys "$1/sys" &&
			exec chroot "$1" systemd-analyze verify --man=no "$2"' sh "$root" "$unit" 2>&1 </dev/null) &&
	   [ -z "$out" ]; then
		pass "release-unit $suite (systemd-analyze verify $unit, systemd $sd)"
	else
		printf '%s\n' "$out" | sed 's/^/    /'
		fail "release-unit $suite (systemd-analyze verify, systemd $sd)"
	fi
	# shellcheck disable=SC2016,SC2086 # a script for sh; the test names are words
	unshare --mount --propagation private sh -c '
		root=$1; shift
		# a mount point, as ip netns exec makes / a slave mount
		mount --bind "$root" "$root" &&
		mount -t proc proc "$root/proc" &&
		mount --rbind /sys "$root/sys" &&
		mount --rbind /dev "$root/dev" &&
		mount -t tmpfs tmpfs "$root/run" &&
		mount -t tmpfs tmpfs "$root/tmp" || exit 1
		for t; do
			echo "## $t"
			chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
				IB_HOOK=/usr/sbin/ib-hook IB_HOOK_SYSCONFDIR=/etc IB_HOOK_SOURCE_ROOT=/src \
				timeout -k 5 120 bash "/src/tests/netns/$t.sh" </dev/null
			echo "## $t exit $?"
		done
	' sh "$root" $tests >"$tmp/netns-$suite.log" 2>&1
	n_ok=$(grep -c '^## .* exit 0$' "$tmp/netns-$suite.log")
	n_skip=$(grep -c '^## .* exit 77$' "$tmp/netns-$suite.log")
	bad=$(sed -n 's/^## \(.*\) exit \([0-9]*\)$/\1 \2/p' "$tmp/netns-$suite.log" |
		awk '$2 != 0 && $2 != 77 { print $1 }' | paste -sd' ' -)
	n_all=$(echo "$tests" | wc -w)
	# a skipped script is no pass: each says SKIP, and the PASS line counts only the passes
	sed -n 's/^## \(.*\) exit 77$/SKIP: release-netns '"$suite"' \1/p' "$tmp/netns-$suite.log"
	if [ -z "$bad" ] && [ "$n_ok" -gt 0 ] && [ $((n_ok + n_skip)) -eq "$n_all" ]; then
		pass "release-netns $suite (iproute2 $iproute: $n_ok of $n_all scripts passed, $n_skip skipped, $(($(date +%s) - start)) s)"
	else
		grep -E '^(## |FAIL|not ok|SKIP)' "$tmp/netns-$suite.log" | sed 's/^/    /'
		fail "release-netns $suite (iproute2 $iproute:${bad:+ failed: $bad})"
	fi
	rm -rf --one-file-system "$root"
done

[ "$failed" -eq 0 ]
