// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for uevent_is_rdma(): the input is one message as the
 * kernel's uevent socket delivers it (anyone on the host can send on that
 * socket's group, though ib-hook only reads the kernel's). Copied into a
 * buffer of its exact size, so that AddressSanitizer sees a read past the
 * end. Besides "no crash": only a message that names the infiniband
 * subsystem is ever an RDMA device's.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "uevent.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (uevent_is_rdma(buf, size) && !memmem(buf, size, "SUBSYSTEM=infiniband", 20))
		abort();
	free(buf);
	return 0;
}
