// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * This host is the one of the inventory whose ports it has: same names and
 * hardware addresses (a host name may be short here and long there). Only
 * the source side is asked here; whatever lies at the destination (its ARP
 * settings, its reverse-path filter, its route back) is found by the join
 * from the destination's own inventory and answers.
 */
#include <errno.h>
#include <linux/neighbour.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <string.h>

#include "arp.h"
#include "array.h"
#include "classes.h"
#include "cm.h"
#include "fleet.h"
#include "join.h"
#include "kernel.h"
#include "probe.h"
#include "report.h"
#include "sample.h"
#include "select.h"
#include "snapshot.h"

/* all probes together are bounded by this; answers settle within a few ms on one fabric */
#define ARP_TIMEOUT_MS 2000
#define ARP_SETTLE_MS  50
/* and all RDMA CM questions together by the same, after them */
#define CM_TIMEOUT_MS ARP_TIMEOUT_MS

static const struct ibh_link *link_named(const struct ibh_link *links, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(links[i].name, name) == 0)
			return &links[i];
	return NULL;
}

/* the host of the inventory whose ports are here: name and hardware address */
static int find_self(const struct fleet *f, const struct ibh_link *links, size_t n_links,
		     const char **ret)
{
	for (size_t i = 0; i < f->n_ports; i++) {
		const struct ibh_link *l = link_named(links, n_links, f->ports[i].ifname);
		uint8_t hw[IBH_HW_MAX];
		int len = hw_from_string(f->ports[i].hwaddr, hw, sizeof(hw));

		if (!l || len < 0 || (size_t)len != l->hw_len || memcmp(hw, l->hw, l->hw_len) != 0)
			continue;
		*ret = f->ports[i].host;
		return 0;
	}
	return -ENOENT;
}

static void print_probe(FILE *out, const struct fleet *f, const struct fleet_probe *p, bool json,
			bool first)
{
	const struct fleet_port *from = &f->ports[p->from], *to = &f->ports[p->to];
	char s[64], d[64];

	ip_to_string(&p->src, s, sizeof(s), false);
	ip_to_string(&p->dst, d, sizeof(d), false);
	if (!json) {
		fprintf(out, "%s %s -> %s %s %s: route %s", from->ifname, s, to->host, to->ifname,
			d, p->route ? p->route_dev : "none");
		if (p->route)
			fprintf(out, " table %u", p->route_table);
		fprintf(out, "; arp");
		if (!p->probed)
			fprintf(out, " not asked");
		for (size_t i = 0; i < p->n_answers; i++)
			fprintf(out, " %s", p->answers[i]);
		if (p->probed && !p->n_answers)
			fprintf(out, " no answer");
		if (p->cm == FLEET_CM_RESOLVED)
			fprintf(out, "; rdma_cm %s port %u", p->cm_dev, p->cm_port);
		else if (p->cm == FLEET_CM_FAILED)
			fprintf(out, "; rdma_cm %s", p->cm_error);
		fprintf(out, "\n");
		return;
	}
	fprintf(out, "%s{\"interface\":", first ? "" : ",");
	report_json_string(out, from->ifname);
	fprintf(out, ",\"address\":\"%s\",\"peer_host\":", s);
	report_json_string(out, to->host);
	fprintf(out, ",\"peer_interface\":");
	report_json_string(out, to->ifname);
	fprintf(out, ",\"peer\":\"%s\",\"route_dev\":", d);
	if (p->route) {
		char via[64];

		report_json_string(out, p->route_dev);
		fprintf(out, ",\"route_table\":%u,\"route_via\":", p->route_table);
		if (p->route_via.family)
			fprintf(out, "\"%s\"",
				ip_to_string(&p->route_via, via, sizeof(via), false));
		else
			fprintf(out, "null");
	} else
		fprintf(out, "null,\"route_table\":null,\"route_via\":null");
	fprintf(out, ",\"arp\":");
	if (!p->probed)
		fprintf(out, "null");
	else {
		fprintf(out, "[");
		for (size_t i = 0; i < p->n_answers; i++)
			fprintf(out, "%s\"%s\"", i ? "," : "", p->answers[i]);
		fprintf(out, "]");
	}
	fprintf(out, ",\"rdma_cm\":");
	if (p->cm == FLEET_CM_RESOLVED) {
		fprintf(out, "{\"device\":");
		report_json_string(out, p->cm_dev);
		fprintf(out, ",\"port\":%u}}", p->cm_port);
	} else if (p->cm == FLEET_CM_FAILED) {
		fprintf(out, "{\"error\":");
		report_json_string(out, p->cm_error);
		fprintf(out, "}}");
	} else
		fprintf(out, "null}");
}

/* the link ifindex holds ip (a whole address) now */
static bool holds(const struct ibh_snapshot *s, int ifindex, const struct ibh_ip *ip)
{
	for (size_t k = 0; k < s->n_addrs; k++)
		if (s->addrs[k].ifindex == ifindex && ip_same_address(&s->addrs[k].addr.ip, ip))
			return true;
	return false;
}

/*
 * What the inventory says of this host's addresses that is no longer so:
 * an address it lists on a port of this host that the port does not hold
 * now, and an address a port of this host holds that it lists on another
 * port (one moved here). Each is marked stale: no probe speaks for it (an
 * ARP request from an address this host does not hold would make the asked
 * host's neighbour entry for it point here: issue 38), and the answer says
 * so. The number of them.
 */
