// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet view's ports (SPEC 10): the inventory's documents read into
 * ports, sorted by host as people sort names, indexed by name and hardware
 * address; the verdicts' table. The answers are facts.c's, the judge
 * judge.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "array.h"
#include "fleet.h"
#include "json.h"

const struct fleet_cause_info fleet_causes[FLEET_CAUSE_MAX] = {
	{ FLEET_OK, "ok", "the pair works", "#4caf50" },
	{ FLEET_LOCAL, "local",
	  "both ports on one host, which does not set AcceptLocal: not judged", "#d0d0d0" },
	{ FLEET_UNKNOWN, "unknown",
	  "no host said: the source, or every prober of the address, sent no answers", "#fff176" },
	{ FLEET_STALE, "stale",
	  "the inventory lists an address the port does not hold now: take it again", "#cddc39" },
	{ FLEET_PORT_DOWN, "port-down", "the port is down", "#9e9e9e" },
	{ FLEET_NO_GID, "no-gid", "the RoCE port holds no GID for the address", "#607d8b" },
	{ FLEET_NO_ROUTE, "no-route", "no route from the source address", "#795548" },
	{ FLEET_NOT_APPLIED, "not-applied", "ib-hook is not applied on the host", "#e91e63" },
	{ FLEET_NO_RULE, "no-rule", "the address has no rule of ib-hook (drift)", "#f44336" },
	{ FLEET_WRONG_PORT, "wrong-port", "the route leaves through another port", "#ff5722" },
	{ FLEET_RP_FILTER, "rp-filter", "a strict reverse-path filter drops the traffic",
	  "#9c27b0" },
	{ FLEET_ARP_FLUX, "arp-flux", "another port answers ARP for the address", "#ff9800" },
	{ FLEET_NO_ANSWER, "no-answer", "nothing answers ARP for the address", "#3f51b5" },
	{ FLEET_LOCAL_DROPPED, "local-dropped",
	  "the port drops ARP from its host's own addresses (accept_local=0 or arp_filter=1)",
	  "#00bcd4" },
	{ FLEET_UNRESOLVED, "unresolved", "RDMA CM does not resolve the peer from the address",
	  "#827717" },
	{ FLEET_ADDRESS_CONFLICT, "address-conflict",
	  "the inventory lists the address on two ports (a conflict): named at both", "#b71c1c" },
	{ FLEET_HWADDR_CONFLICT, "hwaddr-conflict", "two ports have one hardware address",
	  "#4a148c" },
	{ FLEET_NEIGH_STALE, "neigh-stale",
	  "a neighbour table maps the address to another port's hardware address: the source's "
	  "for the request, or the destination's for the reply where rp_filter=1 drops it",
	  "#ffc107" },
};

const char *fleet_cause_word(enum fleet_cause c)
{
	for (size_t i = 0; i < FLEET_CAUSE_MAX; i++)
		if (fleet_causes[i].cause == c)
			return fleet_causes[i].word;
	return "?";
}

static void index_free(struct fleet *f)
{
	free(f->by_name);
	free(f->by_hwaddr);
	f->by_name = f->by_hwaddr = NULL;
	f->n_indexed = 0;
}

void fleet_free_ports(struct fleet *f)
{
	for (size_t i = 0; i < f->n_ports; i++)
		free(f->ports[i].addrs);
	free(f->ports);
	free(f->probes);
	free(f->reported);
	free(f->portless);
	index_free(f);
	memset(f, 0, sizeof(*f));
}

static int name_cmp(const struct fleet_port *a, const char *host, const char *ifname)
{
	int c = strcmp(a->host, host);

	return c ? c : strcmp(a->ifname, ifname);
}

static int by_name_cmp(const void *x, const void *y)
{
	const struct fleet_port *a = *(const struct fleet_port *const *)x,
				*b = *(const struct fleet_port *const *)y;

	return name_cmp(a, b->host, b->ifname);
}

static int by_hwaddr_cmp(const void *x, const void *y)
{
	const struct fleet_port *a = *(const struct fleet_port *const *)x,
				*b = *(const struct fleet_port *const *)y;
	int c = strcasecmp(a->hwaddr, b->hwaddr);

	/* ties (a hardware address twice) by position: the first port, as a linear look-up */
	return c ? c : a < b ? -1 : a > b;
}

/*
 * Sorted look-ups by host and name, and by hardware address, and each port's
 * host span (a host's ports are contiguous: one inventory document each, and
 * fleet_sort is stable): the join stays within the square of the ports
 * (issue 38), where linear look-ups per probe made it the cube.
 */
