#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# install-links.sh TARGET NAME DIR...: link DESTDIR/PREFIX-relative DIR/NAME to TARGET.
set -eu
target=$1
name=$2
shift 2
prefix=${MESON_INSTALL_PREFIX:-/usr}
for dir; do
	case $dir in
	/*) ;;
	*) dir=$prefix/$dir ;;
	esac
	dest=${DESTDIR:-}$dir
	install -d -m 0755 "$dest"
	ln -sfn "$target" "$dest/$name"
	echo "Installing symlink $dir/$name -> $target"
done