static size_t find_stale(struct fleet *f, const char *self, const struct ibh_snapshot *s)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_ports; i++) {
		struct fleet_port *a = &f->ports[i];
		const struct ibh_link *l;

		if (strcmp(a->host, self) != 0)
			continue;
		l = link_named(s->links, s->n_links, a->ifname);
		for (size_t k = 0; k < a->n_addrs; k++)
			if (!l || !holds(s, l->ifindex, &a->addrs[k].ip)) {
				n += !a->addrs[k].stale;
				a->addrs[k].stale = true;
			}
		for (size_t j = 0; l && j < s->n_addrs; j++) {
			if (s->addrs[j].ifindex != l->ifindex)
				continue;
			for (size_t o = 0; o < f->n_ports; o++)
				for (size_t k = 0; o != i && k < f->ports[o].n_addrs; k++)
					if (ip_same_address(&f->ports[o].addrs[k].ip,
							    &s->addrs[j].addr.ip)) {
						n += !f->ports[o].addrs[k].stale;
						f->ports[o].addrs[k].stale = true;
					}
		}
	}
	return n;
}

/* the stale addresses (find_stale): a JSON array, or a line each */
static void print_stale(FILE *out, const struct fleet *f, bool json)
{
	bool first = true;

	if (json)
		fprintf(out, ",\"stale\":[");
	for (size_t i = 0; i < f->n_ports; i++)
		for (size_t k = 0; k < f->ports[i].n_addrs; k++) {
			const struct fleet_port *p = &f->ports[i];
			char a[64];

			if (!p->addrs[k].stale)
				continue;
			ip_to_string(&p->addrs[k].ip, a, sizeof(a), true);
			if (!json) {
				fprintf(out,
					"stale inventory: it lists %s on %s of %s, which does not "
					"hold it now: not checked (take the inventory again)\n",
					a, p->ifname, p->host);
				continue;
			}
			fprintf(out, "%s{\"host\":", first ? "" : ",");
			report_json_string(out, p->host);
			fprintf(out, ",\"interface\":");
			report_json_string(out, p->ifname);
			fprintf(out, ",\"address\":\"%s\"}", a);
			first = false;
		}
	if (json)
		fprintf(out, "]");
}

/*
 * The probes from every address of this host's ports to every other host's
 * addresses, and to its own other ports' where they are judged (the port's
 * host sets AcceptLocal): by ARP alone, so IPv4 in one prefix only.
 */
static int plan_probes(struct fleet *f, const char *self)
{
	for (size_t i = 0; i < f->n_ports; i++) {
		const struct fleet_port *a = &f->ports[i];

		if (strcmp(a->host, self) != 0)
			continue;
		for (size_t j = 0; j < f->n_ports; j++) {
			const struct fleet_port *b = &f->ports[j];
			bool local = strcmp(b->host, self) == 0;

			if (local && (i == j || !b->local_delivery))
				continue;
			for (size_t x = 0; x < a->n_addrs; x++)
				for (size_t y = 0; y < b->n_addrs; y++) {
					struct fleet_probe *p;

					const struct ibh_ip *src = &a->addrs[x].ip,
							    *dst = &b->addrs[y].ip;

					/* never from or to what the inventory has wrong */
					if (src->family != dst->family || a->addrs[x].stale ||
					    b->addrs[y].stale ||
					    (local &&
					     (src->family != AF_INET || !ip_in_prefix(src, dst))))
						continue;
					if (array_grow(&f->probes, &f->cap_probes, f->n_probes,
						       sizeof(*f->probes), 256) < 0)
						return -ENOMEM;
					p = &f->probes[f->n_probes++];
					*p = (struct fleet_probe){ .from = i, .to = j };
					p->src = *src;
					p->dst = *dst;
					p->onlink = ip_in_prefix(&p->src, &p->dst);
					p->src.len = p->dst.len = (uint8_t)ip_bits(p->src.family);
				}
		}
	}
	return 0;
}

/*
 * RDMA CM from every pair's source address whose port has an RDMA device,
 * all at once: *ret_how says whether it was asked, or why the answer is
 * routing and ARP only
 */
static int ask_cm(struct fleet *f, const struct ibh_link *links, size_t n_links,
		  const char **ret_how)
{
	struct ibh_cm_query *q = calloc(f->n_probes + 1, sizeof(*q));
	size_t *of = calloc(f->n_probes + 1, sizeof(*of)), n = 0;
	int r = 0;

	if (!q || !of) {
		r = -ENOMEM;
		goto cleanup;
	}
	*ret_how = "no RDMA device: routing and ARP only";
	if (!select_rdma_any())
		goto cleanup;
	for (size_t i = 0; i < f->n_probes; i++) {
		const struct ibh_link *l =
			link_named(links, n_links, f->ports[f->probes[i].from].ifname);

		if (!l || !select_rdma_port(l->ifindex))
			continue;
		q[n].src = f->probes[i].src;
		q[n].dst = f->probes[i].dst;
		of[n++] = i;
	}
	r = kernel->cm_resolve_all(q, n, CM_TIMEOUT_MS);
	*ret_how = r == 0	  ? "asked"
		   : r == -ENOSYS ? "no librdmacm: routing and ARP only"
		   : r == -EACCES || r == -EPERM
			   ? "no access to /dev/infiniband/rdma_cm: routing and ARP only"
			   : "RDMA CM could not be asked: routing and ARP only";
	for (size_t k = 0; r == 0 && k < n; k++) {
		struct fleet_probe *p = &f->probes[of[k]];

		p->cm = q[k].r == 0 ? FLEET_CM_RESOLVED : FLEET_CM_FAILED;
		snprintf(p->cm_dev, sizeof(p->cm_dev), "%s", q[k].res.dev);
		p->cm_port = q[k].res.port;
		if (q[k].r < 0)
			snprintf(p->cm_error, sizeof(p->cm_error), "%s%s%s", strerror(-q[k].r),
				 q[k].res.event[0] ? "; " : "", q[k].res.event);
	}
	r = r == -ENOMEM ? r : 0;
cleanup:
	free(q);
	free(of);
	return r;
}

