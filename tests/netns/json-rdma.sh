#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --json on a host with an RDMA port (issue 32: an unclosed "rdma" object was
# caught by nothing, and no kernel here has rdma_rxe): ib-hook-test
# (tests/seam.c) adds a made-up RDMA port mlx5_1 port 1 for ib1 to what the
# kernel reports. --status, --dry-run and --check --json are each one valid
# document against doc/ib-hook.schema.json, and carry the port.
. "$(dirname "$0")/common.sh"
t_require python3
IB_HOOK=${IB_HOOK_TEST:-$(dirname "$IB_HOOK")/../tests/ib-hook-test}
[ -x "$IB_HOOK" ] || skip "no ib-hook-test binary at $IB_HOOK"

src_root=${IB_HOOK_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
schema=$src_root/doc/ib-hook.schema.json
valid() { # valid TITLE < JSON
	python3 "$src_root/tests/validate-json.py" "$schema" "$1"
}
# rdma_of WHERE < JSON: the "rdma" member of the objects under WHERE for ib1
rdma_of() {
	python3 -c 'import json, sys
d = json.load(sys.stdin)
print([{k: o["rdma"][k] for k in ("device", "port")} for o in d[sys.argv[1]]
       if o.get(sys.argv[2]) == "ib1" and o.get("rdma")])' "$1" "$2"
}

memserver34 rj
C=(--config "$T_DIR/default.conf")
rdma() {
	ip netns exec "$(ns rj)" env IB_HOOK_TEST_RDMA=ib1=mlx5_1:1 "$IB_HOOK" "${C[@]}" "$@"
}

for when in "before apply" "after apply"; do
	expect_rc "$when: --status --json" "$([ "$when" = "before apply" ] && echo 1 || echo 0)" rdma --status --json
	check "  is valid" valid status <"$T_DIR/out"
	expect_eq "  shows ib1's RDMA port" "[{'device': 'mlx5_1', 'port': 1}]" "$(rdma_of interfaces name <"$T_DIR/out")"
	if [ "$when" = "before apply" ]; then
		expect_rc "$when: --dry-run --all --json" 0 rdma --dry-run --all --json
		check "  is valid" valid dry-run <"$T_DIR/out"
		expect_rc "apply" 0 rdma --all
	fi
done
expect_rc "--check --json (the made-up port has no state: not ok)" 1 rdma --check --json
check "  is valid" valid check <"$T_DIR/out"
expect_eq "  shows ib1's RDMA port" "[{'device': 'mlx5_1', 'port': 1}]" "$(rdma_of checks interface <"$T_DIR/out")"
done_testing
