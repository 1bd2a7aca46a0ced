#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The GID index of each managed address on a RoCE port (issue 45, item 2):
# --status (text and JSON) gives it with its type, --check names an address
# without a RoCE v2 entry and a port whose GIDs are all link-local. No kernel
# here has rdma_rxe: ib-hook-test (tests/seam.c) makes ib1 the netdev of
# mlx5_1 port 1 and reads that port's sysfs from a fixture whose GID table
# holds ib1's real addresses (a slot emptied is what the kernel does when an
# address goes). --job-env, sourced as written, exports that port and index.
. "$(dirname "$0")/common.sh"
t_require python3
IB_HOOK=${IB_HOOK_TEST:-$(dirname "$IB_HOOK")/../tests/ib-hook-test}
[ -x "$IB_HOOK" ] || skip "no ib-hook-test binary at $IB_HOOK"

memserver34 rj
nsx rj ip addr add 2001:db8:34::2/64 dev ib1 nodad
C=(--config "$T_DIR/default.conf")
ib=$T_DIR/infiniband
port=$ib/mlx5_1/ports/1
mkdir -p "$port/gids" "$port/gid_attrs/types" "$port/gid_attrs/ndevs"
echo "4: ACTIVE" >"$port/state"
echo Ethernet >"$port/link_layer"

# slot I GID TYPE: entry I of the table, ib1's; "-" empties it as the kernel does
slot() {
	if [ "$2" = - ]; then
		echo 0000:0000:0000:0000:0000:0000:0000:0000 >"$port/gids/$1"
		rm -f "$port/gid_attrs/types/$1" "$port/gid_attrs/ndevs/$1"
		return
	fi
	echo "$2" >"$port/gids/$1"
	echo "$3" >"$port/gid_attrs/types/$1"
	echo ib1 >"$port/gid_attrs/ndevs/$1"
}
ll=fe80:0000:0000:0000:0202:03ff:fe04:0506
v4=0000:0000:0000:0000:0000:ffff:ac10:2202
v6=2001:0db8:0034:0000:0000:0000:0000:0002
slot 0 $ll "IB/RoCE v1"
slot 1 $ll "RoCE v2"
slot 2 $v4 "IB/RoCE v1"
slot 3 $v4 "RoCE v2"
slot 4 -
slot 5 $v6 "IB/RoCE v1"
slot 6 $v6 "RoCE v2"
for i in $(seq 7 15); do slot "$i" -; done

