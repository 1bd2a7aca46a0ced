# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the hooks tests after ../lib.sh: a build configured as the
# package configures it, installed into a staging tree with DESTDIR (meson
# 0.53's way: `meson install --destdir` came with 0.57). The tests never
# install into the real root.

SRC=${IB_HOOK_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}

# stage BUILD DESTDIR [MESON-OPTION...]: (re)configure BUILD, install into DESTDIR
stage() {
	local build=$1 dest=$2
	shift 2
	{
		if [ -d "$build/meson-private" ]; then
			meson configure "$build" "$@"
		else
			meson setup --prefix=/usr --sysconfdir=/etc -Dtests=false "$@" "$build" "$SRC"
		fi &&
			ninja -C "$build" &&
			DESTDIR=$dest meson install -C "$build"
	} >"$build.log" 2>&1 && return 0
	sed 's/^/# /' "$build.log" | tail -30
	return 1
}
