#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# "Running a lab": doc/lab.md's per-host status line, the LBNL NHC check
# (contrib/nhc/ib-hook.nhc) and the node_exporter textfile script
# (contrib/node-exporter/ib-hook-textfile), run against real
# `ib-hook --status --json` output of memserver34 never applied, applied,
# with a port down, with leftovers, with no port, and with a configuration
# --status refuses or an ib-hook that gives no verdict: both fail closed.
# (The alerting rules, contrib/node-exporter/ib-hook.rules.yml: tests/fleet/alert-rules.sh.)
. "$(dirname "$0")/common.sh"
t_require jq

readme=$IB_HOOK_SOURCE_ROOT/doc/lab.md
contrib=$IB_HOOK_SOURCE_ROOT/contrib
# snippet NAME: the ```sh block after <!-- lab-test: NAME --> in doc/lab.md
snippet() {
	awk -v m="<!-- lab-test: $1 -->" '
		$0 == m { f = 1; next }
		f && /^```sh$/ { g = 1; next }
		g && /^```$/ { exit }
		g { print }' "$readme"
}
[ -n "$(snippet ports)" ] || { not_ok "doc/lab.md has the 'ports' snippet"; done_testing; }
for f in nhc/ib-hook.nhc node-exporter/ib-hook-textfile; do
	[ -s "$contrib/$f" ] || { not_ok "contrib/$f is there"; done_testing; }
done

memserver34 mem
cp "$T_DIR/default.conf" "$T_DIR/lab.conf"
mkdir -p "$T_DIR/bin" "$T_DIR/prom"
# ib-hook as the snippets find it on PATH, in the namespace, with the test's config
printf '#!/bin/sh\nexec "%s" --config "%s" "$@"\n' "$IB_HOOK" "$T_DIR/lab.conf" >"$T_DIR/bin/ib-hook"
chmod 0755 "$T_DIR/bin/ib-hook"

# run NAME: the snippet in the namespace; NHC's die() prints "die CODE MESSAGE"
run() {
	case $1 in
	nhc) code="die() { echo \"die \$1 \$2\"; return \$1; }
$(cat "$contrib/nhc/ib-hook.nhc")
check_ib_hook" ;;
	metric) code="IB_HOOK_TEXTFILE_DIR=$T_DIR/prom sh $contrib/node-exporter/ib-hook-textfile" ;;
	*) code=$(snippet "$1") ;;
	esac
	nsx mem env PATH="$T_DIR/bin:$PATH" bash -c "$code"
}
metric() { # metric: the textfile the metric snippet wrote
	cat "$T_DIR/prom/ib-hook.prom"
}

# --- never applied: both ports drift
lines=$(run ports)
expect_eq "never applied: one line per port, drift" "ib0	drift
ib1	drift" "$(printf '%s\n' "$lines" | cut -f1-2 | sort)"
check "  each with its reason" sh -c '! printf "%s\n" "$1" | cut -f3 | grep -qx ""' - "$lines"
printf '%s\n' "$lines" | sed 's/^/# /'
out=$(run nhc)
check "never applied: NHC dies naming both ports ($out)" \
	sh -c 'case "$1" in "die 1 ib-hook: "*ib0\ drift*) case "$1" in *ib1\ drift*) exit 0;; esac;; esac; exit 1' - "$out"
run metric
expect_eq "never applied: the metric is 0 for both" \
	'ib_hook_port_ok{interface="ib0",verdict="drift"} 0
ib_hook_port_ok{interface="ib1",verdict="drift"} 0' "$(metric | grep '^ib_hook_port_ok' | sort)"

# --- applied
ibh mem --config "$T_DIR/lab.conf" --all 2>/dev/null
expect_eq "applied: both ok" "ib0	ok
ib1	ok" "$(run ports | cut -f1-2 | sort)"
out=$(run nhc)
rc=$?
expect_eq "applied: NHC passes silently (exit $rc)" "0:" "$rc:$out"
run metric
expect_eq "applied: the metric script exits 0" 0 "$?"
expect_eq "applied: the metric is 1 for both, no leftovers, ib-hook answered" \
	'ib_hook_leftovers 0
