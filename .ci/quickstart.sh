#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: the README's quick start, verbatim, in fresh Debian 12 and Debian 13
# roots, in both its forms: as a user with sudo and as root without sudo
# (tests/quickstart/fresh-root.sh; issues 5 and 30). After each, the user
# runs the unit suite in the same tree, as the README promises.
#
# Four combinations, not four full replays: each release and each form runs
# its second command (`tests/run`, every suite, some five minutes) in full
# once, Debian 12 with sudo and Debian 13 as root. The other two, Debian 12
# as root and Debian 13 with sudo, replay the first command in full
# (build-dep, build, demo: what a release and a form change) and the second
# with the suites unit and netns only: what differs between the forms is who
# runs tests/run (sudo's reset environment or root's login shell) and the
# build directory given back to the tree's owner, which these suites show
# (unit: the build; netns: root's privileges in namespaces); the other suites
# ran on that release in the other form.
#
# The partial replays run after the full ones and install the packages the
# full replay of their release downloaded (tests/quickstart/fresh-root.sh's
# QUICKSTART_APT_ARCHIVES, a directory of this run only).
#
# The full Debian 12 replay with sudo is the README's test command, `sudo
# tests/run`, on this host's release and kernel: .ci/run counts its tests
# (one PASS:/FAIL:/SKIP: line each) and runs on the host only what a fresh
# root lacks the tools for (the fleet suite's browser).
#
#   .ci/quickstart.sh [COMBINATION...]   (default: all four, e.g. bookworm-sudo)
#
# Needs root; installs mmdebstrap when missing. Transcripts in
# /var/tmp/ib-hook-quickstart-RELEASE-FORM.txt.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" != 0 ]; then
	echo "quickstart: needs root" >&2
	echo "FAIL: quickstart"
	exit 1
fi

# RELEASE-FORM:SUITES (no suites: every suite)
combos=(
	"bookworm-sudo:"
	"trixie-root:"
	"bookworm-root:unit netns"
	"trixie-sudo:unit netns"
)
if [ $# -gt 0 ]; then
	picked=()
	for want; do
		for c in "${combos[@]}"; do
			[ "${c%%:*}" = "$want" ] && picked+=("$c")
		done
	done
	combos=("${picked[@]}")
fi

archives=$(mktemp -d /var/tmp/ib-hook-quickstart-apt.XXXXXX) || exit 1
trap 'rm -rf "$archives"' EXIT
trap 'exit 130' INT TERM

rc=0
for combo in "${combos[@]}"; do
	what=${combo%%:*}
	suites=${combo#*:}
	echo "# quick start: Debian ${what%-*}, ${what#*-} form${suites:+, second command with the suites $suites}"
	start=$(date +%s)
	# a full replay runs every suite: 25 minutes at most
	QUICKSTART_APT_ARCHIVES=$archives/${what%-*} \
		timeout -k 30 1500 bash "$top/tests/quickstart/fresh-root.sh" -r "${what%-*}" -f "${what#*-}" \
		-s "$suites" "$top"
	r=$?
	if [ "$r" = 124 ] || [ "$r" = 137 ]; then
		echo "FAIL: quickstart-$what (ran longer than 25 minutes)"
	fi
	echo "# quick start $what: exit $r, $(($(date +%s) - start)) s"
	[ "$r" = 0 ] || rc=1
done
exit "$rc"