/*
 * The request for dst from src on l, if ARP can ask it there: IPv4, the
 * port up, Ethernet or IPoIB. real: the request says src (else 0.0.0.0)
 */
static bool arp_fill(struct arp_probe *a, const struct ibh_link *l, const struct ibh_ip *src,
		     const struct ibh_ip *dst, bool real)
{
	if (!l || !l->up || src->family != AF_INET ||
	    (l->type != ARPHRD_ETHER && l->type != ARPHRD_INFINIBAND) || l->hw_len == 0 ||
	    l->hw_len > sizeof(a->hw) || l->broadcast_len != l->hw_len)
		return false;
	memcpy(a->hw, l->hw, l->hw_len);
	memcpy(a->broadcast, l->broadcast, l->hw_len);
	a->hw_len = l->hw_len;
	a->ifindex = l->ifindex;
	a->hwtype = (uint16_t)l->type;
	a->src = *src;
	a->dst = *dst;
	a->src.len = a->dst.len = 32;
	a->sender = (struct ibh_ip){ .family = AF_INET, .len = 32 };
	if (real)
		a->sender = a->src;
	return true;
}

/*
 * A request from port from to port to carries its source address, not
 * 0.0.0.0, where 0.0.0.0 would not be asked what a real request is:
 * between two ports of one host (the pair is about accept_local, which the
 * kernel checks only for a real sender), and towards a host some port of
 * which sets arp_filter=1 (the kernel skips arp_filter for 0.0.0.0: its
 * ports would answer where a real request is refused). Those asked hosts
 * learn the prober's address, as the first connection would teach them.
 */
static bool real_sender(const struct fleet *f, size_t from, size_t to)
{
	const struct fleet_port *b = &f->ports[to];

	if (strcmp(f->ports[from].host, b->host) == 0)
		return true;
	for (size_t i = 0; i < f->n_ports; i++)
		if (strcmp(f->ports[i].host, b->host) == 0 && f->ports[i].arp_filter == 1)
			return true;
	return false;
}

static int ask(struct ibh_kernel *kn, struct fleet *f, const struct ibh_link *links, size_t n_links)
{
	struct arp_probe *arp = calloc(f->n_probes + 1, sizeof(*arp));
	size_t *of = calloc(f->n_probes + 1, sizeof(*of)), n_arp = 0;
	int r = 0;

	if (!arp || !of) {
		r = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < f->n_probes; i++) {
		struct fleet_probe *p = &f->probes[i];
		const struct ibh_link *l = link_named(links, n_links, f->ports[p->from].ifname);
		struct arp_probe *a = &arp[n_arp];
		struct ibh_route rt;

		if (kernel->route_get(kn, &p->dst, &p->src, &rt) == 0) {
			struct ibh_link via;

			p->route = true;
			p->route_table = rt.table;
			if (rt.gw.family)
				p->route_via = rt.gw;
			if (rt.oif > 0 && kernel->get_link_by_index(kn, rt.oif, &via) == 0)
				snprintf(p->route_dev, sizeof(p->route_dev), "%s", via.name);
		}
		if (!p->onlink || !arp_fill(a, l, &p->src, &p->dst, real_sender(f, p->from, p->to)))
			continue;
		of[n_arp++] = i;
	}
	r = arp_probe_all(arp, n_arp, ARP_TIMEOUT_MS, ARP_SETTLE_MS);
	if (r < 0)
		goto cleanup;
	for (size_t k = 0; k < n_arp; k++) {
		struct fleet_probe *p = &f->probes[of[k]];

		p->probed = true;
		p->n_answers = arp[k].n_answers;
		memcpy(p->answers, arp[k].answers, sizeof(p->answers));
	}
cleanup:
	free(arp);
	free(of);
	return r;
}

static int run_v1(const char *path, bool json, FILE *out, size_t *ret_error)
{
	struct fleet f = {};
	char *inventory = NULL;
	struct ibh_snapshot s = {};
	const char *self, *cm = NULL;
	size_t n_stale;
	int r;

	r = join_read_file(path, &inventory);
	if (r < 0)
		goto cleanup;
	r = fleet_read(&f, inventory, fleet_add_inventory, ret_error);
	if (r < 0)
		goto cleanup;
	r = snapshot_open(&s);
	if (r < 0)
		goto cleanup;
	r = find_self(&f, s.links, s.n_links, &self);
	if (r < 0)
		goto cleanup;
	n_stale = find_stale(&f, self, &s);
	r = plan_probes(&f, self);
	if (r < 0)
		goto cleanup;
	r = ask(s.k, &f, s.links, s.n_links);
	if (r < 0)
		goto cleanup;
	/* after the ARP probes: RDMA CM's own ARP requests would be answers to them */
	r = ask_cm(&f, s.links, s.n_links, &cm);
	if (r < 0)
		goto cleanup;
	if (json) {
		fprintf(out, "{\"version\":1,\"host\":");
		report_json_string(out, self);
		fprintf(out, ",\"rdma_cm\":");
		report_json_string(out, cm);
		print_stale(out, &f, true);
		fprintf(out, ",\"probes\":[");
	}
	for (size_t i = 0; i < f.n_probes; i++)
		print_probe(out, &f, &f.probes[i], json, i == 0);
	if (json)
		fprintf(out, "]}\n");
	else {
		print_stale(out, &f, false);
		fprintf(out, "%zu pairs of addresses checked from %s (RDMA CM: %s)\n", f.n_probes,
			self, cm);
	}
	/* what the inventory has wrong was not checked: not the answer of a current one */
	r = n_stale ? 1 : 0;
cleanup:
	snapshot_close(&s);
	fleet_free(&f);
	free(inventory);
	return r;
}

