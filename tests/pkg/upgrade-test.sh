#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# upgrade-test.sh NEW_DEB [OLD_DEB]: the configuration a lab writes, and the
# upgrade from 0.1.0, in throwaway Debian 12 roots, dpkg run without a
# terminal (stdin /dev/null), as configuration management runs it:
#   1. /etc/ib-hook.conf and a drop-in written before `dpkg -i`: the install
#      goes through, both files stay as written and are read; 0.1.0 (a
#      conffile) stopped at the prompt there, which is shown as the control
#   2. upgrade from 0.1.0 with its conffile unchanged: the file is removed
#   3. upgrade from 0.1.0 with a changed conffile: it stays, is still read
#      (the rules land at its Priority), is no longer a conffile, and a purge
#      leaves it
# Without OLD_DEB, 0.1.0 is built from the tag v0.1.0 (the commit 404d52f)
# of this repository, and cached.
#
# Needs root, mmdebstrap, unshare, ip. Network changes happen only in a
# namespace this script creates and deletes.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "upgrade-test.sh: needs root (mmdebstrap, chroot, network namespaces)" >&2
	exit 77
fi
for tool in mmdebstrap unshare ip dpkg-deb dpkg-buildpackage; do
	command -v "$tool" >/dev/null || { echo "upgrade-test.sh: $tool is missing" >&2; exit 77; }
done
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: upgrade-test.sh NEW_DEB [OLD_DEB]" >&2; exit 2; }
new=$(realpath "$1")

