// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Raw ARP (RFC 826) on a packet socket per port, SOCK_DGRAM so that the
 * kernel builds the link header (Ethernet or IPoIB). Requests carry the
 * probe's source address, so answers come back to it and to nothing else.
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
	memcpy(o + p->hw_len, p->src.a, 4);
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

		if (p[i].ifindex != ifindex || memcmp(p[i].src.a, tpa, 4) != 0 ||
		    memcmp(p[i].dst.a, spa, 4) != 0)
			continue;
		hw_to_string(sha, hln, hw, sizeof(hw));
		for (size_t k = 0; k < p[i].n_answers; k++)
			seen |= strcmp(p[i].answers[k], hw) == 0;
		if (!seen && p[i].n_answers < FLEET_ANSWERS_MAX)
			snprintf(p[i].answers[p[i].n_answers++], sizeof(p[i].answers[0]), "%s", hw);
	}
}

int arp_probe_all(struct arp_probe *p, size_t n, int timeout_ms, int settle_ms)
{
	/* a socket per port of the probes: as many as there are, at most one per probe */
	struct pollfd *fds = calloc(n + 1, sizeof(*fds));
	int *ifindex = calloc(n + 1, sizeof(*ifindex));
	size_t n_fds = 0;
	long deadline = now_ms() + timeout_ms, settled = -1, resend = now_ms() + RESEND_MS;
	int r = 0;

	if (!fds || !ifindex) {
		r = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < n_fds && ifindex[k] != p[i].ifindex; k++)
			;
		if (k == n_fds) {
			struct sockaddr_ll at = { .sll_family = AF_PACKET,
						  .sll_protocol = htons(ETH_P_ARP),
						  .sll_ifindex = p[i].ifindex };

			fds[k].fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
					   htons(ETH_P_ARP));
			fds[k].events = POLLIN;
			if (fds[k].fd < 0) {
				r = -errno;
				goto cleanup;
			}
			ifindex[k] = p[i].ifindex;
			n_fds++;
			r = only_replies(fds[k].fd);
			if (r < 0)
				goto cleanup;
			if (bind(fds[k].fd, (struct sockaddr *)&at, sizeof(at)) < 0) {
				r = -errno;
				goto cleanup;
			}
		}
		/* a request that cannot leave (the port went down) gets no answer: that is the result */
		(void)send_request(fds[k].fd, &p[i]);
	}
	for (;;) {
		long now = now_ms(),
		     until = settled >= 0 && settled < deadline ? settled : deadline;
		bool all = true;

		if (now >= until)
			break;
		if (now >= resend) {
			for (size_t i = 0; i < n; i++)
				for (size_t k = 0; k < n_fds && !p[i].n_answers; k++)
					if (ifindex[k] == p[i].ifindex)
						(void)send_request(fds[k].fd, &p[i]);
			resend = now + RESEND_MS;
		}
		if (poll(fds, n_fds, (int)((resend < until ? resend : until) - now)) < 0 &&
		    errno != EINTR) {
			r = -errno;
			goto cleanup;
		}
		for (size_t k = 0; k < n_fds; k++) {
			uint8_t pkt[512];
			ssize_t len;

			while ((len = recv(fds[k].fd, pkt, sizeof(pkt), 0)) >= 0)
				take_reply(pkt, (size_t)len, ifindex[k], p, n);
		}
		for (size_t i = 0; i < n && all; i++)
			all = p[i].n_answers > 0;
		if (all && settled < 0)
			settled = now_ms() + settle_ms;
	}
cleanup:
	for (size_t k = 0; k < n_fds; k++)
		if (fds[k].fd >= 0)
			close(fds[k].fd);
	free(fds);
	free(ifindex);
	return r;
}