/* answers version 2 (SPEC 10.1): routes by class, the sampled probes, this host's neighbour entries */

/* what the kernel said of the way from a source address to a peer */
/* one source address of this host and its peers: the fleet's addresses it asks about */
struct source {
	size_t port, addr;
	struct ibh_ip *peers; /* whole addresses, each once */
	size_t *result, n_peers, cap_peers;
	struct class_item *items;
	size_t n_items, rest;
	bool rdma;
};

struct run2 {
	struct fleet f;
	struct ibh_snapshot s;
	const char *self;
	size_t self_host;
	struct sample sample;
	struct source *src;
	size_t n_src;
	struct class_result *results;
	size_t n_results, cap_results;
	struct arp_probe *arp;
	size_t n_arp;
	unsigned int window_ms;
	size_t requests, retries, answered;
	struct ibh_cm_query *cm;
	size_t *cm_src, n_cm;
	const char *cm_how;
	struct ibh_neigh *before;
	size_t n_before;
	bool *filtering; /* per sample host: a port sets arp_filter=1 */
	bool no_bound;	 /* the kernel cannot look up bound to a port (no FIB_MATCH) */
};

static bool addr_usable(const struct fleet_addr *a)
{
	return !a->stale && (a->ip.family != AF_INET6 || !IPV6_LINK_LOCAL(a->ip.a));
}

static int add_peer(struct source *x, const struct ibh_ip *ip)
{
	if (array_grow(&x->peers, &x->cap_peers, x->n_peers, sizeof(*x->peers), 64) < 0)
		return -ENOMEM;
	x->peers[x->n_peers] = *ip;
	x->peers[x->n_peers++].len = (uint8_t)ip_bits(ip->family);
	return 0;
}

static int by_address(const void *a, const void *b)
{
	return ip_compare(a, b);
}

/* each peer once (an address two ports claim is one peer: one lookup) */
static void unique_peers(struct source *x)
{
	size_t n = 0;

	/* a source without peers (a host alone in the inventory) has no array to sort */
	if (x->n_peers > 1)
		qsort(x->peers, x->n_peers, sizeof(*x->peers), by_address);
	for (size_t i = 0; i < x->n_peers; i++)
		if (n == 0 || !ip_equal(&x->peers[n - 1], &x->peers[i]))
			x->peers[n++] = x->peers[i];
	x->n_peers = n;
}

/*
 * The sources (every usable address of this host's ports) and their peers:
 * every other host's addresses of the family, and this host's other ports'
 * where its configuration judges them (AcceptLocal: IPv4 in the prefix)
 */
static int plan_sources(struct run2 *w)
{
	struct fleet *f = &w->f;
	const struct sample_host *me = &w->sample.hosts[w->self_host];
	size_t cap = 0;

	for (size_t i = me->first; i < me->first + me->n; i++)
		for (size_t x = 0; x < f->ports[i].n_addrs; x++) {
			const struct fleet_addr *sa = &f->ports[i].addrs[x];
			struct source *so;

			if (!addr_usable(sa))
				continue;
			if (array_grow(&w->src, &cap, w->n_src, sizeof(*w->src), 8) < 0)
				return -ENOMEM;
			so = &w->src[w->n_src++];
			*so = (struct source){ .port = i, .addr = x };
			for (size_t j = 0; j < f->n_ports; j++) {
				const struct fleet_port *b = &f->ports[j];
				bool local = j >= me->first && j < me->first + me->n;

				if (local && (i == j || !b->local_delivery))
					continue;
				for (size_t y = 0; y < b->n_addrs; y++) {
					const struct ibh_ip *d = &b->addrs[y].ip;

					if (d->family != sa->ip.family ||
					    !addr_usable(&b->addrs[y]) ||
					    (local &&
					     (d->family != AF_INET || !ip_in_prefix(&sa->ip, d))))
						continue;
					if (add_peer(so, d) < 0)
						return -ENOMEM;
				}
			}
			unique_peers(so);
			so->result = calloc(so->n_peers + 1, sizeof(*so->result));
			if (!so->result)
				return -ENOMEM;
		}
	return 0;
}

/* this host's share of the ARP requests, and its own ports' pairs where AcceptLocal judges them */
static int plan_arp(struct run2 *w, unsigned int probers, unsigned int rate)
{
	struct fleet *f = &w->f;
	const struct sample_host *me = &w->sample.hosts[w->self_host];
	struct sample_request *req = NULL;
	size_t n_req = 0, n_local = 0;
	int r;

	w->filtering = calloc(w->sample.n_hosts + 1, sizeof(*w->filtering));
	if (!w->filtering)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_ports; i++)
		w->filtering[w->sample.host_of[i]] |= f->ports[i].arp_filter == 1;
	r = sample_plan(&w->sample, w->self_host, probers, rate, &req, &n_req, &w->window_ms);
	if (r < 0)
		return r;
	for (size_t i = me->first; i < me->first + me->n; i++)
		for (size_t j = me->first; j < me->first + me->n; j++)
			if (f->ports[j].local_delivery)
				n_local += f->ports[i].n_addrs * f->ports[j].n_addrs;
	w->arp = calloc(n_req + n_local + 1, sizeof(*w->arp));
	if (!w->arp) {
		free(req);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n_req; k++) {
		const struct sample_request *q = &req[k];
		const struct ibh_link *l;

		if (q->from == SIZE_MAX)
			continue;
		l = link_named(w->s.links, w->s.n_links, f->ports[q->from].ifname);
		if (!arp_fill(&w->arp[w->n_arp], l, &f->ports[q->from].addrs[q->from_addr].ip,
			      &f->ports[q->to].addrs[q->to_addr].ip,
			      w->filtering[w->sample.host_of[q->to]]))
			continue;
		w->arp[w->n_arp++].at_ms = q->at_ms;
	}
	free(req);
	/* the local pairs of a host that sets AcceptLocal, as every pair before: from each own address */
	for (size_t i = me->first; i < me->first + me->n; i++)
		for (size_t j = me->first; j < me->first + me->n; j++) {
			const struct fleet_port *a = &f->ports[i], *b = &f->ports[j];
			const struct ibh_link *l = link_named(w->s.links, w->s.n_links, a->ifname);

			if (i == j || !b->local_delivery)
				continue;
			for (size_t x = 0; x < a->n_addrs; x++)
				for (size_t y = 0; y < b->n_addrs; y++)
					if (addr_usable(&a->addrs[x]) &&
					    addr_usable(&b->addrs[y]) &&
					    ip_in_prefix(&a->addrs[x].ip, &b->addrs[y].ip) &&
					    arp_fill(&w->arp[w->n_arp], l, &a->addrs[x].ip,
						     &b->addrs[y].ip, true))
						w->arp[w->n_arp++].at_ms = 0;
		}
	return 0;
}

