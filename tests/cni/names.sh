#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Interface names the kernel accepts but an ini file reads otherwise
# (issue 46): rail#1, r=1, rail[1] and r;1 keep prevResult's gateway (a
# default in their table) and a "tables" entry; and error 2 names the key
# and its value (CNI spec).
. "$(dirname "$0")/cni-lib.sh"
t_require

pod p
for name in 'rail#1' 'r=1' 'rail[1]' 'r;1'; do
	attach p "$name" 10.78.0.11/16
	prev_conf p "$name" 10.78.0.11/16 10.78.0.1 | ibh_plugin ADD p "$name" >"$T_DIR/out"
	expect_eq "ADD $name succeeds" none "$(cni_code "$T_DIR/out")"
	expect_eq "... its table holds prevResult's default" 1 \
		"$(ip -n "$(ns p)" route show table all | grep -cF "default via 10.78.0.1 dev $name table")"
	ibh_plugin CHECK p "$name" <"$T_DIR/out" >/dev/null
	prev_conf p "$name" 10.78.0.11/16 10.78.0.1 | ibh_plugin DEL p "$name" >/dev/null
	ip -n "$(ns p)" link del "$name"
done
attach p 'rail#2' 10.78.0.12/16
prev_conf p 'rail#2' 10.78.0.12/16 10.78.0.1 '"tables":{"rail#2":742}' | ibh_plugin ADD p 'rail#2' >"$T_DIR/out"
expect_eq "ADD rail#2 with \"tables\": {\"rail#2\": 742} succeeds" none "$(cni_code "$T_DIR/out")"
expect_eq "... its rule looks up 742" "1000:	from 10.78.0.12 lookup 742" "$(ip -n "$(ns p)" rule show pref 1000)"
expect_eq "... which holds the default" 1 "$(ip -n "$(ns p)" route show table 742 | grep -c '^default via 10.78.0.1')"
prev_conf p 'rail#2' 10.78.0.12/16 10.78.0.1 '"tables":{"rail#2":742}' | ibh_plugin DEL p 'rail#2' >/dev/null

# error 2: the key and its value
echo '{"cniVersion":"1.0.0","name":"n","type":"ib-hook","prority":901,"prevResult":{}}' |
	ibh_plugin ADD p net1 >"$T_DIR/out"
expect_eq "an unknown key: error 2" 2 "$(cni_code "$T_DIR/out")"
check "... naming the key and its value" grep -q 'prority.*901' "$T_DIR/out"
echo '{"cniVersion":"1.0.0","name":"n","type":"ib-hook","sysctls":{"arpIgnor":"keep"},"prevResult":{}}' |
	ibh_plugin ADD p net1 >"$T_DIR/out"
expect_eq "an unknown sysctl: error 2" 2 "$(cni_code "$T_DIR/out")"
check "... naming the key and its value" grep -q 'arpIgnor.*keep' "$T_DIR/out"
done_testing