int fleet_index(struct fleet *f)
{
	index_free(f);
	f->by_name = malloc((f->n_ports + 1) * sizeof(*f->by_name));
	f->by_hwaddr = malloc((f->n_ports + 1) * sizeof(*f->by_hwaddr));
	if (!f->by_name || !f->by_hwaddr) {
		index_free(f);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->n_ports; i++)
		f->by_name[i] = f->by_hwaddr[i] = &f->ports[i];
	if (f->n_ports) {
		qsort(f->by_name, f->n_ports, sizeof(*f->by_name), by_name_cmp);
		qsort(f->by_hwaddr, f->n_ports, sizeof(*f->by_hwaddr), by_hwaddr_cmp);
	}
	f->n_hosts = 0;
	for (size_t i = 0, n; i < f->n_ports; i += n, f->n_hosts++) {
		bool routed = false;

		for (n = 0;
		     i + n < f->n_ports && strcmp(f->ports[i + n].host, f->ports[i].host) == 0; n++)
			routed |= f->ports[i + n].routed;
		for (size_t k = i; k < i + n; k++) {
			f->ports[k].host_index = f->n_hosts;
			f->ports[k].host_first = i;
			f->ports[k].host_n = n;
			f->ports[k].host_routed = routed;
		}
	}
	f->n_indexed = f->n_ports;
	return 0;
}

