// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the parsers of what the kernel sends (rules, routes, RDMA
 * ports) and of the record under /run. Either may be damaged; neither may
 * crash ib-hook or make it read past its input.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netlink.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibh_rule rule;
	struct ibh_route route;
	struct ibh_rdma_port port;
	uint32_t dev_index;
	struct ibh_rec rec;
	bool protocol;
	char line[512], back[512];
	void *copy;

	/* an exact-size copy, so that ASan sees any read past the message */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	(void)netlink_parse_rule(copy, size, &rule, &protocol);
	(void)netlink_parse_route(copy, size, &route);
	(void)netlink_parse_rdma_dev(copy, size, &dev_index);
	(void)netlink_parse_rdma_port(copy, size, &port);
	free(copy);

	if (size < sizeof(line)) {
		memcpy(line, data, size);
		line[size] = '\0';
		/* what parses must format back to a line that parses to the same object */
		if (rec_parse(line, &rec) == 0) {
			struct ibh_rec again;

			rec_format(back, sizeof(back), &rec);
			if (rec_parse(back, &again) != 0 || !rec_same_object(&rec, &again))
				abort();
		}
	}
	return 0;
}
