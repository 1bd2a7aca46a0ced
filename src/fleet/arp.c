// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Raw ARP (RFC 826) on a packet socket per port, SOCK_DGRAM so that the
 * kernel builds the link header (Ethernet or IPoIB). Requests carry the
 * probe's sender address (its source's, or 0.0.0.0 as RFC 5227's probes:
 * the asked host then answers to the asker's hardware address and learns
 * nothing), so answers are matched to it and to nothing else.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "arp.h"

#define ARP_REQUEST 1
#define ARP_REPLY   2
/*
 * A fleet's requests all go out at once and are flooded to every port: a
 * receiver's backlog may drop some. Unanswered requests go again, as the
 * kernel's own ARP retries (mcast_solicit), but sooner.
 */
#define RESEND_MS 200

/*
 * Only replies reach the socket: the requests of every other host of the
 * fleet, flooded to each port, would fill its backlog first (the filter sees
 * a SOCK_DGRAM packet from its ARP header: the operation at offset 6)
 */
static int only_replies(int fd)
{
	static struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARP_REPLY, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ? -errno : 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* a link-layer address of up to 20 bytes: struct sockaddr_ll holds 8 */
union sockaddr_hw {
	struct sockaddr_ll ll;
	uint8_t raw[sizeof(struct sockaddr_ll) + ARP_HW_MAX];
};

static int send_request(int fd, const struct arp_probe *p)
{
	uint8_t pkt[8 + 2 * (ARP_HW_MAX + 4)], *o = pkt + 8;
	union sockaddr_hw to = { .ll = { .sll_family = AF_PACKET,
					 .sll_protocol = htons(ETH_P_ARP),
					 .sll_ifindex = p->ifindex,
					 .sll_halen = p->hw_len } };
	uint16_t v;

	v = htons(p->hwtype);
	memcpy(pkt, &v, 2);
	v = htons(ETH_P_IP);
	memcpy(pkt + 2, &v, 2);
	pkt[4] = p->hw_len;
	pkt[5] = 4;
	v = htons(ARP_REQUEST);
	memcpy(pkt + 6, &v, 2);
	memcpy(o, p->hw, p->hw_len);
	memcpy(o + p->hw_len, p->sender.a, 4);
	memset(o + p->hw_len + 4, 0, p->hw_len);
	memcpy(o + 2 * p->hw_len + 4, p->dst.a, 4);
	memcpy(to.raw + offsetof(struct sockaddr_ll, sll_addr), p->broadcast, p->hw_len);
	if (sendto(fd, pkt, 8 + 2 * (size_t)(p->hw_len + 4), 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0)
		return -errno;
	return 0;
}

/* an ARP reply on the port of fd: the answer to the probe it names, if any */
static void take_reply(const uint8_t *pkt, size_t len, int ifindex, struct arp_probe *p, size_t n)
{
	uint8_t hln;
	const uint8_t *sha, *spa, *tpa;

	if (len < 8 || pkt[2] != 0x08 || pkt[3] != 0x00 || pkt[5] != 4 || pkt[6] != 0 ||
	    pkt[7] != ARP_REPLY)
		return;
	hln = pkt[4];
	if (hln == 0 || hln > ARP_HW_MAX || len < 8 + 2 * ((size_t)hln + 4))
		return;
	sha = pkt + 8;
	spa = sha + hln;
	tpa = spa + 4 + hln;
	for (size_t i = 0; i < n; i++) {
		char hw[FLEET_HWADDR_MAX];
		bool seen = false;

		if (p[i].ifindex != ifindex || memcmp(p[i].sender.a, tpa, 4) != 0 ||
		    memcmp(p[i].dst.a, spa, 4) != 0)
			continue;
		hw_to_string(sha, hln, hw, sizeof(hw));
		for (size_t k = 0; k < p[i].n_answers; k++)
			seen |= strcmp(p[i].answers[k], hw) == 0;
		if (!seen && p[i].n_answers < FLEET_ANSWERS_MAX)
			snprintf(p[i].answers[p[i].n_answers++], sizeof(p[i].answers[0]), "%s", hw);
	}
}

struct arp_run {
	struct arp_probe *p;
	size_t n;
	unsigned int max_retries;
	int settle_ms;
	struct pollfd *fds;
	int *ifindex;
	size_t n_fds;
	long start, settled;
	size_t requests, retries;
};

static int open_port(struct arp_run *r, int ifindex, size_t *ret)
{
	struct sockaddr_ll at = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_ARP),
				  .sll_ifindex = ifindex };
	size_t k;
	int e;

	for (k = 0; k < r->n_fds && r->ifindex[k] != ifindex; k++)
		;
	*ret = k;
	if (k < r->n_fds)
		return 0;
	r->fds[k].fd =
		socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(ETH_P_ARP));
	r->fds[k].events = POLLIN;
	if (r->fds[k].fd < 0)
		return -errno;
	r->ifindex[k] = ifindex;
	r->n_fds++;
	e = only_replies(r->fds[k].fd);
	if (e < 0)
		return e;
	return bind(r->fds[k].fd, (struct sockaddr *)&at, sizeof(at)) < 0 ? -errno : 0;
}

