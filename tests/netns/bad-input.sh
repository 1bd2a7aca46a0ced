#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input gets a clear error and changes nothing: a bad config, bad usage,
# an unknown interface, a run without CAP_NET_ADMIN or without root.
. "$(dirname "$0")/common.sh"
t_require setpriv

memserver34 mem
before=$(state mem; sysctls mem ib0; sysctls mem ib1)
unchanged() {
	expect_eq "  nothing changed" "$before" "$(state mem; sysctls mem ib0; sysctls mem ib1)"
}

conf unknown-key <<'CONF'
[Match]
Name=ib0 ib1

[Routing]
Priority=1000
TablBase=1000
CONF
expect_rc "unknown key" 2 ibh mem --config "$T_DIR/unknown-key.conf" --all
expect_eq "  message names file, line and key" \
	"ib-hook: $T_DIR/unknown-key.conf:6: unknown key 'TablBase' in section [Routing]" "$(cat "$T_DIR/err")"
unchanged
conf bad-value <<'CONF'
[Match]
Name=ib0 ib1
[Routing]
MainRoute=sometimes
CONF
expect_rc "bad value, run as a hook" 2 hook mem "$T_DIR/bad-value.conf" IFACE=ib1 STATE=routable
check "  message names the line and key" grep -q "ib-hook.conf:4: MainRoute 'sometimes' is neither 'keep' nor 'delete'" "$T_DIR/err"
unchanged
conf dup-table <<'CONF'
[Tables]
ib0=941
ib0=942
CONF
expect_rc "an interface given two tables" 2 ibh mem --config "$T_DIR/dup-table.conf" --all
check "  message" grep -q "dup-table.conf:3: interface 'ib0' already has table 941" "$T_DIR/err"
unchanged
expect_rc "missing --config file" 2 ibh mem --config "$T_DIR/nonexistent.conf" --all
check "  message" grep -q "nonexistent.conf: cannot open: No such file or directory" "$T_DIR/err"
chmod 0666 "$T_DIR/default.conf"
expect_rc "world-writable config" 2 ibh mem --config "$T_DIR/default.conf" --all
check "  message" grep -q "refusing a configuration file writable by others than root" "$T_DIR/err"
chmod 0644 "$T_DIR/default.conf"
unchanged

expect_rc "unknown option" 2 ibh mem --bogus
expect_eq "  one message that names it, no path" "ib-hook: unknown option: --bogus
Try 'ib-hook --help'." "$(cat "$T_DIR/err")"
expect_rc "option without its value" 2 ibh mem --iface
check "  says so" grep -q "^ib-hook: option needs a value: --iface" "$T_DIR/err"
expect_rc "--all with --iface" 2 ibh mem --all --iface ib0
expect_rc "stray argument" 2 ibh mem ib0
expect_rc "no IFACE and no argument" 2 hook mem "$T_DIR/default.conf"
check "  says what is missing" grep -q "^ib-hook: no interface: give --iface IF or --all" "$T_DIR/err"
for args in "--dry-run" "--remove" "-v"; do
	# shellcheck disable=SC2086
	expect_rc "$args alone" 2 ibh mem $args
	check "  says what is missing, then the hint" \
		sh -c "head -n 1 '$T_DIR/err' | grep -q 'no interface' && tail -n 1 '$T_DIR/err' | grep -q -- '--help'"
done
expect_rc "--status --dry-run" 2 ibh mem --status --dry-run
check "  exclude each other" grep -q "exclude each other" "$T_DIR/err"
expect_rc "--dry-run --status" 2 ibh mem --dry-run --status
check "  the same either way" grep -q "exclude each other" "$T_DIR/err"
expect_rc "--help" 0 ibh mem --help
check "  to stdout" grep -q "^Usage: ib-hook" "$T_DIR/out"
expect_rc "--version" 0 ibh mem --version
check "  prints it" grep -Eq "^ib-hook [0-9]+\.[0-9]+" "$T_DIR/out"

expect_rc "unknown interface by hand" 2 ibh mem --config "$T_DIR/default.conf" --iface ib7
expect_eq "  message" "ib-hook: interface 'ib7' not found" "$(cat "$T_DIR/err")"
# every named interface is checked before anything is changed or printed:
# exit 2 means nothing was changed (issue 20, item 8). restore undoes what a
# failing check may have changed, so that each check stands on its own.
restore() {
	ibh mem --config "$T_DIR/default.conf" --remove --all >/dev/null 2>&1
	for i in ib0 ib1; do
		nsx mem sysctl -qw "net.ipv4.conf.$i.arp_ignore=0" "net.ipv4.conf.$i.arp_announce=0"
	done
}
for first in "--iface ib1 --iface ib7" "--iface ib7 --iface ib1"; do
	for mode in "" --dry-run --status "--status --json" --remove; do
		# shellcheck disable=SC2086
		expect_rc "$mode $first (ib7 missing)" 2 ibh mem --config "$T_DIR/default.conf" $mode $first
		expect_eq "  one line naming it, nothing on stdout" "ib-hook: interface 'ib7' not found" \
			"$(cat "$T_DIR/err" "$T_DIR/out")"
		unchanged
		restore
	done
done
ibh mem --config "$T_DIR/default.conf" --iface ib1 2>/dev/null
applied=$(state mem)
expect_rc "--remove --iface ib1 --iface ib7 after apply" 2 \
	ibh mem --config "$T_DIR/default.conf" --remove --iface ib1 --iface ib7
expect_eq "  removed nothing" "$applied" "$(state mem)"
restore
unchanged
expect_rc "unknown interface from a dispatcher: nothing to do" 0 \
	hook mem "$T_DIR/default.conf" IFACE=ib7 STATE=routable
expect_eq "  silently" "" "$(cat "$T_DIR/err" "$T_DIR/out")"
expect_rc "unmanaged interface from a dispatcher" 0 hook mem "$T_DIR/default.conf" IFACE=pib0 STATE=routable
expect_eq "  silently" "" "$(cat "$T_DIR/err" "$T_DIR/out")"
unchanged

expect_rc "root without CAP_NET_ADMIN" 1 \
	nsx mem setpriv --bounding-set=-net_admin --inh-caps=-net_admin "$IB_HOOK" --config "$T_DIR/default.conf" --iface ib1
check "  says CAP_NET_ADMIN is needed" grep -q "ib1: failed: .*Operation not permitted (ib-hook needs root or CAP_NET_ADMIN)" "$T_DIR/err"
unchanged
expect_rc "an unprivileged user" 1 \
	nsx mem setpriv --reuid=65534 --regid=65534 --clear-groups "$IB_HOOK" --config "$T_DIR/default.conf" --iface ib1
check "  says root is needed" grep -q "needs root or CAP_NET_ADMIN" "$T_DIR/err"
unchanged
expect_rc "an unprivileged user may read --status" 1 \
	nsx mem setpriv --reuid=65534 --regid=65534 --clear-groups "$IB_HOOK" --config "$T_DIR/default.conf" --status
check "  which reports drift" grep -q "verdict: drift" "$T_DIR/out"
done_testing
