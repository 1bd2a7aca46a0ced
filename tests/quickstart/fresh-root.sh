#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The README's quick start, verbatim, on a fresh Debian machine: a new
# minbase root (mmdebstrap, from the host's mirror) with an ordinary user who
# owns a clean copy of the source tree in their home, and either sudo for
# that user (the README's first form) or no sudo at all, the commands run by
# root (its second form: a server with a root password, where the user
# clones and root runs the commands). The two commands of the chosen form run
# one after the other; then the user runs `tests/run --suite unit` in the same
# tree, as the README promises. Needs root.
#
#   tests/quickstart/fresh-root.sh [-r RELEASE] [-f sudo|root] [-s SUITES] [-o SUITES] [SOURCE-DIR]
#
# RELEASE is bookworm (default) or trixie. -s SUITES (space separated) runs
# the second command with `--suite S` for each, instead of every suite.
# -o SUITES: afterwards, in the same root, the other form's two commands in
# a second clean copy of the tree (~/ib-hook-FORM), the second one with
# `--suite S` for each of SUITES, then the unit suite as the user: what
# .ci/quickstart.sh replays of the form whose whole suite the other
# release's replay ran (its packages are installed by then: the first
# command's build-dep installs nothing; the sudo form gets sudo first, the
# root form keeps it). SOURCE-DIR defaults to the tree
# this script is in. The full transcript goes to $QUICKSTART_TRANSCRIPT
# (default /var/tmp/ib-hook-quickstart-RELEASE-FORM.txt).
# QUICKSTART_APT_ARCHIVES=DIR keeps apt's downloads in DIR for the next
# replay of the same release (.ci/quickstart.sh).
# QUICKSTART_README=FILE takes the commands from FILE instead of README.md
# (to try a new wording before it is written into the README).
# Prints "PASS: name" or "FAIL: name" for quickstart-readme (the README's
# quick start has a sudo form and a root form of two commands each, the same
# but for sudo), quickstart-RELEASE-FORM-cmd1, -cmd2, -unit-as-user and
# quickstart-host-untouched, and one PASS:/FAIL:/SKIP: line per test that the
# second command ran (quickstart-RELEASE-FORM: SUITE/TEST), the same for the
# other form with -o; exits 1 if any failed. Everything it mounts and creates is removed on exit, Ctrl-C
# included.

set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

suite=bookworm
form=sudo
suites=
other_suites=
usage() {
	echo "usage: fresh-root.sh [-r bookworm|trixie] [-f sudo|root] [-s SUITES] [-o SUITES] [SOURCE-DIR]" >&2
	exit 2
}
while getopts r:f:s:o: opt; do
	case $opt in
	r) suite=$OPTARG ;;
	f) form=$OPTARG ;;
	s) suites=$OPTARG ;;
	o) other_suites=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