rdma() {
	ip netns exec "$(ns rj)" env IB_HOOK_TEST_RDMA=ib1=mlx5_1:1 IB_HOOK_TEST_INFINIBAND="$ib" \
		"$IB_HOOK" "${C[@]}" "$@"
}
# line PATTERN: the lines of the last output that hold PATTERN
line() { grep -q -F -e "$1" "$T_DIR/out"; }
gid_of() { # gid_of ADDRESS < STATUS_JSON: that address's "gid" member
	python3 -c 'import json, sys
d = json.load(sys.stdin)
print([a.get("gid", "absent") for o in d["interfaces"] for a in o.get("addresses", [])
       if a["address"] == sys.argv[1]])' "$1"
}
src_root=${IB_HOOK_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
schema=$src_root/doc/ib-hook.schema.json
valid() { python3 "$src_root/tests/validate-json.py" "$schema" "$1"; }
same_as_sysfs() { python3 "$src_root/tests/gid-vs-sysfs.py" "$ib" <"$T_DIR/out" >"$T_DIR/cmp"; }

expect_rc "apply" 0 rdma --all
expect_rc "--status" 0 rdma --status
check "  names ib1's RDMA port and its link layer" line "  rdma: mlx5_1 port 1, Ethernet"
check "  IPv4: the RoCE v2 twin, index 3" line "address 172.16.34.2/16: rule ok; table route 172.16.0.0/16 ok; main route present (kept); gid 3 RoCE v2"
check "  IPv6, past an empty slot: index 6" line "address 2001:db8:34::2/64: rule ok; table route 2001:db8:34::/64 ok; main route present (kept); gid 6 RoCE v2"
expect_eq "  ib0 (no RDMA port): no gid" "" "$(line "address 172.16.34.1/16" | grep gid)"
expect_rc "--status --json" 0 rdma --status --json
check "  is valid" valid status <"$T_DIR/out"
expect_eq "  172.16.34.2's gid" "[{'index': 3, 'type': 'RoCE v2'}]" "$(gid_of 172.16.34.2/16 <"$T_DIR/out")"
expect_eq "  2001:db8:34::2's gid" "[{'index': 6, 'type': 'RoCE v2'}]" "$(gid_of 2001:db8:34::2/64 <"$T_DIR/out")"
expect_eq "  ib0's address: no gid member" "['absent']" "$(gid_of 172.16.34.1/16 <"$T_DIR/out")"
check "  every gid equals sysfs's (tests/gid-vs-sysfs.py)" same_as_sysfs
expect_rc "--check: every address ok" 0 rdma --check --iface ib1
check "  ib1 172.16.34.2 says its GID" line "mlx5_1 port 1 ACTIVE, Ethernet, gid 3 RoCE v2"
check "  ib1 2001:db8:34::2 says its GID" line "mlx5_1 port 1 ACTIVE, Ethernet, gid 6 RoCE v2"

# job_env VAR...: the variables as a shell that sources --job-env has them
job_env() {
	bash -c '. "$1"; shift; for v; do printf "%s=%s;" "$v" "${!v-unset}"; done' job "$T_DIR/out" "$@"
}
VARS=(NCCL_IB_HCA NCCL_IB_GID_INDEX UCX_IB_GID_INDEX NCCL_SOCKET_IFNAME UCX_NET_DEVICES)
expect_rc "--job-env" 0 rdma --job-env
expect_eq "  sourced: ib1's port, its GID index" "NCCL_IB_HCA==mlx5_1:1;NCCL_IB_GID_INDEX=3;UCX_IB_GID_INDEX=3;NCCL_SOCKET_IFNAME==ib1;UCX_NET_DEVICES=mlx5_1:1;" "$(job_env "${VARS[@]}")"
check "  lists the port" line "# ib1 mlx5_1:1 Ethernet ACTIVE, RoCE v2 GID 3"
expect_rc "--job-env --json" 0 rdma --job-env --json
check "  is valid" valid job-env <"$T_DIR/out"
expect_eq "  its index and env" "3 {'NCCL_IB_HCA': '=mlx5_1:1', 'NCCL_IB_GID_INDEX': '3', 'UCX_IB_GID_INDEX': '3', 'NCCL_SOCKET_IFNAME': '=ib1', 'UCX_NET_DEVICES': 'mlx5_1:1'}" "$(python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["gid_index"], d["env"])' <"$T_DIR/out")"
expect_rc "--job-env --iface ib0 (no RDMA port): nothing to export" 1 rdma --job-env --iface ib0
expect_eq "  says so" "# ib-hook --job-env: 0 managed RDMA port(s): nothing to export" "$(cat "$T_DIR/out")"
expect_rc "--job-env --iface nope" 2 rdma --job-env --iface nope
expect_rc "--job-env PEER: a usage error" 2 rdma --job-env 172.16.0.1

# the IPv4 address's RoCE v2 entry goes, its v1 twin stays
slot 3 -
expect_rc "RoCE v1 only: --status still 0 (routing is as apply leaves it)" 0 rdma --status
check "  says the v1 entry" line "main route present (kept); gid 2 RoCE v1"
expect_rc "  --json" 0 rdma --status --json
expect_eq "  172.16.34.2's gid" "[{'index': 2, 'type': 'RoCE v1'}]" "$(gid_of 172.16.34.2/16 <"$T_DIR/out")"
check "  equals sysfs's" same_as_sysfs
expect_rc "  --check: exit 1" 1 rdma --check --iface ib1
check "  names the address without RoCE v2" line "ib1 172.16.34.2 -> 172.16.0.1 (probe): no-roce-v2: mlx5_1 port 1 holds no RoCE v2 GID for 172.16.34.2, only RoCE v1 (index 2)"
check "  the IPv6 address stays ok" line "ib1 2001:db8:34::2 -> 2001:db8:34::1 (probe): ok"
expect_rc "  --check --json: exit 1" 1 rdma --check --iface ib1 --json
check "  is valid" valid check <"$T_DIR/out"
expect_eq "  its verdicts" "[('172.16.34.2', 'no-roce-v2', 2, 'RoCE v1'), ('2001:db8:34::2', 'ok', 6, 'RoCE v2')]" "$(python3 -c 'import json, sys
print([(c["address"], c["verdict"], c["rdma"]["gid_index"], c["rdma"]["gid_type"]) for c in json.load(sys.stdin)["checks"]])' <"$T_DIR/out")"
expect_rc "  --job-env" 0 rdma --job-env
expect_eq "  sourced: the port, no GID index" "NCCL_IB_HCA==mlx5_1:1;NCCL_IB_GID_INDEX=unset;UCX_IB_GID_INDEX=unset;" "$(job_env NCCL_IB_HCA NCCL_IB_GID_INDEX UCX_IB_GID_INDEX)"
check "  says why" line "# NCCL_IB_GID_INDEX, UCX_IB_GID_INDEX not set: no one RoCE v2 GID index fits every port: mlx5_1:1 none"

# no entry at all for either address: the MAC's link-local twins only
slot 2 -
slot 5 -
slot 6 -
expect_rc "link-local GIDs only: --status" 0 rdma --status
check "  says so for 172.16.34.2" line "main route present (kept); gid none (the port holds link-local GIDs only)"
expect_rc "  --json" 0 rdma --status --json
expect_eq "  172.16.34.2's gid is null" "[None]" "$(gid_of 172.16.34.2/16 <"$T_DIR/out")"
check "  equals sysfs's" same_as_sysfs
expect_rc "  --check: exit 1" 1 rdma --check --iface ib1 --json
check "  is valid" valid check <"$T_DIR/out"
expect_eq "  both addresses: link-local-gids" "[('link-local-gids', True), ('link-local-gids', True)]" "$(python3 -c 'import json, sys
print([(c["verdict"], c["rdma"]["gids_link_local_only"]) for c in json.load(sys.stdin)["checks"]])' <"$T_DIR/out")"
expect_rc "  --check text" 1 rdma --check --iface ib1
check "  names the port" line "ib1 172.16.34.2 -> 172.16.0.1 (probe): link-local-gids: mlx5_1 port 1 holds link-local GIDs only, none for 172.16.34.2"

# an empty table is no GID, not "link-local only"
slot 0 -
slot 1 -
expect_rc "an empty GID table: --check exit 1" 1 rdma --check --iface ib1
check "  no-gid" line "ib1 172.16.34.2 -> 172.16.0.1 (probe): no-gid: mlx5_1 port 1 holds no GID for 172.16.34.2"
done_testing
