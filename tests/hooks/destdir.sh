#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The hook points `meson install --destdir` lays down: one link named ib-hook
# (run-parts skips names with dots) per hook directory, to the installed
# binary, and owned and moded as networkd-dispatcher demands (it runs only a
# root:root target that nobody else can write, in such a directory), and
# NetworkManager's entry usr/lib/NetworkManager/dispatcher.d/90-ib-hook, which
# must pass nm-dispatcher's checks: it stat()s through the link and runs only
# a non-empty regular file owned by root, executable by root, neither group-
# nor world-writable nor set-UID, whose name does not start with a dot. Each
# family of hooks can be switched off.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root: the installed files must be root:root"
command -v meson >/dev/null || skip "needs meson"
command -v ninja >/dev/null || skip "needs ninja"
. "$(dirname "$0")/stage.sh"

ND_DIRS="etc/networkd-dispatcher/routable.d etc/networkd-dispatcher/configured.d
etc/networkd-dispatcher/off.d etc/networkd-dispatcher/no-carrier.d"
IFUPDOWN_DIRS="etc/network/if-up.d etc/network/if-post-down.d"
BIN=usr/sbin/ib-hook
NM_DIR=usr/lib/NetworkManager/dispatcher.d
# the CNI plugin (meson option cni_plugin_dir, Debian's lib/cni)
CNI_PLUGIN=usr/lib/cni/ib-hook
NM_ENTRY=$NM_DIR/90-ib-hook

# nm_entry DEST: the NetworkManager entry, as nm-dispatcher's find_scripts() checks it
nm_entry() {
	local dest=$1
	expect_eq "$NM_DIR holds only 90-ib-hook" 90-ib-hook "$(ls -A "$dest/$NM_DIR" 2>&1 | xargs)"
	expect_eq "$NM_ENTRY links to /$BIN" "/$BIN" "$(readlink "$dest/$NM_ENTRY")"
	check "$NM_ENTRY resolves to the installed binary" \
		test "$dest$(readlink "$dest/$NM_ENTRY")" -ef "$dest/$BIN"
	# stat() follows the link: what NetworkManager sees is the binary's inode
	expect_eq "through the link: a non-empty regular file owned by root" "regular file 0" \
		"$(stat -L -c '%F %u' "$dest/$BIN")"
	check "through the link: not empty" test -s "$dest/$BIN"
	check "through the link: executable by root, not group/world-writable, not set-UID" \
		test "$(( 0$(stat -L -c '%a' "$dest/$BIN") & 04122 ))" = "$(( 0100 ))"
	expect_eq "$NM_DIR is 0755 root:root" "755 0:0" "$(stat -c '%a %u:%g' "$dest/$NM_DIR")"
}

# links DEST DIR...: every DIR holds exactly a link ib-hook to the installed binary
links() {
	local dest=$1 dir
	shift
	for dir; do
		expect_eq "$dir holds only ib-hook" ib-hook "$(ls -A "$dest/$dir" 2>&1 | xargs)"
		expect_eq "$dir/ib-hook links to /$BIN" "/$BIN" "$(readlink "$dest/$dir/ib-hook")"
		check "$dir/ib-hook resolves to the installed binary" \
			test "$dest$(readlink "$dest/$dir/ib-hook")" -ef "$dest/$BIN"
		expect_eq "$dir is 0755 root:root" "755 0:0" "$(stat -c '%a %u:%g' "$dest/$dir")"
	done
}

# none DEST DIR...: no DIR was installed
none() {
	local dest=$1 dir
	shift
	for dir; do
		check "no $dir" test ! -e "$dest/$dir"
	done
}

if ! stage "$T_DIR/build" "$T_DIR/all"; then
	echo "not ok - building and installing with --prefix=/usr --sysconfdir=/etc"
	exit 1
fi
D=$T_DIR/all
links "$D" $ND_DIRS $IFUPDOWN_DIRS
expect_eq "every hook link is named ib-hook" \
	"$(echo "$ND_DIRS $IFUPDOWN_DIRS" | xargs -n1 | sed 's|$|/ib-hook|' | sort)" \
	"$(cd "$D" && find etc -type l | sort)"
nm_entry "$D"
expect_eq "the only links under usr are NetworkManager's entry and the CNI plugin" \
	"$(printf '%s\n' "$NM_ENTRY" "$CNI_PLUGIN" | sort)" "$(cd "$D" && find usr -type l | sort)"
expect_eq "$CNI_PLUGIN links to /$BIN" "/$BIN" "$(readlink "$D/$CNI_PLUGIN")"
check "no name in a hook directory has a dot" \
	test -z "$(cd "$D" && find etc/networkd-dispatcher etc/network -mindepth 2 -name '*.*')"
expect_eq "the binary is 0755 root:root" "755 0:0" "$(stat -c '%a %u:%g' "$D/$BIN")"
expect_eq "its directory is 0755 root:root" "755 0:0" "$(stat -c '%a %u:%g' "$D/${BIN%/*}")"
check "the installed binary runs" sh -c "'$D/$BIN' --version | grep -q '^ib-hook '"

# a second install over the first changes nothing
stage "$T_DIR/build" "$D" || not_ok "installing a second time"
links "$D" etc/network/if-up.d
nm_entry "$D"

stage "$T_DIR/build" "$T_DIR/no-nm" -Dnetworkmanager_hooks=false ||
	not_ok "installing with -Dnetworkmanager_hooks=false"
check "no usr/lib/NetworkManager" test ! -e "$T_DIR/no-nm/usr/lib/NetworkManager"
links "$T_DIR/no-nm" $ND_DIRS $IFUPDOWN_DIRS

stage "$T_DIR/build" "$T_DIR/no-nd" -Dnetworkmanager_hooks=true -Dnetworkd_dispatcher_hooks=false ||
	not_ok "installing with -Dnetworkd_dispatcher_hooks=false"
none "$T_DIR/no-nd" etc/networkd-dispatcher
links "$T_DIR/no-nd" $IFUPDOWN_DIRS

stage "$T_DIR/build" "$T_DIR/no-ifupdown" -Dnetworkd_dispatcher_hooks=true \
	-Difupdown_hooks=false || not_ok "installing with -Difupdown_hooks=false"
none "$T_DIR/no-ifupdown" etc/network
links "$T_DIR/no-ifupdown" $ND_DIRS

nm_entry "$T_DIR/no-ifupdown"

stage "$T_DIR/build" "$T_DIR/no-hooks" -Dnetworkd_dispatcher_hooks=false \
	-Dnetworkmanager_hooks=false || not_ok "installing with every family off"
none "$T_DIR/no-hooks" etc/networkd-dispatcher etc/network usr/lib/NetworkManager
check "with every family off the binary is still installed" test -x "$T_DIR/no-hooks/$BIN"

done_testing
