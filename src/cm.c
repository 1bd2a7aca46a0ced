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

/*
 * The next event on the channel within timeout_ms, which must be want: 0, a
 * negative errno, or -EHOSTUNREACH with what RDMA CM answered instead (step:
 * what it was asked) in ret->event
 */
static int wait_event(const struct cm_api *api, struct rdma_event_channel *ch, int timeout_ms,
		      int want, const char *step, struct ibh_cm_result *ret)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int r, type, status;

	r = poll(&pfd, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	if (api->get_event(ch, &ev) < 0)
		return -errno;
	type = ev->event;
	status = ev->status;
	api->ack_event(ev);
	if (type == want)
		return 0;
	snprintf(ret->event, sizeof(ret->event), "%s: event %d, status %d", step, type, status);
	return -EHOSTUNREACH;
}

int cm_resolve(const struct ibh_ip *src, const struct ibh_ip *dst, int timeout_ms,
	       struct ibh_cm_result *ret)
{
	static struct cm_api api;
	static int loaded = 1;
	struct rdma_event_channel *ch = NULL;
	struct rdma_cm_id *id = NULL;
	struct sockaddr_storage s, d;
	int r;

	if (loaded > 0)
		loaded = cm_load(&api);
	if (loaded < 0)
		return loaded;
	memset(ret, 0, sizeof(*ret));
	ch = api.create_channel();
	if (!ch)
		return errno ? -errno : -ENODEV;
	/* no O_NONBLOCK (fcntl would need glibc 2.28's fcntl64): poll says when to read */
	if (api.create_id(ch, &id, NULL, RDMA_PS_TCP) < 0) {
		r = -errno;
		goto cleanup;
	}
	to_sockaddr(src, &s);
	to_sockaddr(dst, &d);
	/* the address, then the route: each asked for, then answered */
	for (int route = 0; route <= 1; route++) {
		if ((route ? api.resolve_route(id, timeout_ms)
			   : api.resolve_addr(id, (struct sockaddr *)&s, (struct sockaddr *)&d,
					      timeout_ms)) < 0) {
			r = -errno;
			goto cleanup;
		}
		r = wait_event(&api, ch, timeout_ms + 500,
			       route ? RDMA_CM_EVENT_ROUTE_RESOLVED : RDMA_CM_EVENT_ADDR_RESOLVED,
			       route ? "route" : "address", ret);
		if (r < 0)
			goto cleanup;
	}
	if (id->verbs && id->verbs->device)
		snprintf(ret->dev, sizeof(ret->dev), "%s", api.device_name(id->verbs->device));
	ret->port = id->port_num;
	r = 0;
cleanup:
	if (id)
		api.destroy_id(id);
	api.destroy_channel(ch);
	return r;
}
#else
int cm_resolve(const struct ibh_ip *src, const struct ibh_ip *dst, int timeout_ms,
	       struct ibh_cm_result *ret)
{
	return -ENOSYS;
}
#endif