/* every source's route to every peer: the answers' classes; the ARP run goes on meanwhile */
static int look_up(struct run2 *w, struct arp_run *arp)
{
	size_t done = 0;

	for (size_t i = 0; i < w->n_src; i++) {
		struct source *so = &w->src[i];
		struct ibh_ip from = w->f.ports[so->port].addrs[so->addr].ip;
		const struct ibh_link *l =
			link_named(w->s.links, w->s.n_links, w->f.ports[so->port].ifname);
		int oif = l ? l->ifindex : 0;

		from.len = (uint8_t)ip_bits(from.family);
		for (size_t k = 0; k < so->n_peers; k++) {
			struct class_result x = {};
			struct ibh_route rt;
			int r;

			if (kernel->route_get(w->s.k, &so->peers[k], &from, &rt) == 0) {
				struct ibh_link via;

				x.route = true;
				x.table = rt.table;
				if (rt.gw.family)
					x.via = rt.gw;
				if (rt.oif > 0 &&
				    kernel->get_link_by_index(w->s.k, rt.oif, &via) == 0)
					snprintf(x.dev, sizeof(x.dev), "%s", via.name);
			}
			/*
			 * The reply's route as RDMA CM's passive side takes it: bound to
			 * the source's port. A route from the address through the port
			 * itself is one the bound lookup finds too (one lookup per peer on
			 * a healthy host); else the kernel is asked, bound (an IPv6
			 * lookup given a source may answer another device's route). A
			 * kernel that cannot say leaves it out, and is not asked again.
			 */
			if (x.route && l && strcmp(x.dev, l->name) == 0)
				x.bound = ROUTE_BOUND_YES;
			else if (oif > 0 && !w->no_bound && kernel->route_get_bound) {
				r = kernel->route_get_bound(w->s.k, &so->peers[k], &from, oif, &rt);
				if (r == 0)
					x.bound = from.family == AF_INET || rt.oif == oif
							  ? ROUTE_BOUND_YES
							  : ROUTE_BOUND_NO;
				else if (r == -ENOENT)
					x.bound = ROUTE_BOUND_NO;
				else if (r == -ENOMEM)
					return r;
				else
					w->no_bound = true;
			}
			so->result[k] =
				classes_result_id(&w->results, &w->n_results, &w->cap_results, &x);
			if (so->result[k] == SIZE_MAX)
				return -ENOMEM;
			/* the requests go at their time while the lookups run */
			if (arp && ++done % 64 == 0) {
				r = arp_step(arp, 0);
				if (r < 0)
					return r;
			}
		}
	}
	return 0;
}

static int build_classes(struct run2 *w)
{
	struct ibh_ip *pfx = NULL;
	size_t n_pfx = 0, cap = 0;
	int r = 0;

	/* the candidates: the prefixes the inventory's ports are in */
	for (size_t i = 0; i < w->f.n_ports; i++)
		for (size_t k = 0; k < w->f.ports[i].n_addrs; k++) {
			struct ibh_ip p;
			bool seen = false;

			ip_prefix(&p, &w->f.ports[i].addrs[k].ip);
			for (size_t j = 0; j < n_pfx && !seen; j++)
				seen = ip_equal(&pfx[j], &p);
			if (seen)
				continue;
			if (array_grow(&pfx, &cap, n_pfx, sizeof(*pfx), 16) < 0) {
				r = -ENOMEM;
				goto cleanup;
			}
			pfx[n_pfx++] = p;
		}
	for (size_t i = 0; i < w->n_src && r == 0; i++) {
		struct source *so = &w->src[i];

		r = classes_build(so->peers, so->result, so->n_peers, pfx, n_pfx, &so->items,
				  &so->n_items, &so->rest);
	}
cleanup:
	free(pfx);
	return r;
}

/*
 * RDMA CM, sampled: from each source address whose port has an RDMA device,
 * one question per class of its peers (the peer of the class this host
 * scores highest: hosts ask different ones); a source with at most
 * CM_ASK_ALL peers (a lab of a few hosts, the VM pair) asks every one, as
 * version 1 did: its questions are as few as a class's sample would be at
 * scale, and a fault that RDMA CM alone sees is then named for every pair
 */
#define CM_ASK_ALL 32
/* RDMA CM's question from source i to its peer k */
static int cm_add(struct run2 *w, size_t i, size_t k, size_t *cap, size_t *cap_of)
{
	const struct source *so = &w->src[i];

	if (array_grow(&w->cm, cap, w->n_cm, sizeof(*w->cm), 16) < 0 ||
	    array_grow(&w->cm_src, cap_of, w->n_cm, sizeof(*w->cm_src), 16) < 0)
		return -ENOMEM;
	w->cm[w->n_cm] = (struct ibh_cm_query){ .src = w->f.ports[so->port].addrs[so->addr].ip,
						.dst = so->peers[k] };
	w->cm[w->n_cm].src.len = (uint8_t)ip_bits(w->cm[w->n_cm].src.family);
	w->cm_src[w->n_cm++] = i;
	return 0;
}

