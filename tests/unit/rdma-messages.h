/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA_NLDEV_CMD_PORT_GET dump messages (`rdma link`), as hex.
 *
 * rdma_constructed: built attribute by attribute in the order of the kernel's
 * fill_port_info() (drivers/infiniband/core/nldev.c): DEV_INDEX, DEV_NAME,
 * PORT_INDEX, CAP_FLAGS, [IB: SUBNET_PREFIX, LID, SM_LID, LMC], PORT_STATE,
 * PORT_PHYS_STATE, then NDEV_INDEX and NDEV_NAME only when the netdev is in
 * the asking namespace. Kept until captured messages replace them.
 */
#pragma once

struct rdma_fixture {
	const char *hex;
	int result; /* of netlink_parse_rdma_port */
	const char *dev;
	unsigned int port;
	int ifindex;
	const char *ndev;
};

static const struct rdma_fixture rdma_constructed[] = {
	/* rxe0 port 1 on ib0 (ifindex 3): soft-RoCE, no sysfs device/infiniband */
	{ "5800000005140200f8b722699210000008000100000000000900020072786530000000000800030001000000"
	  "0c000400000019040000000005000c000400000005000d00050000000800320003000000080033006962300"
	  "0",
	  0, "rxe0", 1, 3, "ib0" },
	/* mlx5_1 port 1, an InfiniBand port with IB attributes, on ibp65s0f1 (12) */
	{ "8400000005140200f8b722699210000008000100020000000b0002006d6c78355f3100000800030001000000"
	  "0c0004004ae85126000000000c00050000000000000080fe0800060007000000080007000100000005000800"
	  "0000000005000c000400000005000d0005000000080032000c0000000e00330069627036357330663100000"
	  "0",
	  0, "mlx5_1", 1, 12, "ibp65s0f1" },
	/* mlx5_0 port 1 whose netdev is in another namespace: no NDEV_* */
	{ "4800000005140200f8b722699210000008000100010000000b0002006d6c78355f3000000800030001000000"
	  "0c0004004ae851260000000005000c000100000005000d0003000000",
	  -2 /* -ENOENT */, NULL, 0, 0, NULL },
};
