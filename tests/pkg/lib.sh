# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Shared by the package tests (bash); sourced, not run.
#
# The mirror is never written down: it is read from the host's apt
# configuration at run time, so the tests use whatever mirror (or proxy)
# this machine is set up for.

fails=0

ok() {
	echo "ok - $*"
}

not_ok() {
	echo "not ok - $*"
	fails=$((fails + 1))
}

# check DESCRIPTION COMMAND...: run COMMAND, report it as one TAP-like line.
check() {
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
	fi
}

# host_mirror_uris: print "MAIN_URI SECURITY_URI" (the latter may be empty),
# read from the host's deb822 sources or, failing that, one-line sources.list.
host_mirror_uris() {
	local main='' sec='' m s f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		# one stanza per paragraph: remember URIs, decide once Suites is known
		eval "$(awk '
			function flush() {
				if (uris != "" && suites != "" && types ~ /(^| )deb( |$)/) {
					split(uris, u, " ")
					if (suites ~ /-security/) { if (sec == "") sec = u[1] }
					else if (main == "") main = u[1]
				}
				uris = ""; suites = ""; types = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^#/ { next }
			/^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
			/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
			/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
			/^Enabled:[ \t]*no/ { uris = "" }
			END { flush(); printf "m=%s\ns=%s\n", main, sec }
		' "$f")"
		[ -n "$main" ] || main=$m
		[ -n "$sec" ] || sec=$s
	done
	if [ -z "$main" ]; then
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -r "$f" ] || continue
			eval "$(awk '
				$1 == "deb" {
					uri = $2
					if (uri ~ /^\[/) uri = $3
					if ($0 ~ /-security/) { if (sec == "") sec = uri }
					else if (main == "") main = uri
				}
				END { printf "m=%s\ns=%s\n", main, sec }
			' "$f")"
			[ -n "$main" ] || main=$m
			[ -n "$sec" ] || sec=$s
		done
	fi
	[ -n "$main" ] || return 1
	echo "$main $sec"
}

# mirror_lines SUITE: print the one-line sources.list entries for SUITE
# (main, -updates, -security) on the host's mirrors.
mirror_lines() {
	local suite=$1 uris main sec
	uris=$(host_mirror_uris) || return 1
	read -r main sec <<<"$uris"
	echo "deb $main $suite main"
	echo "deb $main $suite-updates main"
	if [ -n "$sec" ]; then
		echo "deb $sec $suite-security main"
	fi
}

# export_tree SRC DEST: copy the source tree SRC to the new directory DEST as
# a clean clone would have it: the files git knows (committed or not yet),
# without ignored files, build directories or debhelper's leftovers.
export_tree() {
	local src=$1 dest=$2
	mkdir -p "$dest"
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$src" && git ls-files -z --cached --others --exclude-standard) |
		(cd "$src" && grep -zEv '^(build[^/]*|obj-[^/]*)/|^debian/(\.debhelper|ib-hook|tmp)/|^debian/(files|debhelper-build-stamp|.*\.substvars|.*\.debhelper\.log)$' |
			xargs -0r sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' sh |
			tar --null -T - -cf -) |
		tar -C "$dest" -xf -
	else
		tar -C "$src" --exclude=.git --exclude='./build*' --exclude='./obj-*' \
			--exclude=./debian/.debhelper --exclude=./debian/ib-hook \
			--exclude=./debian/files --exclude='./debian/*.substvars' \
			--exclude=./debian/debhelper-build-stamp -cf - . |
		tar -C "$dest" -xf -
	fi
}

# deb_depends DEB: the names of the packages DEB depends on (first
# alternative, no versions), comma separated, for mmdebstrap --include.
deb_depends() {
	dpkg-deb -f "$1" Depends Pre-Depends |
	sed 's/^[A-Za-z-]*: //' | tr ',' '\n' |
	sed -E 's/\|.*//; s/\(.*\)//; s/:any//; s/[[:space:]]//g' |
	grep -v '^$' | sort -u | paste -sd, -
}

# debian_root_tar SUITE DEPS: the path of a tar of a minimal SUITE root
# (mmdebstrap --variant=apt) with the packages DEPS (comma separated),
# cached under $IB_HOOK_CI_CACHE (/var/cache/ib-hook-ci) keyed by suite and
# packages; built once, by one process at a time (.ci/prepare.sh builds
# ahead in the background).
debian_root_tar() {
	local suite=$1 deps=$2 cache key tar
	cache=${IB_HOOK_CI_CACHE:-/var/cache/ib-hook-ci}
	key=$(printf '%s %s\n' "$suite" "$deps" | sha256sum | cut -c1-16)
	tar=$cache/pkg-root-$suite-$key.tar
	if ! [ -s "$tar" ]; then
		mkdir -p "$cache" || return 1
		(
			flock 9
			[ -s "$tar" ] && exit 0
			mirror_lines "$suite" >"$tar.list" || exit 1
			mmdebstrap --variant=apt --format=tar --include="$deps" "$suite" "$tar.tmp" "$tar.list" \
				</dev/null >"$tar.log" 2>&1 || { tail -n 20 "$tar.log"; rm -f "$tar.tmp"; exit 1; }
			mv "$tar.tmp" "$tar"
		) 9>"$tar.lock" >&2 || return 1
	fi
	echo "$tar"
}

# debian_root SUITE DEPS DEST: that root (debian_root_tar) unpacked in the
# new directory DEST
debian_root() {
	local tar
	tar=$(debian_root_tar "$1" "$2") || return 1
	mkdir -p "$3" && tar -C "$3" -xf "$tar"
}

# build_depends CONTROL: the Build-Depends of the source package in CONTROL,
# test tools (<!nocheck>) included, as names (first alternative, no
# versions; debhelper for debhelper-compat), comma separated, for
# mmdebstrap --include.
build_depends() {
	sed -n '/^Build-Depends:/,/^[^ ]/{ /^Build-Depends:/{ s/^Build-Depends://; p; }; /^ /p; }' "$1" |
	tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/<.*>//; s/[[:space:]]//g; s/^debhelper-compat$/debhelper/' |
	grep -v '^$' | sort -u | paste -sd, -
}

# release_root_deps DEB: the packages of the roots .ci/release.sh installs
# DEB in and runs the netns suite in
release_root_deps() {
	echo "$(deb_depends "$1"),iproute2,iputils-ping,jq,python3,procps,util-linux,mount,bash,systemd"
}

# lintian_root_deps CONTROL: the packages of the Debian 13 root .ci/pkg.sh
# builds the package in and runs that release's lintian in
lintian_root_deps() {
	echo "build-essential,fakeroot,lintian,$(build_depends "$1")"
}