static int ask_cm_sampled(struct run2 *w)
{
	uint64_t me = sample_host_hash(w->self);
	size_t cap = 0, cap_of = 0;

	w->cm_how = "no RDMA device: routing and ARP only";
	if (!select_rdma_any())
		return 0;
	for (size_t i = 0; i < w->n_src; i++) {
		struct source *so = &w->src[i];
		const struct ibh_link *l =
			link_named(w->s.links, w->s.n_links, w->f.ports[so->port].ifname);

		if (!l || !select_rdma_port(l->ifindex))
			continue;
		so->rdma = true;
		for (size_t c = 0; c < w->n_results; c++) {
			size_t best = SIZE_MAX;
			uint64_t score = 0;

			bool all = so->n_peers <= CM_ASK_ALL;

			for (size_t k = 0; k < so->n_peers; k++) {
				uint64_t sc = sample_score(me, &so->peers[k]);

				if (so->result[k] != c)
					continue;
				if (all && cm_add(w, i, k, &cap, &cap_of) < 0)
					return -ENOMEM;
				if (!all && (best == SIZE_MAX || sc > score)) {
					best = k;
					score = sc;
				}
			}
			if (best != SIZE_MAX && cm_add(w, i, best, &cap, &cap_of) < 0)
				return -ENOMEM;
		}
	}
	{
		int r = kernel->cm_resolve_all(w->cm, w->n_cm, CM_TIMEOUT_MS);

		w->cm_how = r == 0	   ? "asked"
			    : r == -ENOSYS ? "no librdmacm: routing and ARP only"
			    : r == -EACCES || r == -EPERM
				    ? "no access to /dev/infiniband/rdma_cm: routing and ARP only"
				    : "RDMA CM could not be asked: routing and ARP only";
		if (r < 0)
			w->n_cm = 0;
		return r == -ENOMEM ? r : 0;
	}
}

/* the port of the inventory holding ip has hardware address hw (any of them, if several) */
static bool lladdr_known(const struct fleet *f, const struct ibh_ip *ip, const char *hw,
			 bool *found)
{
	*found = false;
	for (size_t i = 0; i < f->n_ports; i++)
		for (size_t k = 0; k < f->ports[i].n_addrs; k++)
			if (ip_same_address(&f->ports[i].addrs[k].ip, ip)) {
				*found = true;
				if (strcasecmp(f->ports[i].hwaddr, hw) == 0)
					return true;
			}
	return false;
}

static const char *nud_name(uint16_t state)
{
	return state & NUD_PERMANENT   ? "permanent"
	       : state & NUD_NOARP     ? "noarp"
	       : state & NUD_REACHABLE ? "reachable"
	       : state & NUD_STALE     ? "stale"
	       : state & NUD_DELAY     ? "delay"
	       : state & NUD_PROBE     ? "probe"
				       : "other";
}

static const char *ifname_of(const struct run2 *w, int ifindex)
{
	for (size_t i = 0; i < w->s.n_links; i++)
		if (w->s.links[i].ifindex == ifindex)
			return w->s.links[i].name;
	return NULL;
}

/* this host's neighbour entries (read before any probe) that map a fleet address elsewhere */
static void print_neigh(FILE *out, const struct run2 *w, bool json)
{
	bool first = true;

	if (json)
		fprintf(out, ",\"neigh\":[");
	for (size_t i = 0; i < w->n_before; i++) {
		const struct ibh_neigh *e = &w->before[i];
		const char *name = ifname_of(w, e->ifindex);
		char hw[FLEET_HWADDR_MAX], a[64];
		bool found;

		if (!name || e->lladdr_len == 0 || (e->state & (NUD_INCOMPLETE | NUD_FAILED)))
			continue;
		hw_to_string(e->lladdr, e->lladdr_len, hw, sizeof(hw));
		if (lladdr_known(&w->f, &e->dst, hw, &found) || !found)
			continue;
		ip_to_string(&e->dst, a, sizeof(a), false);
		if (!json) {
			fprintf(out,
				"neighbour entry on %s: %s is %s (%s), not the hardware address "
				"of the port the inventory lists it on\n",
				name, a, hw, nud_name(e->state));
			continue;
		}
		fprintf(out, "%s{\"interface\":", first ? "" : ",");
		report_json_string(out, name);
		fprintf(out, ",\"peer\":\"%s\",\"lladdr\":\"%s\",\"state\":\"%s\"}", a, hw,
			nud_name(e->state));
		first = false;
	}
	if (json)
		fprintf(out, "]");
}

/*
 * What the run added to this host's neighbour table for the addresses it
 * asked RDMA CM about, or sent a real request from: gone again. Entries
 * that were there before the run stay (updated, perhaps, as any answer does).
 */
static void clean_neigh(struct run2 *w)
{
	struct ibh_neigh *now = NULL;
	size_t n_now = 0;

	if (kernel->dump_neigh(w->s.k, &now, &n_now) < 0)
		return;
	for (size_t i = 0; i < n_now; i++) {
		const struct ibh_neigh *e = &now[i];
		bool before = false, ours = false;

		if (e->state & (NUD_PERMANENT | NUD_NOARP))
			continue;
		for (size_t k = 0; k < w->n_before && !before; k++)
			before = w->before[k].ifindex == e->ifindex &&
				 ip_same_address(&w->before[k].dst, &e->dst);
		for (size_t k = 0; k < w->n_cm && !before && !ours; k++)
			ours = ip_same_address(&w->cm[k].dst, &e->dst);
		for (size_t k = 0; k < w->n_arp && !before && !ours; k++)
			ours = w->arp[k].sender.a[0] && ip_same_address(&w->arp[k].sender, &e->dst);
		if (ours && !before)
			(void)kernel->neigh_del(w->s.k, e->ifindex, &e->dst);
	}
	free(now);
}