int fleet_port_find(const struct fleet *f, const char *host, const char *ifname, size_t *ret)
{
	size_t lo = 0, hi = f->n_indexed;

	if (f->n_indexed != f->n_ports) {
		for (size_t i = 0; i < f->n_ports; i++)
			if (name_cmp(&f->ports[i], host, ifname) == 0) {
				*ret = i;
				return 0;
			}
		return -ENOENT;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = name_cmp(f->by_name[mid], host, ifname);

		if (c == 0) {
			*ret = (size_t)(f->by_name[mid] - f->ports);
			return 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

static bool host_known(const struct fleet *f, const char *host)
{
	/* once per document: hosts x ports in all, within the square */
	for (size_t i = 0; i < f->n_ports; i++)
		if (strcmp(f->ports[i].host, host) == 0)
			return true;
	for (size_t i = 0; i < f->n_portless; i++)
		if (strcmp(f->portless[i], host) == 0)
			return true;
	return false;
}

/* s into buf of size: false when it does not fit or is no string */
static bool copy(char *buf, size_t size, const char *s)
{
	if (!s || strlen(s) >= size)
		return false;
	memcpy(buf, s, strlen(s) + 1);
	return true;
}

static int sysctl_of(const struct json *o, const char *key)
{
	double v = json_get_number(o, key, -1);

	return v >= 0 && v < 256 ? (int)v : -1;
}

/* a number that fits, else 0: a cast of what does not is undefined */
static uint32_t uint32_of(const struct json *o, const char *key)
{
	double v = json_get_number(o, key, 0);

	return v >= 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* which of p's addresses the GIDs of its RoCE port (rdma) are for */
static int gids_of(const struct json *rdma, struct fleet_port *p)
{
	const struct json *gids = json_get(rdma, "gids");
	const char *layer = json_get_string(rdma, "link_layer");

	p->roce = layer && strcmp(layer, "Ethernet") == 0;
	if (!gids)
		return 0;
	if (gids->type != JSON_ARRAY)
		return -EINVAL;
	for (size_t i = 0; i < gids->n_items; i++) {
		const char *a = json_get_string(gids->items[i], "address");
		struct ibh_ip ip;
		size_t k = 0;

		if (!a || ip_from_record(a, &ip, true) < 0)
			return -EINVAL;
		while (k < p->n_addrs && !ip_same_address(&p->addrs[k].ip, &ip))
			k++;
		if (k == p->n_addrs)
			return -EINVAL;
		p->addrs[k].gid = true;
	}
	return 0;
}

static int port_of(const struct json *o, const char *host, struct fleet_port *p)
{
	const struct json *addrs = json_get(o, "addresses"), *rdma = json_get(o, "rdma");

	memset(p, 0, sizeof(*p));
	if (!copy(p->host, sizeof(p->host), host) ||
	    !copy(p->ifname, sizeof(p->ifname), json_get_string(o, "interface")) ||
	    !copy(p->hwaddr, sizeof(p->hwaddr), json_get_string(o, "hwaddr")) || !*p->hwaddr ||
	    !addrs || addrs->type != JSON_ARRAY)
		return -EINVAL;
	/* as many as the port holds: no limit the writer does not have */
	p->addrs = calloc(addrs->n_items + 1, sizeof(*p->addrs));
	if (!p->addrs)
		return -ENOMEM;
	p->n_addrs = addrs->n_items;
	for (size_t i = 0; i < addrs->n_items; i++) {
		if (addrs->items[i]->type != JSON_STRING ||
		    ip_from_record(addrs->items[i]->s, &p->addrs[i].ip, true) < 0)
			return -EINVAL;
	}
	p->up = json_get_bool(o, "up", false);
	p->routed = json_get_bool(o, "routed", false);
	p->arp_ignore = sysctl_of(o, "arp_ignore");
	p->arp_filter = sysctl_of(o, "arp_filter");
	p->rp_filter = sysctl_of(o, "rp_filter");
	p->accept_local = sysctl_of(o, "accept_local");
	p->local_delivery = json_get_bool(o, "local_delivery", false);
	if (rdma && rdma->type == JSON_OBJECT) {
		p->rdma = true;
		if (!copy(p->rdma_dev, sizeof(p->rdma_dev), json_get_string(rdma, "device")) ||
		    !copy(p->rdma_state, sizeof(p->rdma_state), json_get_string(rdma, "state")))
			return -EINVAL;
		p->rdma_port = uint32_of(rdma, "port");
		return gids_of(rdma, p);
	}
	return 0;
}

int fleet_add_inventory(struct fleet *f, const struct json *doc)
{
	const char *host = json_get_string(doc, "host");
	const struct json *ports = json_get(doc, "ports"), *group;
	int r;

	if (!host || !*host || strlen(host) >= FLEET_NAME_MAX || !ports ||
	    ports->type != JSON_ARRAY || json_get_number(doc, "version", 0) != 1)
		return -EINVAL;
	if (host_known(f, host))
		return -EEXIST;
	group = json_get(doc, "group");
	if (group && (group->type != JSON_STRING || strlen(group->s) >= sizeof(f->ports->group)))
		return -EINVAL;
	if (ports->n_items == 0) {
		/* a host with no port is one whose pairs nobody sees: the join says so */
		r = array_grow(&f->portless, &f->cap_portless, f->n_portless, sizeof(*f->portless),
			       8);
		if (r < 0)
			return r;
		copy(f->portless[f->n_portless++], sizeof(f->portless[0]), host);
	}
	for (size_t i = 0; i < ports->n_items; i++) {
		r = array_grow(&f->ports, &f->cap_ports, f->n_ports, sizeof(*f->ports), 64);
		if (r < 0)
			return r;
		r = port_of(ports->items[i], host, &f->ports[f->n_ports]);
		if (r < 0) {
			free(f->ports[f->n_ports].addrs);
			return r;
		}
		if (group)
			copy(f->ports[f->n_ports].group, sizeof(f->ports->group), group->s);
		f->n_ports++;
	}
	return 0;
}

/* host names as people sort them: n2 before n10 */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			char *ea, *eb;
			unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);

			if (x != y)
				return x < y ? -1 : 1;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int port_host_cmp(const void *x, const void *y)
{
	const struct fleet_port *a = *(const struct fleet_port *const *)x,
				*b = *(const struct fleet_port *const *)y;
	int c = natural_cmp(a->host, b->host);

	return c ? c : a < b ? -1 : a > b;
}

int fleet_sort(struct fleet *f)
{
	struct fleet_port *sorted;
	const struct fleet_port **order;

	if (f->n_probes || f->facts)
		return -EBUSY;
	sorted = malloc((f->n_ports + 1) * sizeof(*sorted));
	order = malloc((f->n_ports + 1) * sizeof(*order));
	if (!sorted || !order) {
		free(sorted);
		free(order);
		return -ENOMEM;
	}
	/* stable (by position on ties), so a host's ports keep the order its inventory gave them */
	for (size_t i = 0; i < f->n_ports; i++)
		order[i] = &f->ports[i];
	if (f->n_ports)
		qsort(order, f->n_ports, sizeof(*order), port_host_cmp);
	for (size_t i = 0; i < f->n_ports; i++)
		sorted[i] = *order[i];
	free(order);
	free(f->ports);
	f->ports = sorted;
	f->cap_ports = f->n_ports + 1;
	return fleet_index(f);
}

int fleet_read(struct fleet *f, const char *text, int (*add)(struct fleet *, const struct json *),
	       size_t *ret_error)
{
	const char *p = text, *end;
	struct json *doc;
	int r;

	for (;;) {
		size_t at = 0;

		r = json_parse(p, &end, &at, &doc);
		if (r == -ENODATA)
			return f->n_indexed == f->n_ports ? 0 : fleet_index(f);
		if (r == 0) {
			r = add(f, doc);
			json_free(doc);
		}
		if (r < 0) {
			*ret_error = (size_t)(p - text) + at;
			return r;
		}
		p = end;
	}
}
