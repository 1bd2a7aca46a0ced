#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# CI: end-to-end test of the ib-hook package on a booted ifupdown host with
# the watcher (issue 13). Needs root. The root is cached under
# /var/cache/ib-hook-ci by tests/e2e/root.sh (under a minute cold); the test
# takes well under a minute warm.
#
#   .ci/e2e-ifupdown.sh [PATH-TO-DEB]
#
# Without an argument the .deb is built as .ci/e2e.sh builds it (.ci/lib.sh's
# build_deb: the release .deb, built in a Debian 11 root). The test prints its own
# "PASS: e2e-ifupdown: ..." / "FAIL: ..." lines.
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/.ci/lib.sh"
e2e_cell "$srcdir" e2e-ifupdown ifupdown.sh 300 "${1:-}"
