#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Where a hook run's messages go when stderr is not a terminal: to the journal
# when its socket answers, with ib-hook's fields; to stderr when there is no
# socket (container, chroot, CI) or the socket refuses them. Each run gets a
# private mount namespace with a tmpfs on /run, so the host's journal is never
# reachable and never written to.
. "$(dirname "$0")/../lib.sh"
t_require

port_host h ib0 172.16.34.1/16 ib1 172.16.34.2/16
ip -n "$(ns h)" addr add fd00:34::1/64 dev ib0 nodad
printf '[Tables]\nib0=941\nib1=942\n' >>"$T_DIR/h.conf"

SOCK=/run/systemd/journal/socket
PYTHON=$(command -v python3)
END=--ib-hook-test-end--

# run MODE IFACE STATE: the hook as networkd-dispatcher runs it for IFACE,
# stdout/stderr into $T_DIR/out and err, with MODE under /run/systemd/journal;
# run MODE - - ARGS...: a person's run with ARGS (no dispatcher variables):
#   none     no socket at all
#   stale    a socket nobody listens on
#   journal  a datagram socket whose datagrams are appended to $T_DIR/journal
run() {
	mode=$1
	shift
	ip netns exec "$(ns h)" sh -c '
		mode=$1 t=$2 etc=$3 bin=$4 sock=$5 python=$6 end=$7 ifc=$8 state=$9
		shift 9
		mount -t tmpfs -o mode=0755 tmpfs /run &&
		mount -t tmpfs -o mode=0755 tmpfs "$etc" &&
		cp "$t/h.conf" "$etc/ib-hook.conf" || exit 90
		mkdir -p "${sock%/*}"
		case $mode in
		stale)
			"$python" -c "import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).bind(sys.argv[1])" "$sock" ;;
		journal)
			# the receiver says on a FIFO that it is bound, and ends at the
			# datagram $end, sent after the run: every datagram of the
			# run is queued before it, so all are written when it exits
			rm -f "$t/bound"
			mkfifo "$t/bound" || exit 90
			timeout 30 "$python" -c "
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
open(sys.argv[3], \"w\").close()
with open(sys.argv[2], \"ab\") as f:
    while True:
        m = s.recv(1 << 20)
        if m == sys.argv[4].encode():
            break
        f.write(m + b\"\\n\\n\")
" "$sock" "$t/journal" "$t/bound" "$end" &
			timeout 10 cat "$t/bound" >/dev/null || exit 90 ;;
		esac
		if [ $# -gt 0 ]; then
			env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$bin" "$@" >"$t/out" 2>"$t/err"
		else
			env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin IFACE="$ifc" STATE="$state" \
				OperationalState="$state" AdministrativeState=configured \
				"$bin" >"$t/out" 2>"$t/err"
		fi
		rc=$?
		if [ "$mode" = journal ]; then
			"$python" -c "
import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(sys.argv[2].encode(), sys.argv[1])
" "$sock" "$end" && wait "$!" || exit 91
		fi
		exit $rc
	' run "$mode" "$T_DIR" "$IB_HOOK_SYSCONFDIR" "$IB_HOOK" "$SOCK" "$PYTHON" "$END" "$@"
}

[ -d "$IB_HOOK_SYSCONFDIR" ] || skip "no $IB_HOOK_SYSCONFDIR to mount the test config on"

# no socket: every change is a line on stderr, naming the interface
run none ib0 routable
expect_eq "no journal: apply exits 0" 0 $?
check "no journal: nothing on stdout" test ! -s "$T_DIR/out"
for what in 'added rule from 172.16.34.1 ' 'added rule from fd00:34::1 ' \
	'.*route 172.16.0.0/16' '.*route fd00:34::/64'; do
	check "no journal: stderr reports '$what'" grep -q "^ib0: $what" "$T_DIR/err"
done
expect_eq "no journal: every stderr line is about ib0" "" "$(grep -v '^ib0: ' "$T_DIR/err")"
expect_eq "no journal: one line per change, each once" "" "$(sort "$T_DIR/err" | uniq -d)"
run none ib0 routable
expect_eq "no journal: a second run exits 0" 0 $?
check "no journal: a second run says nothing" test ! -s "$T_DIR/err" -a ! -s "$T_DIR/out"
run none ib0 off
expect_eq "no journal: remove exits 0" 0 $?
check "no journal: stderr reports the removed rule" \
	grep -q '^ib0: deleted rule from 172.16.34.1 ' "$T_DIR/err"

run stale ib0 routable
expect_eq "refusing journal: apply exits 0" 0 $?
check "refusing journal: the changes still reach stderr" \
	grep -q '^ib0: added rule from 172.16.34.1 ' "$T_DIR/err"

if ! ldconfig -p | grep -q 'libsystemd\.so\.0 '; then
	echo "# no libsystemd.so.0 to send with: the journal fields are not checked"
else
	run journal ib1 routable
	expect_eq "journal: apply exits 0" 0 $?
	check "journal: nothing on stderr" test ! -s "$T_DIR/err"
	for f in SYSLOG_IDENTIFIER=ib-hook INTERFACE=ib1 IB_HOOK_ACTION=apply IB_HOOK_TABLE=942 \
		'PRIORITY=[0-7]' 'MESSAGE=ib1: added rule from 172.16.34.2 '; do
		check "journal: a message carries $f" grep -q "^$f" "$T_DIR/journal"
	done
	expect_eq "journal: every message is about ib1" "" \
		"$(grep '^INTERFACE=' "$T_DIR/journal" | grep -v '^INTERFACE=ib1$')"
	: >"$T_DIR/journal"
	run journal ib1 off
	check "journal: remove is IB_HOOK_ACTION=remove" \
		grep -q '^IB_HOOK_ACTION=remove$' "$T_DIR/journal"
	check "journal: remove says nothing on stderr" test ! -s "$T_DIR/err"

	# A person's run (ssh, Ansible, postinst: stderr is a pipe here) reports
	# every change on stderr and leaves the same lines in the journal.
	: >"$T_DIR/journal"
	run journal - - --iface ib1
	expect_eq "by hand, piped: apply exits 0" 0 $?
	check "by hand, piped: stderr reports the added rule" \
		grep -q '^ib1: added rule from 172.16.34.2 ' "$T_DIR/err"
	check "by hand, piped: the journal has it too" \
		grep -q '^MESSAGE=ib1: added rule from 172.16.34.2 ' "$T_DIR/journal"
	run journal - - --iface ib1
	check "by hand, piped: a second run says nothing" test ! -s "$T_DIR/err" -a ! -s "$T_DIR/out"
	: >"$T_DIR/journal"
	run journal - - --remove --iface ib1
	check "by hand, piped: --remove reports on stderr" \
		grep -q '^ib1: deleted rule from 172.16.34.2 ' "$T_DIR/err"
	check "by hand, piped: ... and the journal has it too" \
		grep -q '^MESSAGE=ib1: deleted rule from 172.16.34.2 ' "$T_DIR/journal"
	# --status and --dry-run are read-only: stdout only, nothing to the journal
	: >"$T_DIR/journal"
	run journal - - --dry-run --iface ib1
	check "--dry-run: the commands on stdout" grep -q '^ip rule add from 172.16.34.2 ' "$T_DIR/out"
	run journal - - --status --iface ib1
	check "--status and --dry-run log nothing to the journal" test ! -s "$T_DIR/journal"
fi

done_testing
