# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Sourced by the CI steps that test the built package (.ci/e2e.sh, .ci/lab.sh,
# .ci/e2e-nm.sh, .ci/e2e-ifupdown.sh, .ci/e2e-netplan.sh, .ci/vm.sh). Messages
# go to stderr; a function that fails returns non-zero and the step says FAIL
# its own way.

# step_begin NAME...: the step's work directory $tmp (set it later; removed on
# every exit), and fail MESSAGE, which says FAIL for each NAME and exits 1
step_begin() {
	step_names="$*"
	tmp=
	trap 'if [ -n "$tmp" ]; then rm -rf --one-file-system "$tmp"; fi' EXIT
	trap 'exit 1' INT TERM
}

fail() {
	echo "$*" >&2
	for name in $step_names; do
		echo "FAIL: $name"
	done
	exit 1
}

apt_install() {
	apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 && return 0
	apt-get update >/dev/null 2>&1
	apt-get install -y --no-install-recommends "$@" >/dev/null
}

# install_missing COMMAND:PACKAGE...: install the packages whose command is missing
install_missing() {
	need=
	for pair in "$@"; do
		command -v "${pair%%:*}" >/dev/null 2>&1 || need="$need ${pair#*:}"
	done
	[ -n "$need" ] || return 0
	echo "# installing host prerequisites:$need" >&2
	# shellcheck disable=SC2086
	apt_install $need || { echo "could not install$need" >&2; return 1; }
}

# copy_tree SRCDIR DEST: a clean copy of SRCDIR (tracked and untracked, not
# ignored files) in the new directory DEST
copy_tree() {
	mkdir "$2" || return 1
	if git -C "$1" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$1" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 cp --parents -P -t "$2" --)
	else
		(cd "$1" && tar --exclude=./.git --exclude='./build*' --exclude=./debian/.debhelper -cf - .) |
			(cd "$2" && tar -xf -)
	fi || { echo "copying the source tree failed" >&2; return 1; }
}

# release_deb SRCDIR DIR: the release .deb of SRCDIR, built in a Debian 11
# root by tests/pkg/release-deb.sh (its log: DIR/release-build.log), or the
# one built before from the same tree, cached as
# $IB_HOOK_CI_CACHE/release-TREEHASH.deb; copied to DIR, prints its path
release_deb() {
	cache=${IB_HOOK_CI_CACHE:-/var/cache/ib-hook-ci}
	copy_tree "$1" "$2/release-src" || return 1
	hash=$(cd "$2/release-src" && find . \( -type f -o -type l \) -print | LC_ALL=C sort |
		tar --no-recursion -T - --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - |
		sha256sum | cut -c1-16)
	mkdir -p "$cache" || return 1
	if ! [ -s "$cache/release-$hash.deb" ]; then
		# one builder at a time (.ci/prepare.sh builds ahead in the background)
		(
			flock 9
			[ -s "$cache/release-$hash.deb" ] && exit 0
			echo "# building the release .deb in a Debian 11 root" >&2
			built=$("$1/tests/pkg/release-deb.sh" "$2" "$2/release-src") || exit 1
			cp "$built" "$cache/release-$hash.deb.tmp" &&
				mv "$cache/release-$hash.deb.tmp" "$cache/release-$hash.deb" || exit 1
			# keep the newest few
			ls -t "$cache"/release-*.deb | tail -n +4 | xargs -r rm -f
		) 9>"$cache/release.lock" || return 1
	else
		echo "# the release .deb of this tree, built before: $cache/release-$hash.deb" >&2
	fi
	name=$(dpkg-deb -f "$cache/release-$hash.deb" Package Version Architecture |
		sed 's/^[A-Za-z]*: //' | paste -sd_ -)
	cp "$cache/release-$hash.deb" "$2/$name.deb" && echo "$2/$name.deb"
}

# build_deb SRCDIR DIR: the .deb the package steps test, in DIR; prints its
# path. The release .deb (release_deb) where mmdebstrap can build it;
# otherwise built on this host from a clean copy of SRCDIR with
# dpkg-buildpackage -us -uc -b -Pnocheck (the unit and netns suites have
# their own step)
build_deb() {
	if command -v mmdebstrap >/dev/null 2>&1; then
		release_deb "$1" "$2" && return 0
		echo "# no release .deb: building on this host instead" >&2
	fi
	copy_tree "$1" "$2/ib-hook" || return 1
	echo "# building the .deb from a clean copy of $1 in $2" >&2
	if ! (cd "$2/ib-hook" && dpkg-checkbuilddeps -P nocheck >/dev/null 2>&1); then
		echo "# installing build dependencies" >&2
		command -v dpkg-buildpackage >/dev/null 2>&1 || apt_install dpkg-dev build-essential
		apt-get build-dep -y -P nocheck "$2/ib-hook" >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && apt-get build-dep -y -P nocheck "$2/ib-hook" >/dev/null; } ||
			{ echo "could not install the build dependencies" >&2; return 1; }
	fi
	(cd "$2/ib-hook" && DEB_BUILD_OPTIONS=nocheck timeout 1800 dpkg-buildpackage -us -uc -b -Pnocheck) \
		>"$2/build.log" 2>&1 || { tail -n 40 "$2/build.log" >&2; echo "dpkg-buildpackage failed" >&2; return 1; }
	ls "$2"/ib-hook_*.deb 2>/dev/null | head -n 1 | grep . ||
		{ echo "dpkg-buildpackage made no ib-hook_*.deb" >&2; return 1; }
}