void arp_end(struct arp_run *r, size_t *ret_requests, size_t *ret_retries)
{
	if (!r)
		return;
	if (ret_requests)
		*ret_requests = r->requests;
	if (ret_retries)
		*ret_retries = r->retries;
	for (size_t k = 0; k < r->n_fds; k++)
		if (r->fds[k].fd >= 0)
			close(r->fds[k].fd);
	free(r->fds);
	free(r->ifindex);
	free(r);
}

int arp_start(struct arp_probe *p, size_t n, unsigned int max_retries, int settle_ms,
	      struct arp_run **ret)
{
	struct arp_run *r = calloc(1, sizeof(*r));
	int e = -ENOMEM;

	if (!r)
		return -ENOMEM;
	*r = (struct arp_run){ .p = p,
			       .n = n,
			       .max_retries = max_retries,
			       .settle_ms = settle_ms,
			       .start = now_ms(),
			       .settled = -1 };
	/* a socket per port of the probes: as many as there are, at most one per probe */
	r->fds = calloc(n + 1, sizeof(*r->fds));
	r->ifindex = calloc(n + 1, sizeof(*r->ifindex));
	if (!r->fds || !r->ifindex)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		e = open_port(r, p[i].ifindex, &k);
		if (e < 0)
			goto fail;
		p[i].sent = 0;
	}
	*ret = r;
	return 0;
fail:
	arp_end(r, NULL, NULL);
	return e;
}

static int fd_of(const struct arp_run *r, int ifindex)
{
	for (size_t k = 0; k < r->n_fds; k++)
		if (r->ifindex[k] == ifindex)
			return r->fds[k].fd;
	return -1;
}

int arp_step(struct arp_run *r, int wait_ms)
{
	long now = now_ms(), next = now + wait_ms;
	bool done = true;

	for (size_t i = 0; i < r->n; i++) {
		struct arp_probe *p = &r->p[i];
		long due = p->sent == 0 ? r->start + p->at_ms : p->last_ms + RESEND_MS;

		if (p->n_answers)
			continue;
		if (p->sent > r->max_retries) {
			/* given up: its last request's answer has had RESEND_MS */
			if (now < due) {
				done = false;
				next = due < next ? due : next;
			}
			continue;
		}
		done = false;
		if (now < due) {
			next = due < next ? due : next;
			continue;
		}
		/* a request that cannot leave (the port went down) gets no answer: that is the result */
		(void)send_request(fd_of(r, p->ifindex), p);
		*(p->sent++ ? &r->retries : &r->requests) += 1;
		p->last_ms = now;
		next = now + RESEND_MS < next ? now + RESEND_MS : next;
	}
	if (done && r->settled < 0)
		r->settled = now + r->settle_ms;
	if (r->settled >= 0) {
		if (now >= r->settled)
			return 1;
		next = r->settled < next ? r->settled : next;
	}
	if (poll(r->fds, r->n_fds, (int)(next > now ? next - now : 0)) < 0 && errno != EINTR)
		return -errno;
	for (size_t k = 0; k < r->n_fds; k++) {
		uint8_t pkt[512];
		ssize_t len;

		while ((len = recv(r->fds[k].fd, pkt, sizeof(pkt), 0)) >= 0)
			take_reply(pkt, (size_t)len, r->ifindex[k], r->p, r->n);
	}
	return 0;
}

int arp_probe_all(struct arp_probe *p, size_t n, int timeout_ms, int settle_ms)
{
	struct arp_run *r;
	long deadline = now_ms() + timeout_ms;
	int e;

	for (size_t i = 0; i < n; i++)
		p[i].at_ms = 0;
	/* retried every RESEND_MS until the deadline */
	e = arp_start(p, n, (unsigned int)(timeout_ms / RESEND_MS), settle_ms, &r);
	if (e < 0)
		return e;
	while ((e = arp_step(r, (int)(deadline - now_ms()))) == 0 && now_ms() < deadline)
		;
	arp_end(r, NULL, NULL);
	return e < 0 ? e : 0;
}