case $suite in
bookworm) release=12 ;;
trixie) release=13 ;;
*) usage ;;
esac
case $form in sudo | root) ;; *) usage ;; esac
[ $# -le 1 ] || usage
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 1
name=quickstart-$suite-$form
transcript=${QUICKSTART_TRANSCRIPT:-/var/tmp/ib-hook-$name.txt}
user=user
tmp=
root=
failed=0

pass() {
	echo "PASS: $*"
}

fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

fatal() {
	echo "# $*" >&2
	fail "$name-cmd1"
	fail "$name-cmd2"
	exit 1
}

# processes whose root is the fresh root (anything the commands left running)
root_pids() {
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
	done
}

cleanup() {
	rc=$?
	trap '' INT TERM HUP
	if [ -n "$root" ]; then
		root_pids | xargs -r kill -9 2>/dev/null
		if findmnt -rn -o TARGET | grep -qxF "$root"; then
			umount -R "$root" 2>/dev/null || umount -R -l "$root"
		fi
		if findmnt -rn -o TARGET | grep -q "^$root"; then
			echo "# still mounted under $root; not removing it" >&2
			tmp=
			rc=1
		fi
	fi
	[ -n "$tmp" ] && rm -rf --one-file-system "$tmp"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

[ "$(id -u)" = 0 ] || fatal "needs root (mmdebstrap, chroot, mount)"
# shellcheck source-path=SCRIPTDIR source=../pkg/lib.sh
. "$(dirname "$0")/../pkg/lib.sh"

need=
command -v mmdebstrap >/dev/null 2>&1 || need="$need mmdebstrap"
command -v findmnt >/dev/null 2>&1 || need="$need util-linux"
command -v ip >/dev/null 2>&1 || need="$need iproute2"
if [ -n "$need" ]; then
	echo "# installing on the host:$need"
	# shellcheck disable=SC2086
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $need; } >/dev/null ||
		fatal "could not install$need"
fi

# The commands run in the chroot, whose /run is its own: their namespaces are
# never in the host's list (.ci/run compares that list over the whole run).
host_state() {
	ip rule show
	ip -6 rule show
	ip route show
}
host_before=$(host_state)

# The commands of code block N (1: the sudo form, 2: the root form; indented
# or fenced) under the "Quick start" heading, without "$ " prompts.
readme_commands() {
	awk -v want="$1" '
		/^#+[ \t]*[Qq]uick start/ { in_qs = 1; next }
		in_qs && /^#/ { exit }
		in_qs && /^```/ { if (fenced) { fenced = 0; n++ } else fenced = 1; next }
		in_qs && fenced { if (n + 1 == want) print; next }
		in_qs && /^(    |\t)[^ \t]/ { sub(/^(    |\t)/, ""); if (n + 1 == want) print; block = 1; next }
		in_qs && block && !/^[ \t]*$/ { block = 0; n++ }
	' "${QUICKSTART_README:-$src/README.md}" 2>/dev/null | sed -e 's/^\$ //' -e '/^[[:space:]]*$/d' -e '/^[[:space:]]*#/d'
}
mapfile -t with_sudo < <(readme_commands 1)
mapfile -t as_root < <(readme_commands 2)
# the root form is the sudo form without its sudo, word for word
if [ "${#with_sudo[@]}" = 2 ] && [ "${#as_root[@]}" = 2 ] &&
	printf '%s\n' "${with_sudo[@]}" | grep -q 'sudo ' &&
	! printf '%s\n' "${as_root[@]}" | grep -qw sudo &&
	[ "$(printf '%s\n' "${with_sudo[@]}" | sed 's/sudo //g')" = "$(printf '%s\n' "${as_root[@]}")" ]; then
	pass "quickstart-readme (two commands with sudo, the same two as root)"
else
	fail "quickstart-readme (README.md: under \"Quick start\" ${#with_sudo[@]} commands in the first block, ${#as_root[@]} in the second; wanted two with sudo, then the same two without it)"
	exit 1
fi
# commands FORM SUITES: the form's two commands into cmds, the second with
# --suite S for each of SUITES
commands() {
	if [ "$1" = sudo ]; then
		cmds=("${with_sudo[@]}")
	else
		cmds=("${as_root[@]}")
	fi
	for s in $2; do
		cmds[1]="${cmds[1]} --suite $s"
	done
}

tmp=$(mktemp -d /var/tmp/ib-hook-quickstart.XXXXXX) || fatal "mktemp failed"
chmod 0755 "$tmp"
: >"$transcript" || fatal "cannot write $transcript"
t0=$(date +%s)

# Nothing but the base system: minbase (essential + apt), and sudo for the
# sudo form; the host's mirror (tests/pkg/lib.sh's mirror_lines).
include=
[ "$form" = sudo ] && include=--include=sudo
echo "# making a fresh Debian $release root ($suite, minbase${include:+ + sudo}) in $tmp/root"
mirror_lines "$suite" >"$tmp/sources.list" || fatal "no mirror in the host's apt sources"
mmdebstrap --variant=minbase $include "$suite" "$tmp/root" "$tmp/sources.list" \
	>"$tmp/mmdebstrap.log" 2>&1 || {
	tail -n 20 "$tmp/mmdebstrap.log" | sed 's/^/#   /'
	fatal "mmdebstrap failed"
}
root=$tmp/root

# what an installed machine has and a bare root lacks: name resolution, a
# hosts file naming the host, an ordinary user who may use sudo
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$(hostname)" >"$root/etc/hosts"
chroot "$root" useradd -m -s /bin/bash "$user" || fatal "useradd failed"
if [ "$form" = sudo ]; then
	echo "$user ALL=(ALL:ALL) NOPASSWD: ALL" >"$root/etc/sudoers.d/$user"
	chmod 0440 "$root/etc/sudoers.d/$user"
elif chroot "$root" sh -c 'command -v sudo' >/dev/null 2>&1; then
	fatal "the root form's root has sudo"
fi

# clone DIR: a clean copy of the tree in the user's ~/DIR, the user's:
# tracked and untracked files, not ignored ones
clone() {
	local dest=$root/home/$user/$1
	mkdir -p "$dest"
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$src" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
			xargs -0 cp --parents -P -t "$dest" --) || return 1
	else
		(cd "$src" && tar --exclude=./.git --exclude='./build*' --exclude=./debian/.debhelper -cf - .) |
			(cd "$dest" && tar -xf -) || return 1
	fi
	chroot "$root" chown -R "$user:$user" "/home/$user/$1"
}
clone ib-hook || fatal "copying the source tree failed"

# The root must be a mount point for `ip netns add` inside it; private, so
# that nothing mounted inside reaches the host.
mount --bind "$root" "$root" && mount --make-private "$root" &&
	mount -t proc proc "$root/proc" &&
	mount -t sysfs sysfs "$root/sys" &&
	mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" &&
	mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$root/run" ||
	fatal "mounting /proc, /sys, /dev, /run in the fresh root failed"
# QUICKSTART_APT_ARCHIVES=DIR: apt's downloads are kept in DIR (a bind mount
# of /var/cache/apt/archives), so that a later replay of the same release
# takes them from there, as it would from a proxy, instead of downloading
# them again; the command still installs every package
if [ -n "${QUICKSTART_APT_ARCHIVES:-}" ]; then
	mkdir -p "$QUICKSTART_APT_ARCHIVES/partial" &&
		mount --bind "$QUICKSTART_APT_ARCHIVES" "$root/var/cache/apt/archives" &&
		chroot "$root" chown _apt:root /var/cache/apt/archives/partial ||
		fatal "cannot keep apt's downloads in $QUICKSTART_APT_ARCHIVES"
fi
echo "# root ready after $(($(date +%s) - t0))s"

# run NAME TIMEOUT WHO CMD [LINE]: CMD as WHO (a login shell) in the user's
# clone ~/$tree, its output in the transcript and in $tmp/NAME.log; says PASS
# when it exits 0 (and printed a line matching the regular expression LINE),
# else FAIL
tree=ib-hook
run() {
	local what=$1 limit=$2 who=$3 cmd=$4 line=${5:-} start rc secs prompt='$'
	start=$(date +%s)
	[ "$who" = root ] && prompt='#'
	{
		echo "$who@fresh-debian$release:/home/$user/$tree$prompt $cmd"
		timeout -k 10 "$limit" chroot "$root" /usr/sbin/runuser -l "$who" \
			-c "cd /home/$user/$tree && $cmd" </dev/null 2>&1
		echo "[exit $?]"
	} | tee -a "$transcript" >"$tmp/$what.log"
	rc=$(sed -n 's/^\[exit \([0-9]*\)\]$/\1/p' "$tmp/$what.log" | tail -n 1)
	secs=$(($(date +%s) - start))
	# everything but apt's and dpkg's line per package
	grep -Ev '^(Get:|Hit:|Ign:|Selecting previously|Preparing to unpack|Unpacking|Setting up|Processing triggers|\(Reading database|Reading package lists|Building dependency tree|Reading state information|debconf: |Creating config file|Adding|Created symlink|update-alternatives:|  [a-z0-9])' \
		"$tmp/$what.log" | sed 's/^/    | /'
	if [ "$rc" = 0 ] && [ -n "$line" ] && ! grep -qE "$line" "$tmp/$what.log"; then
		fail "$name-$what (exit 0, ${secs}s, but no line matching '$line')"
		return 1
	elif [ "$rc" = 0 ]; then
		pass "$name-$what (${secs}s)"
	else
		[ "$rc" = 124 ] && echo "# $name-$what ran longer than ${limit}s"
		fail "$name-$what (exit ${rc:-?}, ${secs}s)"
	fi
	[ "$rc" = 0 ]
}

# tests_of LOG: one PASS:/FAIL:/SKIP: line per test in meson's list in LOG
# (not in its summary of failures, which names them again)
tests_of() {
	sed -nE '/^Summary of Failures/q; s|^ *[0-9]+/[0-9]+ +[^ :]+:([^ ]+) / ([^ ]+) +([A-Z]+) .*|\3 \1/\2|p' "$1" |
		while read -r result test; do
			case $result in
			OK | EXPECTEDFAIL) echo "PASS: $name: $test" ;;
			SKIP) echo "SKIP: $name: $test" ;;
			*) echo "FAIL: $name: $test ($result)" ;;
			esac
		done
}

# replay FORM: the form's two commands (cmds) in the clone ~/$tree, the sudo
# form's as the user, the root form's as root; then the unit suite as the user
replay() {
	local runner=$user uid foreign
	[ "$1" = root ] && runner=root
	if run cmd1 900 "$runner" "${cmds[0]}"; then
		run cmd2 900 "$runner" "${cmds[1]}"
		tests_of "$tmp/cmd2.log"
		# the README: afterwards the unit suite runs as yourself, without root
		uid=$(chroot "$root" id -u "$user")
		foreign=$(find "$root/home/$user/$tree" ! -uid "$uid" -printf '%P\n' | head -n 3)
		if [ -n "$foreign" ]; then
			fail "$name-unit-as-user (after the second command, not the user's: $(echo "$foreign" | paste -sd' '))"
		else
			run unit-as-user 300 "$user" "tests/run --suite unit" '^[1-9][0-9]* passed, 0 failed, 0 skipped$'
		fi
	else
		fail "$name-cmd2 (not run: command 1 failed)"
		fail "$name-unit-as-user (not run: command 1 failed)"
	fi
}
commands "$form" "$suites"
replay "$form"

# -o: the other form in the same root, in a second clean clone: who runs the
# commands (sudo's reset environment, or root's login shell), sudo's version
# of this release and the build directory given back to the user, without
# a second root and its packages
if [ -n "$other_suites" ]; then
	other=sudo
	[ "$form" = sudo ] && other=root
	name=quickstart-$suite-$other
	tree=ib-hook-$other
	echo "# the $other form in the same root, in ~$user/$tree (the second command with the suites $other_suites)"
	if [ "$other" = sudo ] && ! {
		chroot "$root" apt-get install -y -qq --no-install-recommends sudo </dev/null >"$tmp/sudo.log" 2>&1 &&
			echo "$user ALL=(ALL:ALL) NOPASSWD: ALL" >"$root/etc/sudoers.d/$user" &&
			chmod 0440 "$root/etc/sudoers.d/$user"
	}; then
		sed 's/^/#   /' "$tmp/sudo.log"
		fail "$name-cmd1 (sudo could not be installed)"
		fail "$name-cmd2 (not run)"
	elif ! clone "$tree"; then
		fail "$name-cmd1 (copying the source tree failed)"
		fail "$name-cmd2 (not run)"
	else
		commands "$other" "$other_suites"
		replay "$other"
	fi
fi

root_pids | xargs -r kill -9 2>/dev/null
umount -R "$root" || umount -R -l "$root"
if [ "$(host_state)" = "$host_before" ]; then
	pass "quickstart-host-untouched"
else
	fail "quickstart-host-untouched"
	diff <(echo "$host_before") <(host_state) | sed 's/^/#   /'
fi
echo "# transcript: $transcript; total $(($(date +%s) - t0))s"
[ "$failed" = 0 ]
