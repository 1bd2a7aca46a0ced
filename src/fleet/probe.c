// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * This host is the one of the inventory whose ports it has: same names and
 * hardware addresses (a host name may be short here and long there). Only
 * the source side is asked here; whatever lies at the destination (its ARP
 * settings, its reverse-path filter, its route back) is found by the join
 * from the destination's own inventory and answers.
 */
#include <errno.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <string.h>

#include "arp.h"
#include "array.h"
#include "cm.h"
#include "fleet.h"
#include "join.h"
#include "kernel.h"
#include "probe.h"
#include "report.h"
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
					    (local && (src->family != AF_INET ||
						       !fleet_in_prefix(src, dst))))
						continue;
					if (array_grow(&f->probes, &f->cap_probes, f->n_probes,
						       sizeof(*f->probes), 256) < 0)
						return -ENOMEM;
					p = &f->probes[f->n_probes++];
					*p = (struct fleet_probe){ .from = i, .to = j };
					p->src = *src;
					p->dst = *dst;
					p->onlink = fleet_in_prefix(&p->src, &p->dst);
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
		if (!l || !l->up || p->src.family != AF_INET || !p->onlink ||
		    (l->type != ARPHRD_ETHER && l->type != ARPHRD_INFINIBAND) || l->hw_len == 0 ||
		    l->hw_len > sizeof(a->hw) || l->broadcast_len != l->hw_len)
			continue;
		memcpy(a->hw, l->hw, l->hw_len);
		memcpy(a->broadcast, l->broadcast, l->hw_len);
		a->hw_len = l->hw_len;
		a->ifindex = l->ifindex;
		a->hwtype = (uint16_t)l->type;
		a->src = p->src;
		a->dst = p->dst;
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

int probe_run(const char *path, bool json, FILE *out, size_t *ret_error)
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
