#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The record is not a regular file of sane size (issue 20, item 5): a
# directory, a FIFO, a link to /dev/zero, a character device, a socket, a
# file larger than the bound. No run may hang on it (apply would hold the
# host-wide lock while it did) or read it for ever: each run says in one
# line what it is and reads it as absent, which adopts only what apply would
# install. Apply then writes a regular record over it, except over a
# directory, which rename(2) cannot replace: exit 1, nothing changed. A
# directory of this test stands in for /run (bind-mounted in a mount
# namespace of each run's own), so the host's record and lock are never
# touched, and every run is killed after 5 s.
. "$(dirname "$0")/../lib.sh"
t_require timeout mkfifo mknod

port_host h ib0 172.16.34.1/16 ib1 172.16.34.2/16
hn=$(ns h)
run_dir=$T_DIR/run
mkdir -m 0755 "$run_dir"
C=(--config "$T_DIR/h.conf")

# inrun CMD...: CMD in h with $run_dir as /run, killed after 5 s (exit 124)
inrun() {
	ip netns exec "$hn" sh -c 'mount --bind "$1" /run || exit 90; shift; exec timeout -k 1 5 "$@"' \
		inrun "$run_dir" "$@"
}

expect_rc "apply" 0 inrun "$IB_HOOK" "${C[@]}" --all
inrun "$IB_HOOK" "${C[@]}" --status >"$T_DIR/out"
rec=$(sed -n 's/.*; record: \([^ ]*\) .*/\1/p' "$T_DIR/out")
host_rec=$run_dir${rec#/run}
check "the record is a regular file under the stand-in /run" test -f "$host_rec" -a ! -L "$host_rec"
cp "$host_rec" "$T_DIR/saved"
applied=$(state h)

# damage KIND: the record replaced by a KIND
damage() {
	rm -rf "$host_rec"
	case $1 in
	directory) mkdir "$host_rec" ;;
	FIFO) mkfifo "$host_rec" ;;
	"symbolic link") ln -s /dev/zero "$host_rec" ;;
	"character device") mknod "$host_rec" c 1 5 ;;
	socket) python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$host_rec" ;;
	big)
		# valid lines, one byte more than the bound (16 MiB)
		line=$(grep '^rule ' "$T_DIR/saved" | head -n 1)
		{
			cat "$T_DIR/saved"
			yes "$line" | head -c $((16 * 1024 * 1024 - $(wc -c <"$T_DIR/saved") + 1))
		} >"$host_rec"
		;;
	esac
}

kinds=(directory FIFO "symbolic link" "character device" big socket)
for kind in "${kinds[@]}"; do
	what="is a $kind"
	[ "$kind" = big ] && what="is larger than 16777216 bytes"
	warning="ib-hook: warning: '$rec' $what: damaged, read as absent"

	damage "$kind"
	expect_rc "record $what: --status" 0 inrun "$IB_HOOK" "${C[@]}" --status
	expect_eq "  one line says what it is" "$warning" "$(cat "$T_DIR/err")"
	check "  both interfaces ok (what apply installs is adopted)" \
		test "$(grep -c 'verdict: ok' "$T_DIR/out")" = 2

	if [ "$kind" = directory ]; then
		# rename(2) cannot replace a directory: nothing can be recorded, so nothing is changed
		expect_rc "record $what: apply --iface ib0 --iface ib1" 1 \
			inrun "$IB_HOOK" "${C[@]}" --iface ib0 --iface ib1
		# (each interface's change fails on its own)
		expect_eq "  says what it is once, then that it cannot write the record" \
			"$warning|ib-hook: cannot write '$rec': Is a directory" "$(uniq "$T_DIR/err" | paste -sd'|')"
		expect_rc "record $what: apply --all" 1 inrun "$IB_HOOK" "${C[@]}" --all
		expect_eq "  the same" "$warning|ib-hook: cannot write '$rec': Is a directory" \
			"$(paste -sd'|' "$T_DIR/err")"
		expect_eq "  nothing changed" "$applied" "$(state h)"
		continue
	fi
	expect_rc "record $what: apply --iface ib0 --iface ib1" 0 \
		inrun "$IB_HOOK" "${C[@]}" --iface ib0 --iface ib1
	expect_eq "  one line says what it is" "$warning" "$(cat "$T_DIR/err")"
	expect_eq "  nothing changed" "$applied" "$(state h)"
	check "  the record is a regular file again" test -f "$host_rec" -a ! -L "$host_rec"
	# (the test itself must not read a FIFO or /dev/zero either)
	expect_eq "  with both rules" 2 "$(test -f "$host_rec" && grep -c '^rule ' "$host_rec")"

	damage "$kind"
	expect_rc "record $what: apply --all" 0 inrun "$IB_HOOK" "${C[@]}" --all
	expect_eq "  one line says what it is" "$warning" "$(cat "$T_DIR/err")"
	expect_eq "  nothing changed" "$applied" "$(state h)"
	expect_rc "  then --remove --all" 0 inrun "$IB_HOOK" "${C[@]}" --remove --all
	expect_eq "  takes back both rules" 0 "$(($(rules_from h 172.16.34.1) + $(rules_from h 172.16.34.2)))"
	expect_rc "  and apply puts them back" 0 inrun "$IB_HOOK" "${C[@]}" --all
	expect_eq "  as they were" "$applied" "$(state h)"
done
rm -rf "$host_rec"
cp "$T_DIR/saved" "$host_rec"
expect_rc "a sound record again: --status" 0 inrun "$IB_HOOK" "${C[@]}" --status
expect_eq "  says nothing on stderr" "" "$(cat "$T_DIR/err")"
done_testing
