// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel uevents: which ones say that an RDMA device came, went or changed */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "uevent.h"

/* as the kernel sends them: "ACTION@DEVPATH", then KEY=VALUE, each NUL-terminated */
#define MSG(s) s, sizeof(s)

static void test_rdma_devices(void **state)
{
	/* rdma link add rxe0 type rxe netdev ib0 */
	assert_true(uevent_is_rdma(MSG("add@/devices/virtual/infiniband/rxe0\0ACTION=add\0"
				       "DEVPATH=/devices/virtual/infiniband/rxe0\0"
				       "SUBSYSTEM=infiniband\0NAME=rxe0\0SEQNUM=2190")));
	/* rdma link delete rxe0, a driver unloading */
	assert_true(uevent_is_rdma(MSG("remove@/devices/virtual/infiniband/rxe0\0ACTION=remove\0"
				       "DEVPATH=/devices/virtual/infiniband/rxe0\0"
				       "SUBSYSTEM=infiniband\0NAME=rxe0\0SEQNUM=2201")));
	/* rdma dev set mlx5_0 name ibp4s0 */
	assert_true(uevent_is_rdma(
		MSG("move@/devices/pci0000:00/0000:00:02.0/0000:04:00.0/infiniband/ibp4s0\0"
		    "ACTION=move\0DEVPATH=/devices/pci0000:00/0000:00:02.0/0000:04:00.0/"
		    "infiniband/ibp4s0\0SUBSYSTEM=infiniband\0"
		    "DEVPATH_OLD=/devices/pci0000:00/0000:00:02.0/0000:04:00.0/infiniband/mlx5_0\0"
		    "NAME=ibp4s0\0SEQNUM=3001")));
}

static void test_other_uevents(void **state)
{
	/* a netdev, the verbs character device, a driver binding */
	assert_false(uevent_is_rdma(MSG("add@/devices/virtual/net/ib1\0ACTION=add\0"
					"DEVPATH=/devices/virtual/net/ib1\0SUBSYSTEM=net\0"
					"INTERFACE=ib1\0IFINDEX=5\0SEQNUM=2188")));
	assert_false(
		uevent_is_rdma(MSG("add@/devices/virtual/infiniband_verbs/uverbs0\0ACTION=add\0"
				   "DEVPATH=/devices/virtual/infiniband_verbs/uverbs0\0"
				   "SUBSYSTEM=infiniband_verbs\0MAJOR=231\0MINOR=192\0"
				   "DEVNAME=infiniband/uverbs0\0SEQNUM=2191")));
	assert_false(uevent_is_rdma(MSG("bind@/devices/pci0000:00/0000:04:00.0\0ACTION=bind\0"
					"SUBSYSTEM=infiniband\0SEQNUM=9")));
	/* udev's own messages, truncated or unterminated ones, nothing */
	assert_false(uevent_is_rdma(MSG("libudev\0SUBSYSTEM=infiniband\0ACTION=add")));
	assert_false(uevent_is_rdma("add@/x\0SUBSYSTEM=infiniband\0ACTION=add", 38));
	assert_false(uevent_is_rdma(MSG("add@/devices/virtual/infiniband/rxe0\0ACTION=add")));
	assert_false(uevent_is_rdma("", 0));
	assert_false(uevent_is_rdma(MSG("SUBSYSTEM=infiniband\0ACTION=add")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rdma_devices),
		cmocka_unit_test(test_other_uevents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