tmp=$(mktemp -d /tmp/ib-hook-upgrade.XXXXXX)
ns=ibhook-upg-$$
cleanup() {
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 0.1.0, built once from its commit
old_commit=404d52f9e87e8084a6c1ba4c0e99efa6292d90b8
cache=${IB_HOOK_CI_CACHE:-/var/cache/ib-hook-ci}
if [ $# -ge 2 ]; then
	old=$(realpath "$2")
else
	old=$cache/ib-hook_0.1.0-${old_commit:0:12}.deb
	if ! [ -s "$old" ]; then
		if ! git -C "$top" cat-file -e "$old_commit^{commit}" 2>/dev/null; then
			echo "upgrade-test.sh: this clone lacks commit $old_commit (0.1.0); a shallow clone?" >&2
			exit 77
		fi
		echo "# building 0.1.0 from $old_commit"
		mkdir -p "$tmp/old/ib-hook" "$cache"
		git -C "$top" archive "$old_commit" | tar -C "$tmp/old/ib-hook" -xf -
		if ! (cd "$tmp/old/ib-hook" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) \
			>"$tmp/old-build.log" 2>&1; then
			tail -n 30 "$tmp/old-build.log"
			not_ok "0.1.0 builds from $old_commit"
			exit 1
		fi
		cp "$(ls "$tmp"/old/ib-hook_0.1.0_*.deb | head -n 1)" "$old.tmp" && mv "$old.tmp" "$old"
	fi
fi
check "0.1.0 package ($(basename "$old")) is version 0.1.0" [ "$(dpkg-deb -f "$old" Version)" = 0.1.0 ]
new_version=$(dpkg-deb -f "$new" Version)

deps=$(deb_depends "$new"),$(deb_depends "$old")
root=$tmp/root
# fresh: a new root from the cached tar
fresh() {
	rm -rf "$root"
	debian_root bookworm "$deps" "$root" || { not_ok "Debian 12 root"; exit 1; }
	cp "$new" "$root/tmp/new.deb"
	cp "$old" "$root/tmp/old.deb"
}

# in_system CMD...: as on a running system: a network namespace holding
# memserver34's ports, own PID and mount namespaces, /proc and /sys
in_system() {
	ip netns exec "$ns" unshare --pid --fork --mount-proc="$root/proc" \
		sh -c 'mount -t sysfs sysfs "$0/sys" && exec chroot "$0" "$@"' "$root" "$@" </dev/null
}
ip netns add "$ns"
ip -n "$ns" link add ib0 type veth peer name ib1
ip -n "$ns" addr add 172.16.34.1/16 dev ib0
ip -n "$ns" addr add 172.16.34.2/16 dev ib1
for l in lo ib0 ib1; do ip -n "$ns" link set "$l" up; done

# rule_prefs: the priorities of the rules from memserver34's addresses
rule_prefs() {
	ip -n "$ns" rule show | sed -n 's/^\([0-9]*\):.*from 172\.16\.34\.[12] .*/\1/p' | sort -u | paste -sd' ' -
}
etc_leftovers() {
	find "$root/etc" -name 'ib-hook.conf.dpkg-*' | sed "s|^$root||"
}
pkg_status() {
	chroot "$root" dpkg-query -W -f='${Status}' ib-hook 2>/dev/null
}
write_conf() { # write_conf PATH: stdin, root-owned 0644
	mkdir -p "$(dirname "$root$1")"
	cat >"$root$1"
	chmod 0644 "$root$1"
}

# --- 1. configuration written before dpkg -i
preseed() { # a fresh root with the files configuration management writes first
	fresh
	write_conf /etc/ib-hook.conf <<-'CONF'
	# written by configuration management before the package
	[Match]
	Name=ib*
	[Routing]
	Priority=900
	CONF
	write_conf /etc/ib-hook.conf.d/50-lab.conf <<-'CONF'
	[Routing]
	Priority=910
	CONF
}
preseed
sums=$(cd "$root" && sha256sum etc/ib-hook.conf etc/ib-hook.conf.d/50-lab.conf)
# the control: 0.1.0 shipped a conffile, and dpkg asks about it
in_system dpkg -i /tmp/old.deb >"$tmp/old-preseed.log" 2>&1
rc=$?
check "control: 0.1.0 over a pre-seeded config without a terminal fails (exit $rc, $(pkg_status))" \
	[ "$rc" -ne 0 -a "$(pkg_status)" != "install ok installed" ]
grep -m1 -i 'conffile' "$tmp/old-preseed.log" | sed 's/^/# 0.1.0: /'
preseed
in_system dpkg -i /tmp/new.deb >"$tmp/preseed.log" 2>&1
rc=$?
check "$new_version over a pre-seeded config and drop-in, no terminal: dpkg -i succeeds (exit $rc)" [ "$rc" -eq 0 ]
check "  the package is installed ($(pkg_status))" [ "$(pkg_status)" = "install ok installed" ]
check "  both files are as written" sh -c "cd '$root' && printf '%s\n' '$sums' | sha256sum --quiet -c -"
check "  /etc/ib-hook.conf is no conffile" \
	sh -c "! grep -qs '/etc/ib-hook.conf' '$root/var/lib/dpkg/info/ib-hook.conffiles'"
check "  no ib-hook.conf.dpkg-* file ($(etc_leftovers))" [ -z "$(etc_leftovers)" ]
expect_prefs() { [ "$(rule_prefs)" = "$1" ]; }
check "  postinst applied with the drop-in's Priority (rules at: $(rule_prefs))" expect_prefs 910
n=$(grep -c '^ib[01]: added rule from 172\.16\.34\.' "$tmp/preseed.log")
check "  postinst printed one line per rule it added ($n)" [ "$n" -eq 2 ]
grep '^ib[01]: ' "$tmp/preseed.log" | sed 's/^/# /'
in_system ib-hook --status >"$tmp/status.log" 2>&1
check "  ib-hook --status names both files" \
	grep -q 'config: /etc/ib-hook.conf,/etc/ib-hook.conf.d/50-lab.conf;' "$tmp/status.log"
in_system dpkg -P ib-hook >"$tmp/purge.log" 2>&1
check "  dpkg -P removes the rules and keeps the administrator's files" \
	sh -c "[ -z \"\$(ip -n '$ns' rule show | grep 'from 172.16.34')\" ] && cd '$root' && printf '%s\n' '$sums' | sha256sum --quiet -c -"

# --- 2. upgrade from 0.1.0, its conffile unchanged
fresh
in_system dpkg -i /tmp/old.deb >"$tmp/old.log" 2>&1
check "0.1.0 installed, with its conffile" \
	grep -qx /etc/ib-hook.conf "$root/var/lib/dpkg/info/ib-hook.conffiles"
in_system dpkg -i /tmp/new.deb >"$tmp/upgrade1.log" 2>&1
rc=$?
check "upgrade to $new_version with the conffile unchanged succeeds (exit $rc, $(pkg_status))" \
	[ "$rc" -eq 0 -a "$(pkg_status)" = "install ok installed" ]
check "  the unchanged /etc/ib-hook.conf is gone" [ ! -e "$root/etc/ib-hook.conf" ]
check "  no ib-hook.conf.dpkg-* file ($(etc_leftovers))" [ -z "$(etc_leftovers)" ]
check "  the example is in /usr/share/doc/ib-hook/examples" \
	[ -f "$root/usr/share/doc/ib-hook/examples/ib-hook.conf" ]

# --- 3. upgrade from 0.1.0, its conffile changed
fresh
in_system dpkg -i /tmp/old.deb >"$tmp/old.log" 2>&1
in_system ib-hook --all --remove >/dev/null 2>&1
printf '# changed by the administrator\n[Match]\nName=ib*\n[Routing]\nPriority=900\n' >"$root/etc/ib-hook.conf"
sum=$(cd "$root" && sha256sum etc/ib-hook.conf)
in_system dpkg -i /tmp/new.deb >"$tmp/upgrade2.log" 2>&1
rc=$?
check "upgrade to $new_version with a changed conffile, no terminal, succeeds (exit $rc, $(pkg_status))" \
	[ "$rc" -eq 0 -a "$(pkg_status)" = "install ok installed" ]
check "  /etc/ib-hook.conf is kept as changed" sh -c "cd '$root' && printf '%s\n' '$sum' | sha256sum --quiet -c -"
check "  ... and is no conffile any more" \
	sh -c "! grep -qs '^/etc/ib-hook.conf\$' '$root/var/lib/dpkg/info/ib-hook.conffiles'"
check "  no ib-hook.conf.dpkg-* file ($(etc_leftovers))" [ -z "$(etc_leftovers)" ]
check "  postinst said it kept it" grep -q 'kept your changed /etc/ib-hook.conf' "$tmp/upgrade2.log"
check "  it is still read: the rules are at its Priority ($(rule_prefs))" expect_prefs 900
in_system dpkg -P ib-hook >"$tmp/purge2.log" 2>&1
check "  dpkg -P keeps it" sh -c "cd '$root' && printf '%s\n' '$sum' | sha256sum --quiet -c -"

if [ "$fails" -ne 0 ]; then
	for log in old-preseed preseed status old upgrade1 upgrade2 purge2; do
		[ -s "$tmp/$log.log" ] && { echo "# --- $log.log"; sed 's/^/# /' "$tmp/$log.log"; }
	done
	exit 1
fi
exit 0