ib_hook_port_ok{interface="ib0",verdict="ok"} 1
ib_hook_port_ok{interface="ib1",verdict="ok"} 1
ib_hook_up 1' "$(metric | grep -v '^#' | sort)"
check "the metric file has HELP and TYPE for its three metrics" \
	sh -c '[ "$(grep -c "^# \(HELP\|TYPE\) ib_hook_" "$1")" = 6 ]' - "$T_DIR/prom/ib-hook.prom"
check "the metric snippet left no temporary file" test ! -e "$T_DIR/prom/ib-hook.prom.tmp"

# --- a port that is down is not an error
ip -n "$(ns mem)" link set ib1 down
expect_eq "ib1 down: its line says down" "ib1	down" "$(run ports | cut -f1-2 | grep '^ib1')"
out=$(run nhc)
rc=$?
expect_eq "ib1 down: NHC passes (exit $rc)" "0:" "$rc:$out"
run metric
check "ib1 down: the metric is 1" grep -qx 'ib_hook_port_ok{interface="ib1",verdict="down"} 1' "$T_DIR/prom/ib-hook.prom"
ip -n "$(ns mem)" link set ib1 up
ibh mem --config "$T_DIR/lab.conf" --all 2>/dev/null

# --- leftovers of an earlier configuration
printf '[Match]\nName=ib0 ib1\n[Routing]\nPriority=900\n' >"$T_DIR/lab.conf"
out=$(run nhc)
check "Priority changed, not applied: NHC names the leftovers ($out)" \
	sh -c 'case "$1" in "die 1 ib-hook: "*"2 leftover(s)"*) exit 0;; esac; exit 1' - "$out"
run metric
check "  the metric counts them" grep -qx 'ib_hook_leftovers 2' "$T_DIR/prom/ib-hook.prom"

# --- no managed port (the driver did not load, say)
printf '[Match]\nName=mlx*\n' >"$T_DIR/lab.conf"
expect_eq "no managed port: no line" "" "$(run ports)"
out=$(run nhc)
expect_eq "no managed port: NHC dies saying so" "die 1 ib-hook: no managed interface" "$out"

# --- ib-hook gives no verdict: both fail closed (issue 29, items 11 and 12)
# broken NAME: NHC and the metric script, with the state of NAME
broken() {
	local out rc
	out=$(run nhc)
	rc=$?
	check "$1: NHC dies ($rc: $out)" \
		sh -c 'case "$1" in "1:die 1 ib-hook: ib-hook --status"*) exit 0;; esac; exit 1' - "$rc:$out"
	run metric 2>"$T_DIR/metric.err"
	rc=$?
	expect_eq "$1: the metric script exits 1" 1 "$rc"
	check "  and says why on stderr" grep -q "^ib-hook-textfile: .*run it by hand" "$T_DIR/metric.err"
	expect_eq "  the metric file says ib_hook_up 0 and nothing else" "ib_hook_up 0" "$(metric | grep -v '^#')"
	check "  it left no temporary file" test ! -e "$T_DIR/prom/ib-hook.prom.tmp"
}
printf '[Match]\nName=ib0 ib1\n' >"$T_DIR/lab.conf"
run metric >/dev/null
expect_eq "configuration fixed: ib_hook_up 1 again" 1 "$(metric | sed -n 's/^ib_hook_up //p')"
printf '[Routing]\nMainRoute=delet\n' >>"$T_DIR/lab.conf"
expect_rc "a typo in the configuration: --status exits 2" 2 ibh mem --config "$T_DIR/lab.conf" --status --json
expect_eq "  with nothing on stdout" "" "$(cat "$T_DIR/out")"
broken "a typo in the configuration"
printf '[Match]\nName=ib0 ib1\n' >"$T_DIR/lab.conf"
# an ib-hook that exits 0 or 1 without its JSON (a wrapper, a broken install)
printf '#!/bin/sh\nexit 0\n' >"$T_DIR/bin/ib-hook"
broken "ib-hook exits 0 with no output"
printf '#!/bin/sh\necho "{\\"interfaces\\": []}"\nexit 1\n' >"$T_DIR/bin/ib-hook"
broken "ib-hook exits 1 with JSON that has no verdict"

done_testing
