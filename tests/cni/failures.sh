#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ADDs that fail and records that are damaged (issue 46, SPEC 11.1): a failed
# ADD (prevResult's gateway outside the interface's subnet: error 100) leaves
# nothing, no record, no container's file, no rule or route, also beside
# another attachment, and a later DEL succeeds; a record the reader rejects
# (a line that is no entry, a directory) never makes a DEL fail: DEL removes
# nothing it cannot prove ib-hook's, says so and succeeds, and ADD and CHECK
# read it as absent as a host run does.
. "$(dirname "$0")/cni-lib.sh"
t_require

pod p
attach p net1 10.77.0.11/16
attach p net2 10.77.0.12/16
prev_conf p net2 10.77.0.12/16 10.77.0.1 >"$T_DIR/net2.json"
prev_conf p net1 10.77.0.11/16 10.77.0.1 >"$T_DIR/net1.json"
prev_conf p net1 10.77.0.11/16 10.99.0.1 >"$T_DIR/bad.json"
rec=$(record_of p)
file=$(pod_file p)

# a failed ADD leaves nothing
s=$(state p)
ibh_plugin ADD p net1 <"$T_DIR/bad.json" >"$T_DIR/out"
expect_eq "ADD with a gateway outside the subnet: error 100" 100 "$(cni_code "$T_DIR/out")"
expect_eq "... leaves no rule or route" "$s" "$(state p)"
check "... no record" test ! -e "$rec"
check "... no container's file" test ! -e "$file"
ibh_plugin DEL p net1 <"$T_DIR/bad.json" >"$T_DIR/out"
expect_eq "... DEL succeeds" "0 " "$? $(cat "$T_DIR/out")"
ibh_plugin ADD p net2 <"$T_DIR/net2.json" >/dev/null
s=$(state p)
ibh_plugin ADD p net1 <"$T_DIR/bad.json" >"$T_DIR/out"
expect_eq "beside net2, a failed ADD of net1: error 100" 100 "$(cni_code "$T_DIR/out")"
expect_eq "... leaves no rule or route" "$s" "$(state p)"
check "... and net2's record" grep -q 10.77.0.12 "$rec"
ibh_plugin CHECK p net2 <"$T_DIR/net2.json" >"$T_DIR/out"
expect_eq "... whose CHECK passes" "" "$(cat "$T_DIR/out")"
ibh_plugin DEL p net2 <"$T_DIR/net2.json" >/dev/null
check "DEL net2 then leaves no record" test ! -e "$rec"
check "... and no container's file" test ! -e "$file"

# a damaged record
ibh_plugin ADD p net1 <"$T_DIR/net1.json" >/dev/null
ibh_plugin ADD p net2 <"$T_DIR/net2.json" >/dev/null
echo 'not a record' >>"$rec"
ibh_plugin CHECK p net1 <"$T_DIR/net1.json" >"$T_DIR/out"
check "CHECK over a damaged record (read as absent, as a host run reads it): no error 100" \
	test "$(cni_code "$T_DIR/out")" != 100
s=$(state p)
ibh_plugin DEL p net1 <"$T_DIR/net1.json" >"$T_DIR/out" 2>"$T_DIR/err"
expect_eq "DEL over a damaged record succeeds" "0 " "$? $(cat "$T_DIR/out")"
check "... says what it left" grep -q "damaged.*net1" "$T_DIR/err"
expect_eq "... and removes nothing it cannot prove ib-hook's" "$s" "$(state p)"
ibh_plugin DEL p net2 <"$T_DIR/net2.json" >"$T_DIR/out"
expect_eq "DEL of the other attachment succeeds" "0 " "$? $(cat "$T_DIR/out")"
ibh_plugin ADD p net1 <"$T_DIR/net1.json" >"$T_DIR/out"
expect_eq "ADD after them succeeds" none "$(cni_code "$T_DIR/out")"
ibh_plugin CHECK p net1 <"$T_DIR/net1.json" >"$T_DIR/out"
expect_eq "... and so does CHECK" "" "$(cat "$T_DIR/out")"
ibh_plugin DEL p net1 <"$T_DIR/net1.json" >/dev/null
rm -f "$rec"
mkdir "$rec"
ibh_plugin DEL p net1 <"$T_DIR/net1.json" >"$T_DIR/out"
expect_eq "DEL when the record is a directory succeeds" "0 " "$? $(cat "$T_DIR/out")"
rmdir "$rec"
done_testing
