# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Sourced by the CI steps that test the built package (.ci/e2e.sh,
# .ci/e2e-nm.sh, .ci/e2e-ifupdown.sh, .ci/vm.sh). Messages go to stderr; a
# function that fails returns non-zero and the step says FAIL its own way.

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

# build_deb SRCDIR DIR: build the .deb from a clean copy of SRCDIR (tracked and
# untracked, not ignored files) in DIR with dpkg-buildpackage -us -uc -b
# -Pnocheck (the unit and netns suites have their own step); prints its path
build_deb() {
	mkdir "$2/ib-hook" || return 1
	echo "# building the .deb from a clean copy of $1 in $2" >&2
	if git -C "$1" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$1" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 cp --parents -P -t "$2/ib-hook" --)
	else
		(cd "$1" && tar --exclude=./.git --exclude='./build*' --exclude=./debian/.debhelper -cf - .) |
			(cd "$2/ib-hook" && tar -xf -)
	fi || { echo "copying the source tree failed" >&2; return 1; }
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
