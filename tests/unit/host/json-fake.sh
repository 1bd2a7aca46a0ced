#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# json-fake.sh JSON-FAKE SRCDIR: the --json documents of a host with an RDMA
# RoCE port (tests/unit/host/json-fake.c) are valid against doc/ib-hook.schema.json
# (strictly, tests/validate-json.py), and --status names the port and its
# address's GID entry. TAP.
prog=$1 src=$2
command -v python3 >/dev/null || { echo "SKIP: needs python3"; exit 77; }
n=0 failed=0
# doc MODE TITLE WANT-EXIT: one document, validated as TITLE
doc() {
	n=$((n + 1))
	out=$("$prog" "$1")
	rc=$?
	if [ "$rc" = "$3" ] && printf '%s\n' "$out" |
		python3 "$src/tests/validate-json.py" "$src/doc/ib-hook.schema.json" "$2"; then
		echo "ok $n - $1: exit $rc, a valid '$2' document"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1: exit $rc (wanted $3), a valid '$2' document"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}
has() { # has MODE STRING: the document of MODE holds STRING
	n=$((n + 1))
	if "$prog" "$1" | grep -qF "$2"; then
		echo "ok $n - $1: has $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1: has $2"
	fi
}
doc status status 1
has status '"name":"ib0","ifindex":3'
has status '"rdma":{"device":"mlx5_0","port":1,"link_layer":"Ethernet"}'
has status '"address":"172.16.34.1/16","prefix":"172.16.0.0/16","rule":"missing","table_route":"missing","main_route":"present","gid":{"index":1,"type":"RoCE v2"}}'
doc status-ok status 0
has status-ok '"rdma":{"device":"mlx5_0","port":1,"link_layer":"Ethernet"}'
doc dry-run dry-run 0
echo "1..$n"
[ "$failed" = 0 ]
