#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: end-to-end test of the ib-hook package on a booted Debian 12 host whose
# ports netplan configures (issue 44: the seed lab's stack), in one subnet and
# in routed rails, and with the site's own netplan routes and rules in the
# tables ib-hook would pick (tests/e2e/netplan.sh). Needs root. Its root is
# tests/e2e/root.sh's netplan root: the networkd root (.ci/e2e.sh's) with
# netplan.io and udev installed into it, both cached under
# /var/cache/ib-hook-ci; doc/tests.md has the step's time cold and warm.
#
#   .ci/e2e-netplan.sh [PATH-TO-DEB]
#
# Without an argument the .deb is built as .ci/e2e.sh builds it (.ci/lib.sh's
# build_deb: the release .deb, built in a Debian 11 root). The test prints its
# own "PASS: e2e-netplan: ..." / "FAIL: ..." lines.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/.ci/lib.sh"
e2e_cell "$srcdir" e2e-netplan netplan.sh 720 "${1:-}"
