#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The hook points `meson install --destdir` lays down: one link named ib-hook
# (run-parts skips names with dots) per hook directory, to the installed
# binary, and owned and moded as networkd-dispatcher demands (it runs only a
# root:root target that nobody else can write, in such a directory). Each
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
check "no name in a hook directory has a dot" \
	test -z "$(cd "$D" && find etc/networkd-dispatcher etc/network -mindepth 2 -name '*.*')"
expect_eq "the binary is 0755 root:root" "755 0:0" "$(stat -c '%a %u:%g' "$D/$BIN")"
expect_eq "its directory is 0755 root:root" "755 0:0" "$(stat -c '%a %u:%g' "$D/${BIN%/*}")"
check "the installed binary runs" sh -c "'$D/$BIN' --version | grep -q '^ib-hook '"

# a second install over the first changes nothing
stage "$T_DIR/build" "$D" || not_ok "installing a second time"
links "$D" etc/network/if-up.d

stage "$T_DIR/build" "$T_DIR/no-nd" -Dnetworkd_dispatcher_hooks=false ||
	not_ok "installing with -Dnetworkd_dispatcher_hooks=false"
none "$T_DIR/no-nd" etc/networkd-dispatcher
links "$T_DIR/no-nd" $IFUPDOWN_DIRS

stage "$T_DIR/build" "$T_DIR/no-ifupdown" -Dnetworkd_dispatcher_hooks=true \
	-Difupdown_hooks=false || not_ok "installing with -Difupdown_hooks=false"
none "$T_DIR/no-ifupdown" etc/network
links "$T_DIR/no-ifupdown" $ND_DIRS

stage "$T_DIR/build" "$T_DIR/no-hooks" -Dnetworkd_dispatcher_hooks=false ||
	not_ok "installing with both families off"
none "$T_DIR/no-hooks" etc/networkd-dispatcher etc/network
check "with both off the binary is still installed" test -x "$T_DIR/no-hooks/$BIN"

done_testing