# autopkgtest_testbed SRCDIR DEB: the tar of the Debian 12 testbed of
# .ci/autopkgtest.sh: what autopkgtest itself needs in it (apt-utils,
# dpkg-dev, apt's lists), DEB's dependencies and the tests' Depends of
# SRCDIR's debian/tests/control, so that a run installs nothing but ib-hook
autopkgtest_testbed() {
	# shellcheck disable=SC2016 # sed's $
	debian_root_tar bookworm "apt-utils,dpkg-dev,$(deb_depends "$2"),$(sed -n 's/^Depends://p' \
		"$1/debian/tests/control" | tr ',' '\n' | sed 's/[[:space:]]//g; /^ib-hook$/d; /^@$/d; /^$/d' |
		sort -u | paste -sd, -)"
}

# vm_releases TOP: the releases whose soft-RoCE VM pair this CI run boots:
# $IB_HOOK_CI_VM_RELEASES if set (e.g. "bullseye bookworm trixie"), else one
# of the three, taken in turn by the commit's position in the history, so
# that three landings in a row prove every release's pair. A pair is 4-10
# minutes of TCG on a 2-core host; all three no longer fit CI's 45-minute
# cold budget beside the quick start's two replays (issue 41)
vm_releases() {
	local all="bullseye bookworm trixie" n
	if [ -n "${IB_HOOK_CI_VM_RELEASES:-}" ]; then
		echo "$IB_HOOK_CI_VM_RELEASES"
		return
	fi
	n=$(git -C "$1" rev-list --count HEAD 2>/dev/null) || n=1
	set -- $all
	shift $((n % 3))
	echo "$1"
}

# quickstart_full TOP: the quick start's replay whose second command runs
# every suite in this CI run, "bookworm-sudo" or "trixie-root", in turn by
# the commit's position in the history (.ci/quickstart.sh; the other runs
# the suites unit and netns); $IB_HOOK_CI_QUICKSTART_FULL if set
quickstart_full() {
	local n
	if [ -n "${IB_HOOK_CI_QUICKSTART_FULL:-}" ]; then
		echo "$IB_HOOK_CI_QUICKSTART_FULL"
		return
	fi
	n=$(git -C "$1" rev-list --count HEAD 2>/dev/null) || n=1
	if [ $((n % 2)) = 0 ]; then echo bookworm-sudo; else echo trixie-root; fi
}

# vm_cells TOP RELEASE: the bookworm pair's extra cells this CI run boots
# beside the pair's own checks (tests/vm/rping.sh's VM_CELLS): "fleet
# reply" and "rails" in turn, every other bookworm landing each, so that a
# landing's VM step stays near the bullseye pair's time (issue 49: the
# three cells together made the bookworm landing the longest with the
# trixie one); $IB_HOOK_CI_VM_CELLS if set ("fleet reply rails": all)
vm_cells() {
	local n
	if [ -n "${IB_HOOK_CI_VM_CELLS+set}" ]; then
		echo "$IB_HOOK_CI_VM_CELLS"
		return
	fi
	[ "$2" = bookworm ] || return 0
	n=$(git -C "$1" rev-list --count HEAD 2>/dev/null) || n=1
	if [ $((n / 3 % 2)) = 0 ]; then echo "fleet reply"; else echo rails; fi
}

# e2e_cell SRCDIR NAME SCRIPT SECONDS [DEB]: the step of a booted-host test,
# SRCDIR/tests/e2e/SCRIPT, that prints its own "PASS: NAME: ..." lines: root
# and the host's prerequisites, the .deb (DEB, else build_deb's), the test
# bounded by SECONDS; its status is the step's (a skip is a FAIL: in CI every
# prerequisite is installed)
e2e_cell() {
	step_begin "$2"
	[ "$(id -u)" = 0 ] || fail "$2 needs root (mmdebstrap, systemd-nspawn)"
	install_missing mmdebstrap:mmdebstrap systemd-nspawn:systemd-container nsenter:util-linux ||
		fail "missing host prerequisites"
	deb=${5:-}
	if [ -z "$deb" ]; then
		tmp=$(mktemp -d "/var/tmp/ib-hook-$2-build.XXXXXX") || fail "mktemp failed"
		deb=$(build_deb "$1" "$tmp") || fail "could not build the .deb"
	fi
	[ -f "$deb" ] || fail "no .deb: $deb"
	timeout -k 10 "$4" "$1/tests/e2e/$3" "$deb"
	case $? in
	0) return 0 ;;
	77) fail "skipped: a prerequisite is missing" ;;
	esac
	echo "FAIL: $2 (exit status)"
	return 1
}
