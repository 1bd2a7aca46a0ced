#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The README's quick start, verbatim, on a fresh Debian 12 machine: a new
# minbase root (mmdebstrap, from the host's apt sources) with sudo and an
# ordinary user, as the Debian installer leaves a machine installed without a
# root password. A clean copy of the source tree goes into the user's home,
# and the two commands of the README's "Quick start" run there one after the
# other, as that user. Needs root.
#
#   tests/quickstart/fresh-root.sh [SOURCE-DIR]
#
# SOURCE-DIR defaults to the tree this script is in. The full transcript goes
# to $QUICKSTART_TRANSCRIPT (default /var/tmp/ib-hook-quickstart.txt).
# QUICKSTART_README=FILE takes the commands from FILE instead of README.md
# (to try a new wording before it is written into the README).
# Prints "PASS: name" or "FAIL: name" for quickstart-readme (the README has
# exactly two quick-start commands), quickstart-cmd1, quickstart-cmd2 and
# quickstart-host-untouched; exits 1 if any failed. Everything it mounts and
# creates is removed on exit, Ctrl-C included.

set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

src=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 1
transcript=${QUICKSTART_TRANSCRIPT:-/var/tmp/ib-hook-quickstart.txt}
suite=bookworm
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
	fail "quickstart-cmd1"
	fail "quickstart-cmd2"
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

# The two commands, as the README prints them: the first code block (indented
# or fenced) after the "Quick start" heading, without "$ " prompts.
readme_commands() {
	awk '
		/^#+[ \t]*[Qq]uick start/ { in_qs = 1; next }
		in_qs && /^#/ { exit }
		in_qs && /^```/ { if (fenced) exit; fenced = 1; next }
		in_qs && fenced { print; next }
		in_qs && /^(    |\t)[^ \t]/ { sub(/^(    |\t)/, ""); print; block = 1; next }
		in_qs && block && !/^[ \t]*$/ { exit }
	' "${QUICKSTART_README:-$src/README.md}" 2>/dev/null | sed -e 's/^\$ //' -e '/^[[:space:]]*$/d' -e '/^[[:space:]]*#/d'
}
mapfile -t cmds < <(readme_commands)
if [ "${#cmds[@]}" = 2 ]; then
	pass "quickstart-readme (two commands)"
else
	fail "quickstart-readme (README.md: ${#cmds[@]} commands under \"Quick start\", wanted 2)"
	exit 1
fi

tmp=$(mktemp -d /var/tmp/ib-hook-quickstart.XXXXXX) || fatal "mktemp failed"
chmod 0755 "$tmp"
: >"$transcript" || fatal "cannot write $transcript"
t0=$(date +%s)

# Nothing but the base system: minbase (essential + apt), sudo, no mirror
# argument so the host's apt sources are used.
echo "# making a fresh Debian 12 root ($suite, minbase + sudo) in $tmp/root"
mmdebstrap --variant=minbase --include=sudo "$suite" "$tmp/root" >"$tmp/mmdebstrap.log" 2>&1 || {
	tail -n 20 "$tmp/mmdebstrap.log" | sed 's/^/#   /'
	fatal "mmdebstrap failed"
}
root=$tmp/root

# what an installed machine has and a bare root lacks: name resolution, a
# hosts file naming the host, an ordinary user who may use sudo
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$(hostname)" >"$root/etc/hosts"
chroot "$root" useradd -m -s /bin/bash "$user" || fatal "useradd failed"
echo "$user ALL=(ALL:ALL) NOPASSWD: ALL" >"$root/etc/sudoers.d/$user"
chmod 0440 "$root/etc/sudoers.d/$user"

# a clean copy of the tree: tracked and untracked files, not ignored ones
dest=$root/home/$user/ib-hook
mkdir -p "$dest"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
		xargs -0 cp --parents -P -t "$dest" --) || fatal "copying the source tree failed"
else
	(cd "$src" && tar --exclude=./.git --exclude='./build*' --exclude=./debian/.debhelper -cf - .) |
		(cd "$dest" && tar -xf -) || fatal "copying the source tree failed"
fi
chroot "$root" chown -R "$user:$user" "/home/$user/ib-hook" || fatal "chown failed"

# The root must be a mount point for `ip netns add` inside it; private, so
# that nothing mounted inside reaches the host.
mount --bind "$root" "$root" && mount --make-private "$root" &&
	mount -t proc proc "$root/proc" &&
	mount -t sysfs sysfs "$root/sys" &&
	mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" &&
	mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$root/run" ||
	fatal "mounting /proc, /sys, /dev, /run in the fresh root failed"
echo "# root ready after $(($(date +%s) - t0))s"

# run N TIMEOUT: command N of the README, as the user, in the clone
run() {
	n=$1 limit=$2 cmd=${cmds[$(($1 - 1))]}
	start=$(date +%s)
	{
		echo "user@fresh-debian12:~/ib-hook\$ $cmd"
		timeout -k 10 "$limit" chroot "$root" /usr/sbin/runuser -l "$user" \
			-c "cd ~/ib-hook && $cmd" </dev/null 2>&1
		echo "[exit $?]"
	} | tee -a "$transcript" >"$tmp/cmd$n.log"
	rc=$(sed -n 's/^\[exit \([0-9]*\)\]$/\1/p' "$tmp/cmd$n.log" | tail -n 1)
	secs=$(($(date +%s) - start))
	# everything but apt's and dpkg's line per package
	grep -Ev '^(Get:|Hit:|Ign:|Selecting previously|Preparing to unpack|Unpacking|Setting up|Processing triggers|\(Reading database|Reading package lists|Building dependency tree|Reading state information|debconf: |Creating config file|Adding|Created symlink|update-alternatives:|  [a-z0-9])' \
		"$tmp/cmd$n.log" | sed 's/^/    | /'
	if [ "$rc" = 0 ]; then
		pass "quickstart-cmd$n (${secs}s)"
	else
		[ "$rc" = 124 ] && echo "# command $n ran longer than ${limit}s"
		fail "quickstart-cmd$n (exit ${rc:-?}, ${secs}s)"
	fi
	[ "$rc" = 0 ]
}

if run 1 900; then
	run 2 900
else
	fail "quickstart-cmd2 (not run: command 1 failed)"
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
