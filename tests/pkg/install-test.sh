#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# install-test.sh [DEB]: install the package into a throwaway Debian 12 root
# and check what dpkg -i, -r and -P leave behind. Without DEB, the package
# is built first from a clean copy of this source tree.
#
# Needs root, mmdebstrap, unshare and ip. Every network change happens in a
# namespace this script creates and deletes; the root is built from the
# host's apt sources and removed at exit, nothing is cached.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "install-test.sh: needs root (mmdebstrap, chroot, network namespaces)" >&2
	exit 77
fi
for tool in mmdebstrap unshare ip dpkg-deb; do
	if ! command -v "$tool" >/dev/null; then
		echo "install-test.sh: $tool is missing" >&2
		exit 77
	fi
done

tmp=$(mktemp -d /tmp/ib-hook-install.XXXXXX)
ns=ibhook-pkg-$$
cleanup() {
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ $# -ge 1 ]; then
	deb=$(realpath "$1")
else
	echo "# building the package from a clean copy of the tree"
	export_tree "$here/../.." "$tmp/src/ib-hook"
	if ! (cd "$tmp/src/ib-hook" && dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
		tail -n 40 "$tmp/build.log"
		not_ok "package builds"
		exit 1
	fi
	deb=$(ls "$tmp"/src/ib-hook_*.deb | head -n 1)
fi
[ -f "$deb" ] || { not_ok "package file $deb exists"; exit 1; }

root=$tmp/root
deps=$(deb_depends "$deb")
echo "# a Debian 12 root with $deps (cached)"
debian_root bookworm "$deps" "$root" || { not_ok "mmdebstrap bookworm root"; exit 1; }
cp "$deb" "$root/tmp/ib-hook.deb"

# Without /proc, in a network namespace of its own: no netlink access that
# could matter, and nothing of the host's network is reachable.
in_chroot() {
	unshare --net chroot "$root" "$@" </dev/null
}

# As on a running system: own network, PID and mount namespaces, /proc and
# /sys mounted, so the maintainer scripts really run ib-hook.
in_system() {
	ip netns exec "$ns" unshare --pid --fork --mount-proc="$root/proc" \
		sh -c 'mount -t sysfs sysfs "$0/sys" && exec chroot "$0" "$@"' "$root" "$@" </dev/null
}

# Snapshot of the root before installing, to compare after the purge; dpkg's
# database, logs, caches and /tmp legitimately change.
snapshot() {
	(cd "$root" && find . -xdev \
		\( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
		-o -path ./var/lib/dpkg -o -path ./var/log -o -path ./var/cache \) -prune \
		-o -print | LC_ALL=C sort)
}
snapshot >"$tmp/before"

# --- dpkg -i in a chroot without /proc: postinst must succeed and say why
# it did not apply, in one line.
in_chroot dpkg -i /tmp/ib-hook.deb >"$tmp/install.log" 2>&1
rc=$?
check "dpkg -i succeeds in a chroot without /proc or network (exit $rc)" [ "$rc" -eq 0 ]
n=$(grep -c '^ib-hook:' "$tmp/install.log")
check "postinst printed one line about not applying ($n)" [ "$n" -eq 1 ]
grep '^ib-hook:' "$tmp/install.log" | sed 's/^/# /'
status=$(chroot "$root" dpkg-query -W -f='${Status}' ib-hook 2>/dev/null)
check "package is installed ($status)" [ "$status" = "install ok installed" ]

# --- files
mode_owner() {
	stat -c '%a %u:%g' "$1" 2>/dev/null
}
bin=$root/usr/sbin/ib-hook
check "binary /usr/sbin/ib-hook is a 0755 root:root file" \
	[ -f "$bin" -a ! -L "$bin" -a "$(mode_owner "$bin")" = "755 0:0" ]
version=$(in_chroot /usr/sbin/ib-hook --version 2>&1)
# the program's version is the upstream one, without the Debian revision
want="ib-hook $(dpkg-deb -f "$deb" Version | sed 's/-[^-]*$//')"
check "ib-hook --version prints '$want' ($version)" [ "$version" = "$want" ]
check "man page /usr/share/man/man8/ib-hook.8.gz" [ -f "$root/usr/share/man/man8/ib-hook.8.gz" ]
check "nothing in /etc but the hook links: no /etc/ib-hook.conf" [ ! -e "$root/etc/ib-hook.conf" ]
check "no conffiles" [ ! -s "$root/var/lib/dpkg/info/ib-hook.conffiles" ]
check "the example /usr/share/doc/ib-hook/examples/ib-hook.conf" \
	[ -f "$root/usr/share/doc/ib-hook/examples/ib-hook.conf" ]
check "the example is a valid configuration" \
	in_chroot /usr/sbin/ib-hook --config /usr/share/doc/ib-hook/examples/ib-hook.conf --dry-run --all
check "the JSON schema /usr/share/doc/ib-hook/ib-hook.schema.json, uncompressed" \
	[ -f "$root/usr/share/doc/ib-hook/ib-hook.schema.json" ]
check "bash completion /usr/share/bash-completion/completions/ib-hook" \
	[ -f "$root/usr/share/bash-completion/completions/ib-hook" ]

hooks="/etc/networkd-dispatcher/routable.d/ib-hook
/etc/networkd-dispatcher/configured.d/ib-hook
/etc/networkd-dispatcher/off.d/ib-hook
/etc/networkd-dispatcher/no-carrier.d/ib-hook
/etc/network/if-up.d/ib-hook
/etc/network/if-post-down.d/ib-hook
/usr/lib/NetworkManager/dispatcher.d/90-ib-hook"
for h in $hooks; do
	if [ ! -L "$root$h" ]; then
		not_ok "hook $h is a symlink"
		continue
	fi
	target=$(chroot "$root" readlink -f "$h")
	dir=$(dirname "$target")
	if [ "$target" = /usr/sbin/ib-hook ] &&
	   [ "$(mode_owner "$root$target")" = "755 0:0" ] &&
	   [ "$(mode_owner "$root$dir")" = "755 0:0" ] &&
	   [ "$(mode_owner "$root$(dirname "$h")")" = "755 0:0" ]; then
		ok "hook $h -> $target, 0755 root:root in 0755 root:root $dir"
	else
		not_ok "hook $h -> $target ($(mode_owner "$root$target") in $dir $(mode_owner "$root$dir"), hook dir $(mode_owner "$root$(dirname "$h")"))"
	fi
done

# --- maintainer scripts on a "running system": a network namespace holding
# memserver34's two ports, and a config that manages them by name.
ip netns add "$ns"
ip -n "$ns" link add ib0 type veth peer name ib1
ip -n "$ns" addr add 172.16.34.1/16 dev ib0
ip -n "$ns" addr add 172.16.34.2/16 dev ib1
ip -n "$ns" link set lo up
ip -n "$ns" link set ib0 up
ip -n "$ns" link set ib1 up
printf '[Match]\nName=ib*\n' >"$root/etc/ib-hook.conf"
chmod 0644 "$root/etc/ib-hook.conf"

rules_present() {
	r=$(ip -n "$ns" rule show)
	echo "$r" | grep -q 'from 172.16.34.1 lookup' && echo "$r" | grep -q 'from 172.16.34.2 lookup'
}
rules_absent() { # (a query that fails is no absence)
	r=$(ip -n "$ns" rule show) && ! echo "$r" | grep -q 'from 172\.16\.34\.'
}

# run as dpkg runs it: deb-systemd-helper (the watcher unit) insists
postinst=/var/lib/dpkg/info/ib-hook.postinst
in_system env DPKG_MAINTSCRIPT_PACKAGE=ib-hook DPKG_MAINTSCRIPT_NAME=postinst "$postinst" configure >"$tmp/postinst.log" 2>&1
rc=$?
check "postinst configure on a running system succeeds (exit $rc)" [ "$rc" -eq 0 ]
check "postinst applied: rules from 172.16.34.1 and 172.16.34.2 exist" rules_present
n=$(grep -c '^ib[01]: added ' "$tmp/postinst.log")
check "postinst printed one line per change ($n lines 'ibN: added ...')" [ "$n" -ge 4 ]
check "  and nothing but lines about ib0 and ib1" sh -c '! grep -qv "^ib[01]: " "$1"' - "$tmp/postinst.log"
sed 's/^/# /' "$tmp/postinst.log"
in_system /usr/sbin/ib-hook --status >"$tmp/status.log" 2>&1
rc=$?
check "ib-hook --status after postinst reports no drift (exit $rc)" [ "$rc" -eq 0 ]

# Without netlink permission (CAP_NET_ADMIN dropped) ib-hook fails, and the
# postinst must still succeed with one line.
in_system /usr/sbin/ib-hook --all --remove >/dev/null 2>&1
ip netns exec "$ns" unshare --pid --fork --mount-proc="$root/proc" \
	setpriv --bounding-set=-net_admin --inh-caps=-net_admin \
	chroot "$root" env DPKG_MAINTSCRIPT_PACKAGE=ib-hook DPKG_MAINTSCRIPT_NAME=postinst "$postinst" configure </dev/null >"$tmp/noperm.log" 2>&1
rc=$?
n=$(wc -l <"$tmp/noperm.log")
check "postinst without CAP_NET_ADMIN succeeds (exit $rc)" [ "$rc" -eq 0 ]
check "postinst without CAP_NET_ADMIN printed one line ($n)" [ "$n" -eq 1 ]
sed 's/^/# /' "$tmp/noperm.log"

# A config that ib-hook refuses (group-writable) must not fail it either.
chmod 0664 "$root/etc/ib-hook.conf"
in_system env DPKG_MAINTSCRIPT_PACKAGE=ib-hook DPKG_MAINTSCRIPT_NAME=postinst "$postinst" configure >"$tmp/badconf.log" 2>&1
rc=$?
n=$(wc -l <"$tmp/badconf.log")
check "postinst with a config ib-hook rejects succeeds with one line (exit $rc, $n lines)" \
	[ "$rc" -eq 0 -a "$n" -eq 1 ]
sed 's/^/# /' "$tmp/badconf.log"
chmod 0644 "$root/etc/ib-hook.conf"

# On a systemd host where systemd-networkd runs and networkd-dispatcher is
# installed but stopped, postinst starts the dispatcher (deb-systemd-invoke
# is a stub that records its arguments; the daemons are copies of sleep
# named as they are, in the PID namespace of the run); on an ifupdown or
# NetworkManager host (no networkd), with the dispatcher already running,
# or without systemd, it leaves the dispatcher alone.
unit=/usr/lib/systemd/system/networkd-dispatcher.service
made=
for d in /run/systemd /run/systemd/system /usr/lib/systemd /usr/lib/systemd/system /usr/local/sbin; do
	[ -d "$root$d" ] || { mkdir "$root$d" && made="$d $made"; }
done
: >"$root$unit"
printf '#!/bin/sh\necho "$*" >>/tmp/dsi.log\n' >"$root/usr/local/sbin/deb-systemd-invoke"
chmod 0755 "$root/usr/local/sbin/deb-systemd-invoke"
mkdir -p "$root/tmp/daemons"
for d in systemd-networkd networkd-dispatcher; do
	cp "$root/bin/sleep" "$root/tmp/daemons/$d"
done
postinst_with() { # postinst_with DAEMON...: run postinst with those running; did it start the dispatcher?
	rm -f "$root/tmp/dsi.log"
	in_system env PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin DPKG_MAINTSCRIPT_PACKAGE=ib-hook DPKG_MAINTSCRIPT_NAME=postinst \
		sh -c 'for d; do /tmp/daemons/$d 30 & done; sleep 0.2; "$0" configure' "$postinst" "$@" >/dev/null 2>&1
	grep -qx 'start networkd-dispatcher.service' "$root/tmp/dsi.log" 2>/dev/null
}
not() { ! "$@"; }
check "postinst starts networkd-dispatcher where systemd-networkd runs" \
	postinst_with systemd-networkd
check "postinst leaves networkd-dispatcher alone where systemd-networkd does not run (ifupdown)" \
	not postinst_with
check "... and where it already runs" \
	not postinst_with systemd-networkd networkd-dispatcher
rmdir "$root/run/systemd/system"
check "... and where systemd does not run" \
	not postinst_with systemd-networkd
mkdir "$root/run/systemd/system"
rm -rf "$root$unit" "$root/usr/local/sbin/deb-systemd-invoke" "$root/tmp/dsi.log" "$root/tmp/daemons"
for d in $made; do
	rmdir "$root$d"
done
rules_present || not_ok "re-apply before dpkg -r"

# --- dpkg -r: prerm undoes the routing and says so; the configuration the
# administrator wrote stays.
in_system dpkg -r ib-hook >"$tmp/remove.log" 2>&1
rc=$?
check "dpkg -r succeeds (exit $rc)" [ "$rc" -eq 0 ]
check "prerm removed the rules ib-hook installed" rules_absent
check "prerm printed what it took back" grep -q '^ib[01]: deleted rule from 172\.16\.34\.' "$tmp/remove.log"
status=$(chroot "$root" dpkg-query -W -f='${Status}' ib-hook 2>/dev/null)
check "package state after dpkg -r is config-files ($status)" \
	[ "$status" = "deinstall ok config-files" ]
left=
for f in $(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's/^\.//'); do
	[ "$f" = /etc/ib-hook.conf ] && continue
	if [ -e "$root$f" ] || [ -L "$root$f" ]; then
		left="$left $f"
	fi
done
check "dpkg -r removed every file of the package${left:+ (left:$left)}" [ -z "$left" ]
check "dpkg -r kept the administrator's /etc/ib-hook.conf" [ -f "$root/etc/ib-hook.conf" ]

# --- dpkg -P: nothing of the package is left.
in_chroot dpkg -P ib-hook >"$tmp/purge.log" 2>&1
rc=$?
check "dpkg -P succeeds (exit $rc)" [ "$rc" -eq 0 ]
check "dpkg -P kept the administrator's /etc/ib-hook.conf" [ -f "$root/etc/ib-hook.conf" ]
rm -f "$root/etc/ib-hook.conf"
check "dpkg -P removed /run/ib-hook.lock" [ ! -e "$root/run/ib-hook.lock" ]
status=$(chroot "$root" dpkg-query -W -f='${db:Status-Abbrev}' ib-hook 2>/dev/null)
forgotten() {
	[ -z "$status" ] || [ "$status" = "un " ]
}
check "dpkg no longer knows the package (${status:-not found})" forgotten
check "no /var/lib/dpkg/info/ib-hook.* left" \
	[ -z "$(ls "$root"/var/lib/dpkg/info/ib-hook.* 2>/dev/null)" ]
snapshot >"$tmp/after"
if diff "$tmp/before" "$tmp/after" >"$tmp/diff"; then
	ok "after dpkg -P the root holds the same files as before dpkg -i"
else
	sed 's/^/# /' "$tmp/diff"
	not_ok "after dpkg -P the root holds the same files as before dpkg -i"
fi

if [ "$fails" -ne 0 ]; then
	for log in install postinst status remove purge; do
		[ -s "$tmp/$log.log" ] && { echo "# --- $log.log"; sed 's/^/# /' "$tmp/$log.log"; }
	done
	exit 1
fi
exit 0
