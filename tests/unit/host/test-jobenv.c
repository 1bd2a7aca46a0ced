// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --job-env from the ports found: their order, which are left out, when one
 * GID index serves every RoCE port and when none does, and the export lines
 * and JSON as a job sources and reads them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jobenv.h"

static struct ibh_job_port roce(const char *ifname, const char *dev, int gid)
{
	struct ibh_job_port p = { .port = 1, .up = true, .gid_index = gid };

	snprintf(p.ifname, sizeof(p.ifname), "%s", ifname);
	snprintf(p.dev, sizeof(p.dev), "%s", dev);
	snprintf(p.state, sizeof(p.state), "ACTIVE");
	snprintf(p.link_layer, sizeof(p.link_layer), "Ethernet");
	return p;
}

/* what jobenv_print writes, and its return value */
static char *printed(const struct ibh_job_port *ports, size_t n, bool json, int *ret)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	*ret = jobenv_print(ports, n, json, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_order_and_one_index(void **state)
{
	/* as the kernel lists them: mlx5_10 before mlx5_2 by name */
	struct ibh_job_port p[] = { roce("ens10", "mlx5_10", 3), roce("ens2", "mlx5_2", 3),
				    roce("ens1", "mlx5_1", 3) };
	struct ibh_job_env e;
	char *out;
	int r;

	(void)state;
	jobenv_decide(p, 3, &e);
	assert_string_equal(p[0].dev, "mlx5_1");
	assert_string_equal(p[2].dev, "mlx5_10");
	assert_int_equal(e.n_used, 3);
	assert_int_equal(e.gid_index, 3);
	assert_string_equal(e.hca, "=mlx5_1:1,mlx5_2:1,mlx5_10:1");
	assert_string_equal(e.devices, "mlx5_1:1,mlx5_2:1,mlx5_10:1");
	assert_string_equal(e.ifnames, "=ens1,ens2,ens10");
	out = printed(p, 3, false, &r);
	assert_int_equal(r, 0);
	assert_non_null(strstr(out, "export NCCL_IB_HCA==mlx5_1:1,mlx5_2:1,mlx5_10:1\n"
				    "export NCCL_IB_GID_INDEX=3\n"
				    "export UCX_IB_GID_INDEX=3\n"
				    "export NCCL_SOCKET_IFNAME==ens1,ens2,ens10\n"
				    "export UCX_NET_DEVICES=mlx5_1:1,mlx5_2:1,mlx5_10:1\n"));
	assert_non_null(strstr(out, "# ens2 mlx5_2:1 Ethernet ACTIVE, RoCE v2 GID 3\n"));
	free(out);
	out = printed(p, 3, true, &r);
	assert_non_null(strstr(out, "\"gid_index\":3,\"gid_index_why\":null,\"env\":{"
				    "\"NCCL_IB_HCA\":\"=mlx5_1:1,mlx5_2:1,mlx5_10:1\","
				    "\"NCCL_IB_GID_INDEX\":\"3\",\"UCX_IB_GID_INDEX\":\"3\","));
	free(out);
}

static void test_indexes_differ(void **state)
{
	struct ibh_job_port p[] = { roce("ens1", "mlx5_0", 3), roce("ens2", "mlx5_1", 5) };
	struct ibh_job_env e;
	char *out;
	int r;

	(void)state;
	jobenv_decide(p, 2, &e);
	assert_int_equal(e.gid_index, -1);
	out = printed(p, 2, false, &r);
	assert_int_equal(r, 0);
	assert_null(strstr(out, "export NCCL_IB_GID_INDEX"));
	assert_null(strstr(out, "export UCX_IB_GID_INDEX"));
	assert_non_null(strstr(out, "# NCCL_IB_GID_INDEX, UCX_IB_GID_INDEX not set: no one RoCE "
				    "v2 GID index fits every port: mlx5_0:1 3 mlx5_1:1 5\n"));
	assert_non_null(strstr(out, "export NCCL_IB_HCA==mlx5_0:1,mlx5_1:1\n"));
	free(out);
	/* a port without a RoCE v2 entry: no index fits it */
	p[1].gid_index = -1;
	jobenv_decide(p, 2, &e);
	assert_int_equal(e.gid_index, -1);
	out = printed(p, 2, true, &r);
	assert_non_null(strstr(out, "\"gid_index\":null,\"gid_index_why\":\"no one RoCE v2 GID "
				    "index fits every port: mlx5_0:1 3 mlx5_1:1 none\""));
	free(out);
}

static void test_left_out(void **state)
{
	/* in their order already: jobenv_decide sorts in place */
	struct ibh_job_port p[] = { roce("ib0", "mlx4_0", -1), roce("ens1", "mlx5_0", 3),
				    roce("ens2", "mlx5_1", 5) };
	struct ibh_job_env e;
	char *out;
	int r;

	(void)state;
	/* the port with another index is down, the InfiniBand port needs no GID index */
	snprintf(p[0].link_layer, sizeof(p[0].link_layer), "InfiniBand");
	p[2].up = false;
	jobenv_decide(p, 3, &e);
	assert_int_equal(e.n_used, 2);
	assert_int_equal(e.gid_index, 3);
	assert_string_equal(e.hca, "=mlx4_0:1,mlx5_0:1");
	out = printed(p, 3, false, &r);
	assert_non_null(strstr(out, "# ens2 mlx5_1:1 Ethernet ACTIVE, RoCE v2 GID 5: left out, "
				    "link down\n"));
	assert_non_null(strstr(out, "export NCCL_IB_GID_INDEX=3\n"));
	free(out);
	/* not ACTIVE: left out too */
	p[2].up = true;
	snprintf(p[2].state, sizeof(p[2].state), "DOWN");
	jobenv_decide(p, 3, &e);
	assert_int_equal(e.n_used, 2);
	assert_int_equal(e.gid_index, 3);
	/* InfiniBand only: no GID index to give */
	jobenv_decide(p, 1, &e);
	assert_int_equal(e.gid_index, -1);
	assert_false(e.roce);
	out = printed(p, 1, false, &r);
	assert_int_equal(r, 0);
	assert_null(strstr(out, "GID_INDEX"));
	free(out);
	/* nothing usable: nothing exported, exit 1 */
	out = printed(p, 0, false, &r);
	assert_int_equal(r, 1);
	assert_string_equal(out,
			    "# ib-hook --job-env: 0 managed RDMA port(s): nothing to export\n");
	free(out);
	out = printed(p, 0, true, &r);
	assert_string_equal(out, "{\"version\":1,\"ports\":[],\"gid_index\":null,"
				 "\"gid_index_why\":null,\"env\":{}}\n");
	free(out);
}

static void test_shell_quoting(void **state)
{
	/* a link name may hold what a shell would expand */
	struct ibh_job_port p[] = { roce("a$b'c", "mlx5_0", 1) };
	char *out;
	int r;

	(void)state;
	out = printed(p, 1, false, &r);
	assert_non_null(strstr(out, "export NCCL_SOCKET_IFNAME='=a$b'\\''c'\n"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_one_index),
		cmocka_unit_test(test_indexes_differ),
		cmocka_unit_test(test_left_out),
		cmocka_unit_test(test_shell_quoting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
