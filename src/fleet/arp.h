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
	/*
	 * The request's sender address: src, or 0.0.0.0 (family AF_INET, all
	 * zero: an RFC 5227 probe, from which the asked host learns no
	 * neighbour entry). Answers are matched by it.
	 */
	struct ibh_ip sender;
	unsigned int at_ms; /* when it goes, from the start */
	/* what answered, as sysfs writes hardware addresses */
	char answers[FLEET_ANSWERS_MAX][FLEET_HWADDR_MAX];
	size_t n_answers;
	unsigned int sent; /* requests sent for it: the first and the retries */
	long last_ms;	   /* when the last went */
};

/*
 * Sends every probe's request at once (again every 200 ms while unanswered),
 * then collects answers until each probe has one and settle_ms more have
 * passed, or timeout_ms in all.
 * 0, or negative errno when a socket could not be made (CAP_NET_RAW)
 */
int arp_probe_all(struct arp_probe *p, size_t n, int timeout_ms, int settle_ms);

/*
 * The same, paced: each probe's request goes at its at_ms, again at most
 * max_retries times (each 200 ms after the last) while nothing answers;
 * after the last probe is answered or given up, settle_ms more for further
 * answers (ARP flux answers twice). Between steps the caller works (arp_step
 * waits at most wait_ms): arp_start, arp_step until it returns 1, arp_end.
 */
struct arp_run;
int arp_start(struct arp_probe *p, size_t n, unsigned int max_retries, int settle_ms,
	      struct arp_run **ret);
/* sends what is due, takes the answers there are, waits at most wait_ms: 1 when done */
int arp_step(struct arp_run *r, int wait_ms);
/* the requests sent: first ones and retries */
void arp_end(struct arp_run *r, size_t *ret_requests, size_t *ret_retries);
