/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA_NLDEV_CMD_PORT_GET dump messages (`rdma link`), as hex.
 *
 * rdma_constructed: built attribute by attribute in the order of the kernel's
 * fill_port_info() (drivers/infiniband/core/nldev.c): DEV_INDEX, DEV_NAME,
 * PORT_INDEX, CAP_FLAGS, [IB: SUBNET_PREFIX, LID, SM_LID, LMC], PORT_STATE,
 * PORT_PHYS_STATE, then NDEV_INDEX and NDEV_NAME only when the netdev is in
 * the asking namespace (and the kernel is 4.18 or newer). Kept beside the captured ones below for what a VM
 * with soft-RoCE cannot show: an InfiniBand port, a netdev in another
 * namespace.
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
	/*
	 * mlx5_0 port 1 whose netdev is in another namespace: no NDEV_*, as
	 * for every port of a kernel before 4.18; a port without a netdev
	 */
	{ "4800000005140200f8b722699210000008000100010000000b0002006d6c78355f3000000800030001000000"
	  "0c0004004ae851260000000005000c000100000005000d0003000000",
	  0, "mlx5_0", 1, 0, "" },
};

/*
 * Captured from Debian 12's kernel 6.1.0-56-amd64 (6.1.192-2) in the qemu VM
 * of tests/vm/rping.sh (two virtio-net ports ib0, ifindex 2, and ib1,
 * ifindex 3, each with soft-RoCE: rdma link add rxe_ibN type rxe netdev ibN),
 * with
 *   strace -e trace=socket,sendmsg,recvmsg -e read=all ib-hook --status --iface ib0
 *   strace -e trace=socket,sendto,recvmsg -e read=all rdma link show
 * (iproute2 6.1.0): the bytes of strace's hex dump of each received message.
 */
static const struct rdma_fixture rdma_captured[] = {
	/* ib-hook's RDMA_NLDEV_CMD_PORT_GET dump of device 0: rxe_ib1 port 1 on ib1 */
	{ "4c000000051402006b15046bcc07408808000100000000000c0002007278655f69623100080003000100"
	  "000005000c000400000005000d000500000008003200030000000800330069623100",
	  0, "rxe_ib1", 1, 3, "ib1" },
	/* the same for device 1: rxe_ib0 port 1 on ib0 */
	{ "4c000000051402006c15046bcc07408808000100010000000c0002007278655f69623000080003000100"
	  "000005000c000400000005000d000500000008003200020000000800330069623000",
	  0, "rxe_ib0", 1, 2, "ib0" },
	/* the NLMSG_DONE that ends that dump */
	{ "14000000030002006c15046bcc07408800000000", -2 /* -ENOENT */, NULL, 0, 0, NULL },
	/*
	 * `rdma link show` asks each port with a PORT_GET request (no dump): the
	 * kernel types that answer RDMA_NLDEV_CMD_GET, not PORT_GET, so it is no
	 * port message for the dump parser
	 */
	{ "4c000000011400006a15046b02307eb708000100000000000c0002007278655f69623100080003000100"
	  "000005000c000400000005000d000500000008003200030000000800330069623100",
	  -2 /* -ENOENT */, NULL, 0, 0, NULL },
};

/* RDMA_NLDEV_CMD_GET dump messages, captured as above */
struct rdma_dev_fixture {
	const char *hex;
	int result; /* of netlink_parse_rdma_dev */
	unsigned int index;
};

static const struct rdma_dev_fixture rdma_dev_captured[] = {
	/* device 0, rxe_ib1 (node GUID, GIDs, "roce" protocol) */
	{ "6c000000011402006a15046bcc07408808000100000000000c0002007278655f6962310008000300010000"
	  "000c000400763c2201000000000c000600020100feff0054500c000700020100feff00545005000e000100"
	  "0000050054000000000009004300726f636500000000",
	  0, 0 },
	/* device 1, rxe_ib0 */
	{ "6c000000011402006a15046bcc07408808000100010000000c0002007278655f6962300008000300010000"
	  "000c000400763c2201000000000c000600010100feff0054500c000700010100feff00545005000e000100"
	  "0000050054000000000009004300726f636500000000",
	  0, 1 },
	/* the dump's NLMSG_DONE */
	{ "14000000030002006a15046bcc07408800000000", -2 /* -ENOENT */, 0 },
	/* a port message is no device message */
	{ "4c000000051402006b15046bcc07408808000100000000000c0002007278655f69623100080003000100"
	  "000005000c000400000005000d000500000008003200030000000800330069623100",
	  -2 /* -ENOENT */, 0 },
};
