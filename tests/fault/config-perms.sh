#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ib-hook runs as root from dispatchers, so whoever can write its config owns
# the host: a config file not owned by root, or writable by group or others,
# is refused with exit 2 and a message naming the file, owner and mode, and
# nothing changes. Neither a directory nor a FIFO is taken for a config file,
# and neither makes ib-hook hang; a file over 1 MiB is refused.
. "$(dirname "$0")/../lib.sh"
t_require timeout

port_host h ib0 172.16.34.1/16
hn=$(ns h)
before=$(state h)
cfg=$T_DIR/h.conf
refused="refusing a configuration file writable by others than root"

# apply NS CONF: one apply by hand, bounded in time
apply() {
	timeout 5 ip netns exec "$(ns "$1")" "$IB_HOOK" --config "$2" --iface ib0
}

for mode in 0664 0646 0666 0660 0602; do
	chmod "$mode" "$cfg"
	expect_rc "config mode $mode" 2 apply h "$cfg"
	check "  says why, naming file, owner and mode" \
		grep -qF "$cfg: $refused (owner 0, mode $mode)" "$T_DIR/err"
	expect_eq "  changed nothing" "$before" "$(state h)"
done

chmod 0644 "$cfg"
chown 65534 "$cfg"
expect_rc "config owned by uid 65534" 2 apply h "$cfg"
check "  says why, naming the owner" grep -qF "$cfg: $refused (owner 65534, mode 0644)" "$T_DIR/err"
expect_eq "  changed nothing" "$before" "$(state h)"

ln -s "$cfg" "$T_DIR/link.conf"
expect_rc "a symlink to that file" 2 apply h "$T_DIR/link.conf"
check "  is judged by the file it points to" grep -qF "(owner 65534, mode 0644)" "$T_DIR/err"
chown 0 "$cfg"

chmod 0664 "$cfg"
expect_rc "group-writable installed config, run by networkd-dispatcher" 2 sh -c '
	ip netns exec "$1" sh -c "
		mount -t tmpfs -o mode=0755 tmpfs \"\$2\" || exit 90
		cp -p \"\$1\" \"\$2/ib-hook.conf\"
		[ -d /run/systemd/journal ] && mount -t tmpfs tmpfs /run/systemd/journal
		exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin IFACE=ib0 STATE=routable \"\$3\"
	" hook "$2" "$3" "$4"' sh "$hn" "$cfg" "$IB_HOOK_SYSCONFDIR" "$IB_HOOK"
check "  names the installed file" \
	grep -qF "$IB_HOOK_SYSCONFDIR/ib-hook.conf: $refused (owner 0, mode 0664)" "$T_DIR/err"
expect_eq "  changed nothing" "$before" "$(state h)"

mkdir -m 0755 "$T_DIR/dir.conf"
expect_rc "a directory as config" 2 apply h "$T_DIR/dir.conf"
check "  is not a regular file" grep -qF "$T_DIR/dir.conf: not a regular file" "$T_DIR/err"

# config_load() opens with O_NONBLOCK: without it open(2) of a FIFO blocks
# until a writer comes and ib-hook hangs (issue 7; timeout then exits 124)
mkfifo -m 0644 "$T_DIR/fifo.conf"
expect_rc "a FIFO as config: refused at once, no hang" 2 apply h "$T_DIR/fifo.conf"
check "  is not a regular file" grep -qF "$T_DIR/fifo.conf: not a regular file" "$T_DIR/err"

# at most 1 MiB: a larger file is refused before it is read
big=$T_DIR/big.conf
{
	cat "$cfg"
	yes '#' | head -c $((1024 * 1024 + 1 - $(stat -c %s "$cfg")))
} >"$big"
chmod 0644 "$big"
expect_rc "a config of 1 MiB + 1 byte: refused" 2 apply h "$big"
check "  says why, naming the file" grep -qF "$big: larger than 1048576 bytes" "$T_DIR/err"

expect_rc "a missing --config" 2 apply h "$T_DIR/missing.conf"
check "  names the file" grep -qF "$T_DIR/missing.conf: cannot open: No such file or directory" "$T_DIR/err"
expect_eq "nothing changed by any refused run" "$before" "$(state h)"

for mode in 0644 0600 0640 0444; do
	chmod "$mode" "$cfg"
	expect_rc "config root-owned, mode $mode: accepted" 0 apply h "$cfg"
	ibh h --config "$cfg" --remove --iface ib0 >/dev/null 2>&1
done
truncate -s $((1024 * 1024)) "$big"
expect_rc "a config of exactly 1 MiB: accepted" 0 apply h "$big"
check "  and applied" test "$(rules_from h 172.16.34.1)" = 1
done_testing