static void print_result(FILE *out, const struct class_result *x, bool json)
{
	char via[64];

	if (!json) {
		if (!x->route)
			fprintf(out, "no route");
		else
			fprintf(out, "%s table %u%s%s", x->dev, x->table,
				x->via.family ? " via " : "",
				x->via.family ? ip_to_string(&x->via, via, sizeof(via), false)
					      : "");
		if (x->bound == ROUTE_BOUND_NO)
			fprintf(out, ", none through its own port");
		return;
	}
	fprintf(out, ",\"route_dev\":");
	if (!x->route)
		fprintf(out, "null,\"route_table\":null,\"route_via\":null");
	else {
		report_json_string(out, x->dev);
		fprintf(out, ",\"route_table\":%u,\"route_via\":", x->table);
		if (x->via.family)
			fprintf(out, "\"%s\"", ip_to_string(&x->via, via, sizeof(via), false));
		else
			fprintf(out, "null");
	}
	/* answers version 2: absent where the kernel cannot say (no FIB_MATCH) */
	if (x->bound != ROUTE_BOUND_UNKNOWN)
		fprintf(out, ",\"route_bound\":%s", x->bound == ROUTE_BOUND_YES ? "true" : "false");
	fprintf(out, "}");
}

/* a source's classes: one per result its peers got, the rest first */
static void print_classes(FILE *out, const struct run2 *w, const struct source *so, bool json)
{
	bool first_class = true;

	for (size_t pass = 0; pass < 2; pass++)
		for (size_t c = 0; c < w->n_results; c++) {
			bool rest = c == so->rest && so->n_peers, any = rest, first = true;
			size_t n_items = 0;

			if ((pass == 0) != (c == so->rest))
				continue;
			for (size_t k = 0; k < so->n_items; k++)
				n_items += so->items[k].result == c;
			if (!any && !n_items)
				continue;
			if (json) {
				fprintf(out, "%s{\"peers\":", first_class ? "" : ",");
				if (rest && !n_items)
					fprintf(out, "\"rest\"");
				else {
					fprintf(out, "[%s", rest ? "\"rest\"" : "");
					first = !rest;
				}
			} else
				fprintf(out, "  %s", rest ? "rest" : "");
			for (size_t k = 0; k < so->n_items; k++) {
				char a[64];

				if (so->items[k].result != c)
					continue;
				ip_to_string_short(&so->items[k].pfx, a, sizeof(a));
				fprintf(out, json ? "%s\"%s\"" : "%s%s",
					first  ? ""
					: json ? ","
					       : " ",
					a);
				first = false;
			}
			if (json) {
				if (!(rest && !n_items))
					fprintf(out, "]");
			} else
				fprintf(out, ": ");
			print_result(out, &w->results[c], json);
			if (!json)
				fprintf(out, "\n");
			first_class = false;
		}
}

