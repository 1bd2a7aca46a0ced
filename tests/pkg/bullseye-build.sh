#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bullseye-build.sh [SRCDIR]: build the package, unit tests included, in a
# throwaway Debian 11 root (libnl 3.4, meson 0.56, systemd 247, debhelper
# 13.3), which stands in for the older Ubuntu LTS releases lab machines run.
# SRCDIR defaults to this source tree; a clean copy of it is built.
#
# Needs root and mmdebstrap. The root comes from the host's apt mirrors
# (read at run time) and is removed at exit; nothing is cached.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "bullseye-build.sh: needs root (mmdebstrap, chroot)" >&2
	exit 77
fi
if ! command -v mmdebstrap >/dev/null; then
	echo "bullseye-build.sh: mmdebstrap is missing" >&2
	exit 77
fi
src=$(cd "${1:-$here/../..}" && pwd)

tmp=$(mktemp -d /tmp/ib-hook-bullseye.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

export_tree "$src" "$tmp/ib-hook" || { not_ok "copy the source tree"; exit 1; }
tar -C "$tmp" -cf "$tmp/src.tar" ib-hook
mirror_lines bullseye >"$tmp/sources.list" || { not_ok "host has an apt mirror configured"; exit 1; }

# The build runs as an unprivileged user, as on a buildd: the unit tests
# must not need root. apt-get build-dep reads debian/control, so the
# Build-Depends (test tools included) are installed as declared.
cat >"$tmp/build.sh" <<'EOF'
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get -q -y build-dep /build/ib-hook
chown -R builder: /build
cd /build/ib-hook
runuser -u builder -- dpkg-buildpackage -us -uc -b
EOF

echo "# building in a Debian 11 (bullseye) root"
mmdebstrap --variant=buildd --include=passwd,util-linux bullseye "$tmp/root" "$tmp/sources.list" \
	--customize-hook='chroot "$1" useradd --create-home builder' \
	--customize-hook='mkdir -p "$1/build" && tar -C "$1/build" -xf '"$tmp/src.tar" \
	--customize-hook="cp $tmp/build.sh \"\$1/build/build.sh\"" \
	--customize-hook='chroot "$1" sh /build/build.sh' \
	</dev/null >"$tmp/build.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
	ok "package builds in Debian 11 (bullseye) with its unit tests"
else
	tail -n 60 "$tmp/build.log" | sed 's/^/# /'
	not_ok "package builds in Debian 11 (bullseye) with its unit tests (exit $rc)"
fi

# meson test prints a summary; make sure the unit suite really ran.
passed=$(sed -n 's/^Ok:[[:space:]]*\([0-9]*\).*/\1/p' "$tmp/build.log" | tail -n 1)
failed=$(sed -n 's/^Fail:[[:space:]]*\([0-9]*\).*/\1/p' "$tmp/build.log" | tail -n 1)
check "unit tests ran in bullseye (${passed:-0} ok, ${failed:-?} failed)" \
	[ "${passed:-0}" -gt 0 -a "${failed:-1}" -eq 0 ]
versions=$(grep -E '^(Setting up|Unpacking) (libnl-3-dev|meson|libsystemd-dev|debhelper)[: ]' "$tmp/build.log" |
	sed -E 's/^Unpacking ([^ ]*) \(([^)]*)\).*/\1 \2/' | grep -v '^Setting' | tr '\n' ' ')
[ -n "$versions" ] && echo "# with $versions"

[ "$fails" -eq 0 ]
