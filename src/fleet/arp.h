/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ARP probes of the fleet view: which hardware addresses answer a request
 * for dst sent from src on a port. Each answer is matched to its probe by
 * the addresses it names (sender dst, target src on the probe's port), so
 * that what a neighbour cache holds from other traffic does not count.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "fleet.h"
#include "ip.h"

#define ARP_HW_MAX 20 /* IPoIB */

struct arp_probe {
	int ifindex;
	uint16_t hwtype; /* ARPHRD_*: ARP's hardware type */
	uint8_t hw[ARP_HW_MAX], broadcast[ARP_HW_MAX];
	uint8_t hw_len;
	struct ibh_ip src, dst; /* IPv4 */
	/* what answered, as sysfs writes hardware addresses */
	char answers[FLEET_ANSWERS_MAX][FLEET_HWADDR_MAX];
	size_t n_answers;
};

/*
 * Sends every probe's request at once (again every 200 ms while unanswered),
 * then collects answers until each probe has one and settle_ms more have
 * passed, or timeout_ms in all.
 * 0, or negative errno when a socket could not be made (CAP_NET_RAW)
 */
int arp_probe_all(struct arp_probe *p, size_t n, int timeout_ms, int settle_ms);
