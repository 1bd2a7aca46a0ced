// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ask RDMA CM itself which RDMA device and port it would use from one
 * address to another, as an RDMA CM client does before it connects:
 * rdma_resolve_addr with the source address, then rdma_resolve_route. It
 * sends ARP (or neighbour solicitations), no data, and connects nothing.
 *
 * librdmacm is opened at run time: it is optional, and a host without
 * rdma-core's libraries still gets every other check.
 */
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build-config.h"
#include "cm.h"

#ifdef HAVE_RDMA_CMA
#include <rdma/rdma_cma.h>

struct cm_api {
	struct rdma_event_channel *(*create_channel)(void);
	void (*destroy_channel)(struct rdma_event_channel *);
	int (*create_id)(struct rdma_event_channel *, struct rdma_cm_id **, void *,
			 enum rdma_port_space);
	int (*destroy_id)(struct rdma_cm_id *);
	int (*resolve_addr)(struct rdma_cm_id *, struct sockaddr *, struct sockaddr *, int);
	int (*resolve_route)(struct rdma_cm_id *, int);
	int (*get_event)(struct rdma_event_channel *, struct rdma_cm_event **);
	int (*ack_event)(struct rdma_cm_event *);
	const char *(*device_name)(struct ibv_device *);
};

static int cm_load(struct cm_api *api)
{
	static const char *const names[] = {
		"rdma_create_event_channel", "rdma_destroy_event_channel", "rdma_create_id",
		"rdma_destroy_id",	     "rdma_resolve_addr",	   "rdma_resolve_route",
		"rdma_get_cm_event",	     "rdma_ack_cm_event",
	};
	void *cm = dlopen("librdmacm.so.1", RTLD_NOW | RTLD_LOCAL);
	void *verbs = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	void **slots = (void **)api;

	if (!cm || !verbs)
		return -ENOSYS;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		slots[i] = dlsym(cm, names[i]);
		if (!slots[i])
			return -ENOSYS;
	}
	*(void **)&api->device_name = dlsym(verbs, "ibv_get_device_name");
	return api->device_name ? 0 : -ENOSYS;
}

static void to_sockaddr(const struct ibh_ip *ip, struct sockaddr_storage *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (ip->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ret;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, ip->a, 4);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ret;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, ip->a, 16);
	}
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* one query's id: the address, then the route, each asked for and then answered */
static void cm_step(const struct cm_api *api, struct ibh_cm_query *q, struct rdma_cm_id *id,
		    int type, int status, int timeout_ms, size_t *pending)
{
	if (type == RDMA_CM_EVENT_ADDR_RESOLVED && q->r == 2) {
		q->r = 1;
		if (api->resolve_route(id, timeout_ms) == 0)
			return;
		q->r = -errno;
	} else if (type == RDMA_CM_EVENT_ROUTE_RESOLVED && q->r == 1) {
		if (id->verbs && id->verbs->device)
			snprintf(q->res.dev, sizeof(q->res.dev), "%s",
				 api->device_name(id->verbs->device));
		q->res.port = id->port_num;
		q->r = 0;
	} else {
		snprintf(q->res.event, sizeof(q->res.event), "%s: event %d, status %d",
			 q->r == 1 ? "route" : "address", type, status);
		/*
		 * an error event's status is the errno of the step (ETIMEDOUT: no ARP
		 * answer); EACCES and EPERM say "not asked" to the caller
		 */
		q->r = status < 0 && status != -EACCES && status != -EPERM ? status : -EHOSTUNREACH;
	}
	(*pending)--;
}

int cm_resolve_all(struct ibh_cm_query *q, size_t n, int timeout_ms)
{
	static struct cm_api api;
	static int loaded = 1;
	struct rdma_event_channel *ch = NULL;
	struct rdma_cm_id **ids = NULL;
	size_t pending = 0;
	long long deadline;
	int r = 0;

	if (loaded > 0)
		loaded = cm_load(&api);
	if (loaded < 0)
		return loaded;
	ids = calloc(n + 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	ch = api.create_channel();
	if (!ch) {
		r = errno ? -errno : -ENODEV;
		goto cleanup;
	}
	/* no O_NONBLOCK (fcntl would need glibc 2.28's fcntl64): poll says when to read */
	for (size_t i = 0; i < n; i++) {
		struct sockaddr_storage s, d;

		memset(&q[i].res, 0, sizeof(q[i].res));
		/* 2: the address asked for, 1: the route (cm_step), <= 0: answered */
		q[i].r = 2;
		to_sockaddr(&q[i].src, &s);
		to_sockaddr(&q[i].dst, &d);
		if (api.create_id(ch, &ids[i], &q[i], RDMA_PS_TCP) < 0) {
			q[i].r = -errno;
			ids[i] = NULL;
			continue;
		}
		if (api.resolve_addr(ids[i], (struct sockaddr *)&s, (struct sockaddr *)&d,
				     timeout_ms) < 0) {
			q[i].r = -errno;
			continue;
		}
		pending++;
	}
	/* RDMA CM's own timeouts end each query; the deadline is for one it never answers */
	deadline = now_ms() + timeout_ms + 500;
	while (pending) {
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		long long left = deadline - now_ms();
		struct rdma_cm_event *ev;
		struct ibh_cm_query *at;
		struct rdma_cm_id *id;
		int got, type, status;

		got = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			goto cleanup;
		}
		if (got == 0)
			break;
		if (api.get_event(ch, &ev) < 0) {
			r = -errno;
			goto cleanup;
		}
		id = ev->id;
		at = id->context;
		type = ev->event;
		status = ev->status;
		api.ack_event(ev);
		/* an event of a query that has its answer already changes nothing */
		if (at && at->r > 0)
			cm_step(&api, at, id, type, status, timeout_ms, &pending);
	}
	for (size_t i = 0; i < n; i++)
		if (q[i].r > 0) {
			snprintf(q[i].res.event, sizeof(q[i].res.event), "%s: no answer in %d ms",
				 q[i].r == 1 ? "route" : "address", timeout_ms + 500);
			q[i].r = -ETIMEDOUT;
		}
cleanup:
	for (size_t i = 0; i < n; i++)
		if (ids[i])
			api.destroy_id(ids[i]);
	if (ch)
		api.destroy_channel(ch);
	free(ids);
	return r;
}

int cm_resolve(const struct ibh_ip *src, const struct ibh_ip *dst, int timeout_ms,
	       struct ibh_cm_result *ret)
{
	struct ibh_cm_query q = { .src = *src, .dst = *dst };
	int r = cm_resolve_all(&q, 1, timeout_ms);

	*ret = q.res;
	return r < 0 ? r : q.r;
}
#else
int cm_resolve_all(struct ibh_cm_query *q, size_t n, int timeout_ms)
{
	return -ENOSYS;
}

int cm_resolve(const struct ibh_ip *src, const struct ibh_ip *dst, int timeout_ms,
	       struct ibh_cm_result *ret)
{
	return -ENOSYS;
}
#endif
