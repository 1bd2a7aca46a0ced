#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: the README's quick start, verbatim, in fresh Debian 12 and Debian 13
# roots, in both its forms: as a user with sudo and as root without sudo
# (tests/quickstart/fresh-root.sh; issues 5 and 30). After each, the user
# runs the unit suite in the same tree, as the README promises.
#
# Two fresh roots, two combinations (four with the folds, below): each release and each form replays
# both commands on a fresh root once, Debian 12 with sudo and Debian 13 as
# root; the second one, `tests/run`, runs every suite in one of them and
# the suites unit and netns in the other, in turn (below). The other two, Debian 12 as root and Debian 13 with sudo, replay
# both commands afterwards in the same root, in a second clean copy of the
# tree (fresh-root.sh -o), the second command with the suites unit and netns
# only: what differs between the forms is who runs the commands (sudo's
# reset environment and this release's sudo, or root's login shell) and the
# build directory given back to the tree's owner, which these suites show
# (unit: the build; netns: root's privileges in namespaces); the release's
# packages (build-dep) and its other suites ran in the fresh root's own
# replay. Until issue 41 these two were fresh roots of their own, with their
# packages installed again: 2 of the section's 4 replays, some 5 minutes.
#
# The full Debian 12 replay with sudo is the README's test command, `sudo
# tests/run`, on this host's release and kernel: .ci/run counts its tests
# (one PASS:/FAIL:/SKIP: line each) and runs on the host only what a fresh
# root lacks the tools for (the fleet suite's browser).
#
#   .ci/quickstart.sh [COMBINATION...]   (default: both, e.g. bookworm-sudo)
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

# RELEASE-FORM:SUITES:OTHER (no SUITES: every suite; OTHER: the suites of
# the other form's second command in the same root, fresh-root.sh -o)
# The folds (the other form in the same root) run only with
# IB_HOOK_CI_QUICKSTART_FOLDS=1: some 100 s each, and each form is replayed
# in full on a fresh root without them; CI's 45-minute cold budget did not
# hold them (issue 41's cold run: 40 min to the VM step with them)
fold=
[ "${IB_HOOK_CI_QUICKSTART_FOLDS:-0}" = 1 ] && fold="unit netns"
# One replay runs the whole suite, the other the suites unit and netns, in
# turn by the commit's position in the history (.ci/lib.sh's
# quickstart_full): two landings in a row run the README's test command in
# full in each release and form. Both replays' suites run on the host's one
# kernel, and the random suite alone (half of a full replay's test time,
# some 800 s summed on a slow 2-core host) ran in both and again under the
# sanitizers; two full replays took 29.5 min of a cold run (2026-12-07).
. "$top/.ci/lib.sh"
full=$(quickstart_full "$top")
partial="unit netns"
bookworm_suites=$partial trixie_suites=$partial
case $full in
bookworm-sudo) bookworm_suites= ;;
*) trixie_suites= ;;
esac
combos=(
	"bookworm-sudo:$bookworm_suites:$fold"
	"trixie-root:$trixie_suites:$fold"
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

trap 'exit 130' INT TERM

rc=0
for combo in "${combos[@]}"; do
	what=${combo%%:*}
	suites=${combo#*:}
	other=${suites#*:}
	suites=${suites%%:*}
	echo "# quick start: Debian ${what%-*}, ${what#*-} form${suites:+, second command with the suites $suites}${other:+, then the other form with the suites $other}"
	start=$(date +%s)
	# a full replay runs every suite: 25 minutes at most
	timeout -k 30 1500 bash "$top/tests/quickstart/fresh-root.sh" -r "${what%-*}" -f "${what#*-}" \
		-s "$suites" -o "$other" "$top"
	r=$?
	if [ "$r" = 124 ] || [ "$r" = 137 ]; then
		echo "FAIL: quickstart-$what (ran longer than 25 minutes)"
	fi
	echo "# quick start $what: exit $r, $(($(date +%s) - start)) s"
	[ "$r" = 0 ] || rc=1
done
exit "$rc"
