#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CI for the Debian package: build from a clean copy of the tree, lintian,
# install/remove/purge in a Debian 12 root (the release .deb, built in a
# Debian 11 root, has its own step: .ci/release.sh).
# Prints "PASS: step" or "FAIL: step" per step; exits non-zero if any failed.
# Needs root; installs the tools it lacks from the Debian mirror.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/pkg/lib.sh
. "$top/tests/pkg/lib.sh"
# release_deb (its fail and pass are replaced by this step's below)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$top/.ci/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "pkg.sh: needs root" >&2
	exit 1
fi

tmp=$(mktemp -d /tmp/ib-hook-pkg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
failed=0

pass() {
	echo "PASS: $1"
}

fail() {
	echo "FAIL: $1"
	failed=$((failed + 1))
}

step_log() {
	sed 's/^/    /' "$1"
}

export DEBIAN_FRONTEND=noninteractive
tools="dpkg-dev debhelper lintian mmdebstrap iproute2 util-linux man-db groff-base"
missing=
for p in $tools; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done

src=$tmp/src/ib-hook
export_tree "$top" "$src"

# Build-Depends as declared (with the nocheck test tools), so the unit
# tests run in the build.
if [ -n "$missing" ] || ! (cd "$src" && dpkg-checkbuilddeps) >/dev/null 2>&1; then
	echo "# installing:$missing and the Build-Depends"
	# shellcheck disable=SC2086 # a list of package names
	if ! { apt-get -q update && apt-get -q -y install --no-install-recommends $tools &&
	       apt-get -q -y build-dep "$src"; } >"$tmp/apt.log" 2>&1; then
		step_log "$tmp/apt.log"
		fail "install build tools"
	fi
fi

# 0. the man page: no groff warnings, and a NAME line that lexgrog (whatis)
# can read
if out=$(cd "$top" && LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z man/ib-hook.8 2>&1 >/dev/null) &&
   [ -z "$out" ] && lexgrog "$top/man/ib-hook.8" >/dev/null 2>&1; then
	pass "man page (man --warnings, lexgrog)"
else
	printf '%s\n' "$out" | sed 's/^/    /'
	fail "man page (man --warnings, lexgrog)"
fi

# 1. build from a clean copy of the tree
if (cd "$src" && dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1 &&
   grep -q '^Ok:[[:space:]]*[1-9]' "$tmp/build.log"; then
	pass "dpkg-buildpackage -us -uc -b (unit tests: $(sed -n 's/^Ok:[[:space:]]*\([0-9]*\).*/\1/p' "$tmp/build.log" | tail -n 1) ok)"
else
	tail -n 60 "$tmp/build.log" | sed 's/^/    /'
	fail "dpkg-buildpackage -us -uc -b"
fi
deb=$(ls "$tmp"/src/ib-hook_*_*.deb 2>/dev/null | head -n 1)
changes=$(ls "$tmp"/src/ib-hook_*_*.changes 2>/dev/null | head -n 1)

# The source package is 3.0 (quilt): its upstream tarball is the checkout
# without debian/, as the README makes it (git archive HEAD ':!debian'), here
# from a clean copy of the tree, which may hold changes not yet committed.
# orig_tarball DIR: DIR/ib-hook_UPSTREAM.orig.tar.gz and the tree unpacked
# beside it as DIR/ib-hook-UPSTREAM
upstream=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version | sed 's/-[^-]*$//')
orig_tarball() {
	export_tree "$top" "$1/ib-hook-$upstream" &&
		tar -C "$1" --sort=name --owner=0 --group=0 --exclude="ib-hook-$upstream/debian" \
			-czf "$1/ib-hook_$upstream.orig.tar.gz" "ib-hook-$upstream"
}

# 2. lintian: the binary package (from the .changes) and the source package
if [ -n "$changes" ]; then
	rm -rf "$tmp/dsc" && mkdir "$tmp/dsc"
	orig_tarball "$tmp/dsc"
	if (cd "$tmp/dsc" && dpkg-source -b "ib-hook-$upstream") >"$tmp/dsc.log" 2>&1 &&
	   lintian --pedantic --fail-on error,warning,pedantic --info "$changes" "$tmp"/dsc/ib-hook_*.dsc \
		>"$tmp/lintian.log" 2>&1 && ! grep -qE '^[EWP]: ' "$tmp/lintian.log"; then
		pass "lintian --pedantic, Debian 12 (no errors, warnings or pedantic tags)"
	else
		step_log "$tmp/dsc.log"
		step_log "$tmp/lintian.log"
		fail "lintian"
	fi
else
	fail "lintian (no package was built)"
fi

# 2a. ready for the archive: a source package of an upstream tarball, which
# says where (not) to watch for upstream releases and what is known of its
# upstream (the source package just built, as dpkg-source unpacks it)
if [ -s "$(ls "$tmp"/dsc/ib-hook_*.dsc 2>/dev/null | head -n 1)" ] &&
	rm -rf "$tmp/unpacked" && dpkg-source -x "$tmp"/dsc/ib-hook_*.dsc "$tmp/unpacked" >/dev/null 2>&1 &&
	[ "$(cat "$tmp/unpacked/debian/source/format")" = "3.0 (quilt)" ] &&
	ls "$tmp"/dsc/ib-hook_*.orig.tar.* >/dev/null 2>&1 &&
	[ -s "$tmp/unpacked/debian/watch" ] &&
	grep -q '^Name: ib-hook$' "$tmp/unpacked/debian/upstream/metadata"; then
	pass "source package 3.0 (quilt) with an upstream tarball, debian/watch, debian/upstream/metadata"
else
	fail "source package 3.0 (quilt) with an upstream tarball, debian/watch, debian/upstream/metadata"
fi

# 2b. Debian 13: the package built there (its debhelper puts the unit under
# /usr/lib), lintian --pedantic of Debian 13, and no dpkg warning on purge
start=$(date +%s)
root13=$tmp/root-trixie
if debian_root trixie "$(lintian_root_deps "$top/debian/control")" "$root13" \
	>"$tmp/root13.log" 2>&1; then
	export_tree "$top" "$root13/build/ib-hook"
	mkdir -p "$root13/build/dsc" && orig_tarball "$root13/build/dsc"
	# shellcheck disable=SC2016 # a script for the root's sh
	if unshare --net chroot "$root13" sh -c '
		cd /build/ib-hook && LC_ALL=C.UTF-8 DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b -Pnocheck \
			>/build/build.log 2>&1 || { tail -n 30 /build/build.log; exit 1; }
		cd /build/dsc && dpkg-source -b "ib-hook-$1" >/dev/null || exit 1
		lintian --pedantic --fail-on error,warning,pedantic /build/ib-hook_*.changes /build/dsc/*.dsc 2>&1 |
			grep -v "root privileges" && exit 1
		dpkg-deb -c /build/ib-hook_*_*.deb | grep -q " ./usr/lib/systemd/system/ib-hook.service$" ||
			{ echo "the unit is not under /usr/lib/systemd/system"; exit 1; }
		{ dpkg -i /build/ib-hook_*_*.deb && dpkg -P ib-hook; } </dev/null >/build/dpkg.log 2>&1 || { cat /build/dpkg.log; exit 1; }
		! grep -i "warning" /build/dpkg.log' sh "$upstream" >"$tmp/lintian13.log" 2>&1; then
		pass "lintian --pedantic, Debian 13 (unit in /usr/lib/systemd/system, dpkg -i and -P without warnings, $(($(date +%s) - start)) s)"
	else
		step_log "$tmp/lintian13.log"
		fail "lintian --pedantic, Debian 13"
	fi
	# The release .deb (built in Debian 11 for every release from Debian 10
	# and Ubuntu 18.04) keeps the unit under /lib: Ubuntu 18.04's
	# deb-systemd-helper (init-system-helpers 1.51) looks for units in /etc
	# and /lib only, so under /usr/lib the unit would never be enabled there
	# (doc/platforms.md). Debian 13's lintian calls each of the four paths an
	# aliased-location error; anything else it says is a failure.
	mkdir -p "$root13/build/release"
	if rdeb=$(release_deb "$top" "$root13/build/release" 2>"$tmp/release.log"); then
		unshare --net chroot "$root13" lintian --pedantic "/build/release/${rdeb##*/}" 2>&1 |
			grep -v "root privileges" >"$tmp/lintian13r.log"
		if [ "$(cat "$tmp/lintian13r.log")" = "E: ib-hook: aliased-location [lib/]
E: ib-hook: aliased-location [lib/systemd/]
E: ib-hook: aliased-location [lib/systemd/system/]
E: ib-hook: aliased-location [lib/systemd/system/ib-hook.service]" ]; then
			pass "lintian --pedantic, Debian 13, release .deb (only the unit's four aliased-location errors, kept for Ubuntu 18.04)"
		else
			step_log "$tmp/lintian13r.log"
			fail "lintian --pedantic, Debian 13, release .deb"
		fi
	else
		step_log "$tmp/release.log"
		fail "lintian --pedantic, Debian 13, release .deb (no release .deb)"
	fi
	rm -rf --one-file-system "$root13"
else
	step_log "$tmp/root13.log"
	fail "lintian --pedantic, Debian 13 (no root)"
fi

# 3. install, remove and purge in a Debian 12 root
if [ -n "$deb" ] && "$top/tests/pkg/install-test.sh" "$deb" >"$tmp/install.log" 2>&1; then
	step_log "$tmp/install.log"
	pass "install-test (Debian 12: dpkg -i, -r, -P)"
else
	[ -s "$tmp/install.log" ] && step_log "$tmp/install.log"
	fail "install-test (Debian 12: dpkg -i, -r, -P)"
fi

# 3b. a configuration written before dpkg -i, and the upgrade from 0.1.0
if [ -n "$deb" ] && "$top/tests/pkg/upgrade-test.sh" "$deb" >"$tmp/upgrade.log" 2>&1; then
	step_log "$tmp/upgrade.log"
	pass "upgrade-test (pre-seeded config and drop-in, upgrade from 0.1.0, no terminal)"
else
	[ -s "$tmp/upgrade.log" ] && step_log "$tmp/upgrade.log"
	fail "upgrade-test (pre-seeded config and drop-in, upgrade from 0.1.0, no terminal)"
fi

[ "$failed" -eq 0 ]