static void print_v2(FILE *out, struct run2 *w, unsigned int probers, unsigned int rate, bool json)
{
	const struct fleet *f = &w->f;
	bool first = true;
	char s[64], d[64];

	if (!json) {
		for (size_t i = 0; i < w->n_src; i++) {
			const struct source *so = &w->src[i];

			fprintf(out, "from %s %s, %zu peers:\n", f->ports[so->port].ifname,
				ip_to_string(&f->ports[so->port].addrs[so->addr].ip, s, sizeof(s),
					     false),
				so->n_peers);
			print_classes(out, w, so, false);
		}
		for (size_t k = 0; k < w->n_arp; k++) {
			const struct arp_probe *a = &w->arp[k];

			fprintf(out, "arp %s %s -> %s:", ifname_of(w, a->ifindex),
				ip_to_string(&a->src, s, sizeof(s), false),
				ip_to_string(&a->dst, d, sizeof(d), false));
			for (size_t i = 0; i < a->n_answers; i++)
				fprintf(out, " %s", a->answers[i]);
			fprintf(out, "%s\n", a->n_answers ? "" : " no answer");
		}
		for (size_t k = 0; k < w->n_cm; k++) {
			const struct ibh_cm_query *q = &w->cm[k];

			fprintf(out,
				"rdma_cm %s -> %s: ", ip_to_string(&q->src, s, sizeof(s), false),
				ip_to_string(&q->dst, d, sizeof(d), false));
			if (q->r == 0)
				fprintf(out, "%s port %u\n", q->res.dev, q->res.port);
			else
				fprintf(out, "%s\n", strerror(-q->r));
		}
		print_stale(out, f, false);
		print_neigh(out, w, false);
		fprintf(out,
			"%s: %zu ARP requests (%zu retries, %zu answered; %u per host, %u/s per "
			"domain over %u ms), %zu RDMA CM questions (RDMA CM: %s)\n",
			w->self, w->requests, w->retries, w->answered, probers, rate, w->window_ms,
			w->n_cm, w->cm_how);
		return;
	}
	fprintf(out, "{\"version\":2,\"host\":");
	report_json_string(out, w->self);
	fprintf(out, ",\"rdma_cm\":");
	report_json_string(out, w->cm_how);
	print_stale(out, f, true);
	fprintf(out,
		",\"probing\":{\"probers\":%u,\"rate\":%u,\"window_ms\":%u,\"requests\":%zu,"
		"\"retries\":%zu,\"answered\":%zu}",
		probers, rate, w->window_ms, w->requests, w->retries, w->answered);
	fprintf(out, ",\"sources\":[");
	for (size_t i = 0; i < w->n_src; i++) {
		const struct source *so = &w->src[i];

		fprintf(out, "%s{\"interface\":", i ? "," : "");
		report_json_string(out, f->ports[so->port].ifname);
		fprintf(out, ",\"address\":\"%s\",\"classes\":[",
			ip_to_string(&f->ports[so->port].addrs[so->addr].ip, s, sizeof(s), false));
		print_classes(out, w, so, true);
		fprintf(out, "]}");
	}
	fprintf(out, "],\"arp\":[");
	for (size_t k = 0; k < w->n_arp; k++) {
		const struct arp_probe *a = &w->arp[k];

		fprintf(out, "%s{\"interface\":", first ? "" : ",");
		report_json_string(out, ifname_of(w, a->ifindex));
		fprintf(out, ",\"address\":\"%s\",\"peer\":\"%s\",\"answers\":[",
			ip_to_string(&a->src, s, sizeof(s), false),
			ip_to_string(&a->dst, d, sizeof(d), false));
		for (size_t i = 0; i < a->n_answers; i++)
			fprintf(out, "%s\"%s\"", i ? "," : "", a->answers[i]);
		/* the requests it took: 2 where the first met silence and was retried */
		fprintf(out, "],\"requests\":%u}", a->sent);
		first = false;
	}
	fprintf(out, "],\"rdma_cm_probes\":[");
	for (size_t k = 0; k < w->n_cm; k++) {
		const struct ibh_cm_query *q = &w->cm[k];

		fprintf(out, "%s{\"interface\":", k ? "," : "");
		report_json_string(out, f->ports[w->src[w->cm_src[k]].port].ifname);
		fprintf(out, ",\"address\":\"%s\",\"peer\":\"%s\",\"rdma_cm\":",
			ip_to_string(&q->src, s, sizeof(s), false),
			ip_to_string(&q->dst, d, sizeof(d), false));
		if (q->r == 0) {
			fprintf(out, "{\"device\":");
			report_json_string(out, q->res.dev);
			fprintf(out, ",\"port\":%u}}", q->res.port);
		} else {
			char why[160];

			snprintf(why, sizeof(why), "%s%s%s", strerror(-q->r),
				 q->res.event[0] ? "; " : "", q->res.event);
			fprintf(out, "{\"error\":");
			report_json_string(out, why);
			fprintf(out, "}}");
		}
	}
	fprintf(out, "]");
	print_neigh(out, w, true);
	fprintf(out, "}\n");
}

static int run_v2(const char *path, const struct probe_opts *o, bool json, FILE *out,
		  size_t *ret_error)
{
	struct run2 w = {};
	char *inventory = NULL;
	struct arp_run *arp = NULL;
	size_t n_stale;
	int r;

	r = join_read_file(path, &inventory);
	if (r < 0)
		goto cleanup;
	r = fleet_read(&w.f, inventory, fleet_add_inventory, ret_error);
	if (r < 0)
		goto cleanup;
	r = snapshot_open(&w.s);
	if (r < 0)
		goto cleanup;
	r = find_self(&w.f, w.s.links, w.s.n_links, &w.self);
	if (r < 0)
		goto cleanup;
	n_stale = find_stale(&w.f, w.self, &w.s);
	/* the neighbour table as it was: what it says, and what the run must leave as it found */
	r = kernel->dump_neigh(w.s.k, &w.before, &w.n_before);
	if (r < 0)
		goto cleanup;
	r = sample_init(&w.sample, &w.f);
	if (r < 0)
		goto cleanup;
	for (w.self_host = 0; w.self_host < w.sample.n_hosts; w.self_host++)
		if (strcmp(w.f.ports[w.sample.hosts[w.self_host].first].host, w.self) == 0)
			break;
	r = plan_sources(&w);
	if (r < 0)
		goto cleanup;
	r = plan_arp(&w, o->probers, o->rate);
	if (r < 0)
		goto cleanup;
	r = arp_start(w.arp, w.n_arp, 1, ARP_SETTLE_MS, &arp);
	if (r < 0)
		goto cleanup;
	r = look_up(&w, arp);
	while (r == 0)
		r = arp_step(arp, 1000);
	if (r < 0)
		goto cleanup;
	arp_end(arp, &w.requests, &w.retries);
	arp = NULL;
	for (size_t k = 0; k < w.n_arp; k++)
		w.answered += w.arp[k].n_answers > 0;
	r = build_classes(&w);
	if (r < 0)
		goto cleanup;
	/* after the ARP probes: RDMA CM's own ARP requests would be answers to them */
	r = ask_cm_sampled(&w);
	clean_neigh(&w);
	if (r < 0)
		goto cleanup;
	print_v2(out, &w, o->probers, o->rate, json);
	r = n_stale ? 1 : 0;
cleanup:
	arp_end(arp, NULL, NULL);
	for (size_t i = 0; i < w.n_src; i++) {
		free(w.src[i].peers);
		free(w.src[i].result);
		free(w.src[i].items);
	}
	free(w.src);
	free(w.results);
	free(w.arp);
	free(w.cm);
	free(w.cm_src);
	free(w.before);
	free(w.filtering);
	sample_free(&w.sample);
	snapshot_close(&w.s);
	fleet_free(&w.f);
	free(inventory);
	return r;
}

int probe_run(const char *path, const struct probe_opts *o, bool json, FILE *out, size_t *ret_error)
{
	return o->format == 1 ? run_v1(path, json, out, ret_error)
			      : run_v2(path, o, json, out, ret_error);
}
