# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by tests/e2e/ifupdown.sh and tests/e2e/netplan.sh, the booted-host
# cells that print CI's lines themselves, each named by CELL (e2e-ifupdown):
# check DESCRIPTION COMMAND... prints "PASS: CELL: DESCRIPTION", or "FAIL:
# CELL: DESCRIPTION: REASON" and counts it in FAILS; "# ..." lines are
# diagnostics.

FAILS=0
REASON=
skip() { echo "SKIP: $CELL: $*" >&2; exit 77; }
pass() { echo "PASS: $CELL: $*"; }
fail() { FAILS=$((FAILS + 1)); echo "FAIL: $CELL: $*"; }
diag() { sed 's/^/#   /'; }
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d${REASON:+: $REASON}"; fi; REASON=; }

# cell_begin TOOL...: root and every TOOL, else the cell is skipped; DEB
# exists, made absolute
cell_begin() {
	local t
	[ "$(id -u)" = 0 ] || skip "must run as root"
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip "'$t' is missing"
	done
	[ -f "$DEB" ] || { echo "FAIL: $CELL: no .deb '$DEB'"; exit 1; }
	DEB=$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")
}

# host_state: the host's rules, and its links named like the cells' ports
# (other jobs may add and remove links of their own meanwhile)
host_state() {
	ip -4 rule show
	ip -6 rule show
	ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^ib[01]p?$'
}
