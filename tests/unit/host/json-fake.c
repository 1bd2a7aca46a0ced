// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json-fake MODE: one --json document of memserver34 on the fake kernel
 * (tests/unit/host/fake-kernel.c), ib0 with the RDMA port mlx5_0 port 1, for
 * json-fake.sh to validate against doc/ib-hook.schema.json: a host with an
 * RDMA port has members no namespace test can show (no RDMA device there).
 *   status        --status --json, never applied (drift)
 *   status-ok     --status --json after an apply
 *   dry-run       --dry-run --json, never applied
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "fake-kernel.h"
#include "select.h"

static const char memserver[] = "[Match]\nName=ib0 ib1\n";

static int run(const struct ibh_config *c, enum ibh_mode mode, bool json)
{
	struct ibh_request req = {
		.action = IBH_ACTION_APPLY, .mode = mode, .out = stdout, .json = json
	};
	struct ibh_engine *e;
	enum ibh_result res, end;

	if (engine_new(c, &e) < 0)
		return -1;
	res = engine_run_all(e, &req);
	end = engine_end(e, &req);
	engine_free(e);
	return res > end ? res : end;
}

int main(int argc, char **argv)
{
	struct ibh_config c;
	const char *mode = argc > 1 ? argv[1] : "";
	int r = 0;

	config_defaults(&c);
	if (config_parse(&c, memserver, strlen(memserver), NULL) < 0)
		return 2;
	fake_begin();
	select_forget();
	fake_memserver34();
	fake.rdma[0] = (struct ibh_rdma_port){ .ifindex = 3, .port = 1, .dev = "mlx5_0" };
	fake.n_rdma = 1;
	/* RoCE: the MAC's link-local GID, then ib0's 172.16.34.1 as the RoCE v2 entry 1 */
	fake.port_attrs[0] = (typeof(fake.port_attrs[0])){ "link_layer", "Ethernet" };
	fake.port_attrs[1] =
		(typeof(fake.port_attrs[0])){ "gids/0", "fe80:0000:0000:0000:0202:03ff:fe04:0506" };
	fake.port_attrs[2] =
		(typeof(fake.port_attrs[0])){ "gids/1", "0000:0000:0000:0000:0000:ffff:ac10:2201" };
	fake.port_attrs[3] = (typeof(fake.port_attrs[0])){ "gid_attrs/types/1", "RoCE v2" };
	fake.n_port_attrs = 4;
	if (!strcmp(mode, "status"))
		r = run(&c, IBH_MODE_STATUS, true);
	else if (!strcmp(mode, "status-ok")) {
		r = run(&c, IBH_MODE_CHANGE, false);
		if (r == IBH_OK)
			r = run(&c, IBH_MODE_STATUS, true);
	} else if (!strcmp(mode, "dry-run"))
		r = run(&c, IBH_MODE_DRY_RUN, true);
	else {
		fprintf(stderr, "usage: json-fake status|status-ok|dry-run\n");
		r = -1;
	}
	select_forget();
	fake_end();
	return r < 0 ? 2 : r;
}
