#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# install-links.sh TARGET DIR...: link DESTDIR/PREFIX-relative DIR/ib-hook to TARGET.
set -eu
target=$1
shift
prefix=${MESON_INSTALL_PREFIX:-/usr}
for dir; do
	case $dir in
	/*) ;;
	*) dir=$prefix/$dir ;;
	esac
	dest=${DESTDIR:-}$dir
	install -d -m 0755 "$dest"
	ln -sfn "$target" "$dest/ib-hook"
	echo "Installing symlink $dir/ib-hook -> $target"
done
