// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The judge of the fleet view (its renderers: render*.c). Each directed pair of
 * ports gets one verdict; a pair that is not ok gets the first cause the
 * exchange meets (a port down, a RoCE port without a GID for the address,
 * the request's route, the destination's reverse-path filter, the reply's
 * route, ARP), placed at the host and port where it lies (SPEC 10): a
 * missing GID at the port that lacks it, a route or rule fault at the host
 * and port it leaves (the source for the request, the destination for the
 * reply), a reverse-path drop at the port that drops, ARP flux at the port
 * that answered for an address not its own. A pair of two ports of one host
 * never leaves the host: it is shown as local, and judged by ARP alone where
 * the host sets AcceptLocal (judge_local).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "facts.h"
#include "fleet.h"

static void because(struct fleet_cell *c, enum fleet_cause cause, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void because(struct fleet_cell *c, enum fleet_cause cause, size_t at, const char *fmt, ...)
{
	va_list ap;

	if (c->cause != FLEET_OK)
		return;
	c->cause = cause;
	c->at = at;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
}

/* the port whose hardware address is hw (the first, if several have it), or -ENOENT */
static int port_by_hwaddr(const struct fleet *f, const char *hw, size_t *ret)
{
	size_t lo = 0, hi = f->n_indexed;

	if (f->n_indexed != f->n_ports) {
		for (size_t i = 0; i < f->n_ports; i++)
			if (strcasecmp(f->ports[i].hwaddr, hw) == 0) {
				*ret = i;
				return 0;
			}
		return -ENOENT;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcasecmp(f->by_hwaddr[mid]->hwaddr, hw) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == f->n_indexed || strcasecmp(f->by_hwaddr[lo]->hwaddr, hw) != 0)
		return -ENOENT;
	*ret = (size_t)(f->by_hwaddr[lo] - f->ports);
	return 0;
}

#define PAIRS_MAX 16

/* one pair of addresses, as the facts say (facts.h): what a version-1 probe said of it */
struct pair {
	size_t from, to, ka, kb;
	const struct ibh_ip *src, *dst;
	const struct fleet_class *route; /* NULL: the host said none */
	const struct fleet_arp *arp;	 /* NULL: no probe judges it */
	bool derived;
	const struct fleet_cm_value *cm; /* NULL: not asked */
	bool cm_class;			 /* cm is the class's sample (another peer's answer) */
	const struct fleet_exact *exact;
	bool onlink; /* dst is in the source address's prefix */
	bool talks;  /* can_talk */
	/* a version-2 source whose ARP for dst no probe of any answer judges (facts_unprobed) */
	bool unprobed;
};

static bool routed(const struct pair *p)
{
	return p->route && p->route->route;
}

static const char *ipstr(const struct ibh_ip *a, char *buf)
{
	return ip_to_string(a, buf, 64, false);
}

/*
 * What is wrong with p's route, which must leave through port at (FLEET_OK:
 * nothing), from what the host reports of ib-hook's rules (SPEC 10): no port
 * of the host has one (not applied); this port has none (drift, whether main
 * sends the traffic elsewhere or, under MainRoute=delete, nowhere); else the
 * rule is there and its table sends it through another port, or has no
 * route at all (a rail without its gateway route).
 */
static enum fleet_cause route_fault(const struct fleet *f, const struct pair *p, size_t at)
{
	const struct fleet_port *port = &f->ports[at];

	if (routed(p) && p->route->dev_port == at)
		return FLEET_OK;
	if (!port->host_routed)
		return FLEET_NOT_APPLIED;
	if (!port->routed)
		return FLEET_NO_RULE;
	return routed(p) ? FLEET_WRONG_PORT : FLEET_NO_ROUTE;
}

/* c's cause, when p's route (from port at, towards peer) is wrong; dir: "to" or "back to" */
static void route_because(const struct fleet *f, const struct pair *p, size_t at, const char *dir,
			  struct fleet_cell *c)
{
	const struct fleet_port *port = &f->ports[at];
	enum fleet_cause k;
	const char *why;
	char s[64], d[64];

	if (c->cause != FLEET_OK)
		return;
	k = route_fault(f, p, at);
	if (k == FLEET_OK)
		return;
	why = k == FLEET_NO_RULE       ? " (no rule of ib-hook for the address)"
	      : k == FLEET_NOT_APPLIED ? " (ib-hook is not applied on the host)"
				       : "";
	ipstr(p->src, s);
	ipstr(p->dst, d);
	if (!routed(p))
		because(c, k, at, "%s has no route from %s %s %s%s", port->host, s, dir, d, why);
	else
		because(c, k, at, "the route from %s %s %s leaves %s through %s, not %s%s", s, dir,
			d, port->host, p->route->route_dev, port->ifname, why);
}

/*
 * The answers to p's ARP request: another port's hardware address is ARP flux
 * at that port (c's cause); false when nothing answered.
 */
static bool judge_answers(const struct fleet *f, const struct pair *p, struct fleet_cell *c)
{
	const struct fleet_port *to = &f->ports[p->to];
	char d[64];

	for (size_t i = 0; i < p->arp->n; i++) {
		const char *hw;
		size_t at;

		if (p->arp->answers[i] == to->hw_id)
			continue;
		hw = facts_string(f, p->arp->answers[i]);
		if (strcasecmp(hw, to->hwaddr) == 0)
			continue;
		ipstr(p->dst, d);
		if (port_by_hwaddr(f, hw, &at) < 0) {
			because(c, FLEET_ARP_FLUX, p->to,
				"%s was answered by %s, a hardware address no port of the fleet "
				"has",
				d, hw);
			break;
		}
		because(c, f->ports[at].host_routed ? FLEET_ARP_FLUX : FLEET_NOT_APPLIED, at,
			"%s of %s answers ARP for %s (an address of %s) with its own hardware "
			"address (arp_ignore=%d, arp_filter=%d)",
			f->ports[at].ifname, f->ports[at].host, d, to->ifname,
			f->ports[at].arp_ignore, f->ports[at].arp_filter);
		break;
	}
	return p->arp->n > 0;
}

/* RDMA CM cannot connect an address without a GID, whatever the IP path */
static void gid_because(const struct fleet *f, const struct pair *p, struct fleet_cell *c)
{
	const size_t at[] = { p->from, p->to }, k[] = { p->ka, p->kb };

	for (size_t i = 0; i < 2; i++) {
		const struct fleet_port *port = &f->ports[at[i]];
		char a[64];

		if (!port->roce || port->addrs[k[i]].gid)
			continue;
		ipstr(&port->addrs[k[i]].ip, a);
		because(c, FLEET_NO_GID, at[i], "%s port %u of %s holds no GID for %s (%s)",
			port->rdma_dev, port->rdma_port, port->host, a, port->ifname);
	}
}

/*
 * What RDMA CM answered the source host, when every IP-level cause is ruled
 * out: it did not resolve the peer, or it resolved it through another RDMA
 * device or port than the source port's (the route leaves through another
 * port, as RDMA CM sees it). Both lie at the source port.
 */
static void cm_because(const struct fleet *f, const struct pair *p, struct fleet_cell *c)
{
	const struct fleet_port *from = &f->ports[p->from];
	char s[64], d[64], q[64];

	if (!p->cm || c->cause != FLEET_OK)
		return;
	if (p->cm->cm == FLEET_CM_FAILED)
		because(c, FLEET_UNRESOLVED, p->from,
			"RDMA CM on %s does not resolve %s from %s: %s", from->host,
			ipstr(p->dst, d), ipstr(p->src, s), facts_string(f, p->cm->error));
	else if (p->cm->cm == FLEET_CM_RESOLVED && p->cm_class)
		because(c, FLEET_WRONG_PORT, p->from,
			"RDMA CM on %s resolves %s, a peer %s routes as it routes %s, through %s "
			"port %u, not %s port %u (%s)",
			from->host, ipstr(&p->route->cm_peer, q), ipstr(p->src, s),
			ipstr(p->dst, d), facts_string(f, p->cm->dev), p->cm->port,
			from->rdma ? from->rdma_dev : "no RDMA device", from->rdma_port,
			from->ifname);
	else if (p->cm->cm == FLEET_CM_RESOLVED &&
		 (strcmp(facts_string(f, p->cm->dev), from->rdma_dev) != 0 ||
		  p->cm->port != from->rdma_port))
		because(c, FLEET_WRONG_PORT, p->from,
			"RDMA CM on %s resolves %s from %s through %s port %u, not %s port %u (%s)",
			from->host, ipstr(p->dst, d), ipstr(p->src, s), facts_string(f, p->cm->dev),
			p->cm->port, from->rdma ? from->rdma_dev : "no RDMA device",
			from->rdma_port, from->ifname);
}

/*
 * A neighbour entry of the source's host, on the source port, that maps the
 * destination's address to another hardware address than its port's: RDMA CM
 * resolves through it (issue 39), whatever a fresh ARP probe says
 */
static void neigh_because(const struct fleet *f, const struct pair *p, struct fleet_cell *c)
{
	const struct fleet_port *from = &f->ports[p->from], *to = &f->ports[p->to];
	uint32_t id = to->addrs[p->kb].id;
	char d[64];

	for (size_t i = 0; i < from->n_neigh && c->cause == FLEET_OK; i++)
		if (from->neigh[i].peer == id)
			because(c, FLEET_NEIGH_STALE, p->from,
				"the neighbour table of %s holds %s on %s as %s (%s), not %s of %s "
				"(%s): RDMA CM resolves through it",
				from->host, ipstr(p->dst, d), from->ifname,
				facts_string(f, from->neigh[i].lladdr),
				facts_string(f, from->neigh[i].state), to->ifname, to->host,
				to->hwaddr);
}

/*
 * The reply's way through a neighbour entry of the destination's host (issue
 * 47): the destination port holds the source's address with the hardware
 * address of another port of the source's host (a stale entry left by ARP
 * flux, or a static one). The reply goes there, and where that port has
 * rp_filter=1 and the source host's way back to the destination leaves
 * through another port, the strict reverse-path check drops it (measured:
 * doc/fleet.md, "The reply's route, measured"). Placed at the entry's holder.
 * IPv4 only: the kernel has no reverse-path filter for IPv6.
 */
static void reply_neigh_because(const struct fleet *f, const struct pair *p, struct fleet_cell *c)
{
	const struct fleet_port *from = &f->ports[p->from], *to = &f->ports[p->to];
	uint32_t id = from->addrs[p->ka].id;
	char s[64], d[64];

	for (size_t i = 0; i < to->n_neigh && c->cause == FLEET_OK; i++) {
		const struct fleet_port *z;
		size_t at;

		if (to->neigh[i].peer != id || p->src->family != AF_INET ||
		    port_by_hwaddr(f, facts_string(f, to->neigh[i].lladdr), &at) < 0)
			continue;
		z = &f->ports[at];
		if (at == p->from || z->host_index != from->host_index || z->rp_filter != 1 ||
		    (routed(p) && strcmp(p->route->route_dev, z->ifname) == 0))
			continue;
		because(c, FLEET_NEIGH_STALE, p->to,
			"%s of %s holds %s as %s (%s) in its neighbour table: the reply from %s "
			"goes to %s of %s, where rp_filter=1 drops it (the way back from %s leaves "
			"through %s)",
			to->ifname, to->host, ipstr(p->src, s),
			facts_string(f, to->neigh[i].lladdr), facts_string(f, to->neigh[i].state),
			ipstr(p->dst, d), z->ifname, z->host, s,
			routed(p) ? p->route->route_dev : "no port");
	}
}

/* an address the inventory lists on two ports: a conflict, at either place */
static void conflict_because(const struct fleet *f, const struct pair *p, struct fleet_cell *c)
{
	const size_t at[] = { p->to, p->from }, k[] = { p->kb, p->ka };

	for (size_t i = 0; i < 2 && c->cause == FLEET_OK; i++) {
		const struct fleet_port *port = &f->ports[at[i]], *other;
		char a[64];

		if (!port->addrs[k[i]].conflict)
			continue;
		other = &f->ports[port->addrs[k[i]].conflict - 1];
		because(c, FLEET_ADDRESS_CONFLICT, at[i],
			"%s is listed on %s of %s and on %s of %s: an address conflict",
			ipstr(&port->addrs[k[i]].ip, a), port->ifname, port->host, other->ifname,
			other->host);
	}
}

/*
 * Whether the reply's way back (back: from the destination's address to the
 * source's), leaving through another port than the destination's own, still
 * carries the pair, as measured with RDMA CM's passive side in the soft-RoCE
 * VM pair (tests/vm/reply.sh, doc/fleet.md "The reply's route, measured"):
 * yes where a lookup bound to the destination port finds a route through it
 * (route_bound of answer version 2) and the port does not drop the ARP
 * request for it (arp_filter=1: it answers only where the way back leaves
 * through it); a strict rp_filter is judged before (FLEET_RP_FILTER). Where
 * the answer does not say (version 1, a kernel without RTM_F_FIB_MATCH), the
 * route itself is judged, as before.
 */
static bool back_carries(const struct pair *back, const struct fleet_port *to)
{
	return routed(back) && back->route->bound == 1 &&
	       !(back->dst->family == AF_INET && to->arp_filter == 1);
}

/*
 * In the order the exchange meets them, the first one found: a GID missing
 * at either end, the request's route at the source, the destination's
 * reverse-path filter on its arrival, the reply's route at the destination
 * (RDMA CM needs both ways), ARP, a stale neighbour entry (the source's for
 * the request, the destination's for the reply), then what RDMA CM itself
 * answered.
 */
static void judge_probe(const struct fleet *f, const struct pair *p, const struct pair *back,
			struct fleet_cell *c)
{
	const struct fleet_port *from = &f->ports[p->from], *to = &f->ports[p->to];
	char s[64], d[64];

	conflict_because(f, p, c);
	gid_because(f, p, c);
	route_because(f, p, p->from, "to", c);
	/* the request arrives at the destination's port; its answer leaves as back's route */
	if (c->cause == FLEET_OK && p->dst->family == AF_INET && to->rp_filter == 1 && back &&
	    routed(back) && strcmp(back->route->route_dev, to->ifname) != 0)
		because(c, FLEET_RP_FILTER, p->to,
			"rp_filter=1 on %s of %s drops what comes from %s: its way back leaves "
			"through %s",
			to->ifname, to->host, ipstr(p->src, s), back->route->route_dev);
	/* a destination that sent no answers: its way back is unknown, not wrong */
	if (back && !back_carries(back, to))
		route_because(f, back, p->to, "back to", c);
	if (p->arp && p->arp->probed && !judge_answers(f, p, c))
		because(c, FLEET_NO_ANSWER, p->to, "nothing answered ARP for %s from %s of %s",
			ipstr(p->dst, d), from->ifname, from->host);
	neigh_because(f, p, c);
	reply_neigh_because(f, p, c);
	cm_because(f, p, c);
}

/*
 * Two ports of one host: IP traffic between them stays in the host, but RDMA
 * CM resolves the peer by ARP out of the source port, which the destination
 * port answers for a request from one of its host's own addresses only with
 * accept_local=1, arp_filter=0 (check.c, judge_local) and no strict rp_filter
 * (the way back to a local address is no port). Judged by that ARP alone: the
 * route says local, as it should.
 */
static void judge_local(const struct fleet *f, const struct pair *p, struct fleet_cell *c)
{
	const struct fleet_port *from = &f->ports[p->from], *to = &f->ports[p->to];
	char s[64], d[64];

	gid_because(f, p, c);
	if (!p->arp || !p->arp->probed || judge_answers(f, p, c)) {
		cm_because(f, p, c);
		return;
	}
	if (c->cause != FLEET_OK)
		return;
	ipstr(p->src, s);
	ipstr(p->dst, d);
	if (to->accept_local != 1 || to->arp_filter != 0)
		because(c, FLEET_LOCAL_DROPPED, p->to,
			"%s of %s drops ARP from its host's own address %s (accept_local=%d, "
			"arp_filter=%d): RDMA CM from %s cannot resolve %s",
			to->ifname, to->host, s, to->accept_local, to->arp_filter, from->ifname, d);
	else if (to->rp_filter == 1)
		because(c, FLEET_RP_FILTER, p->to,
			"rp_filter=1 on %s of %s drops ARP from its host's own address %s: its way "
			"back is local, not through the port",
			to->ifname, to->host, s);
	else
		because(c, FLEET_NO_ANSWER, p->to, "nothing answered ARP for %s from %s of %s", d,
			from->ifname, from->host);
}

static void port_down(const struct fleet_port *p, size_t i, struct fleet_cell *c)
{
	if (c->cause != FLEET_OK)
		return;
	if (!p->up)
		because(c, FLEET_PORT_DOWN, i, "%s of %s is down", p->ifname, p->host);
	else if (p->rdma && strcmp(p->rdma_state, "ACTIVE") != 0)
		because(c, FLEET_PORT_DOWN, i, "%s port %u of %s is %s", p->rdma_dev, p->rdma_port,
			p->host, p->rdma_state);
}

/* two ports with IPv4 addresses of one prefix, by the inventory */
static bool one_prefix(const struct fleet_port *a, const struct fleet_port *b)
{
	for (size_t x = 0; x < a->n_addrs; x++)
		for (size_t y = 0; y < b->n_addrs; y++)
			if (a->addrs[x].ip.family == AF_INET && b->addrs[y].ip.family == AF_INET &&
			    !a->addrs[x].stale && !b->addrs[y].stale &&
			    ip_in_prefix(&a->addrs[x].ip, &b->addrs[y].ip))
				return true;
	return false;
}

/* one hardware address on two ports: what answers for either is not known */
static void hwaddr_because(const struct fleet *f, size_t i, struct fleet_cell *c)
{
	const struct fleet_port *p = &f->ports[i], *o;

	if (!p->hw_conflict || c->cause != FLEET_OK)
		return;
	o = &f->ports[p->hw_conflict - 1];
	because(c, FLEET_HWADDR_CONFLICT, i,
		"%s of %s and %s of %s have one hardware address %s: a conflict", p->ifname,
		p->host, o->ifname, o->host, p->hwaddr);
}

/* an address of p the inventory lists and p does not hold now: p's pairs are not judged */
static void stale_because(const struct fleet_port *p, size_t i, struct fleet_cell *c)
{
	char a[64];

	if (c->cause != FLEET_OK)
		return;
	for (size_t k = 0; k < p->n_addrs; k++)
		if (p->addrs[k].stale) {
			because(c, FLEET_STALE, i,
				"the inventory lists %s on %s of %s, which does not hold it now: "
				"the inventory is stale (take it again)",
				ip_to_string(&p->addrs[k].ip, a, sizeof(a), true), p->ifname,
				p->host);
			return;
		}
}

/*
 * The addresses of p can talk: the destination is in the source's prefix (as
 * the source port lists it), or the route from the source goes through a
 * gateway in it (routed rails). A source address in another subnet than the
 * destination and without a gateway there (a second address of a port, in a
 * subnet no other port has) reaches it only through another port's prefix
 * route: no pair of addresses a port pair talks by.
 */
static bool can_talk(const struct fleet *f, const struct pair *p)
{
	const struct ibh_ip *a = &f->ports[p->from].addrs[p->ka].ip;

	return p->onlink ||
	       (routed(p) && p->route->route_via.family && ip_in_prefix(a, &p->route->route_via));
}

/*
 * The pair of addresses ka of from and kb of to, from the facts: false when
 * the source host said nothing of it (as a version-1 answer held no record)
 */
static bool pair_of(const struct fleet *f, size_t from, size_t ka, size_t to, size_t kb, bool local,
		    struct pair *p)
{
	const struct fleet_port *a = &f->ports[from], *b = &f->ports[to];
	const struct fleet_addr *x = &a->addrs[ka], *y = &b->addrs[kb];

	if (x->ip.family != y->ip.family || x->stale || y->stale || !a->reported)
		return false;
	*p = (struct pair){ .from = from,
			    .to = to,
			    .ka = ka,
			    .kb = kb,
			    .src = &x->ip,
			    .dst = &y->ip,
			    .onlink = ip_in_prefix(&x->ip, &y->ip) };
	p->exact = facts_exact(f, from, ka, y->id);
	/* a pair of one host's ports: its host's answer holds its probe (IPv4, one prefix) */
	if (local && (!p->exact || !p->exact->has_arp || x->ip.family != AF_INET || !p->onlink))
		return false;
	if (!local) {
		p->route = facts_class(x, &y->ip);
		if (!p->route)
			return false;
	}
	if (p->exact && p->exact->has_arp)
		p->arp = &p->exact->arp;
	else if (!local)
		p->arp = facts_arp(f, from, ka, y->id, &p->derived);
	/* a version-2 source that did not ask: judged by the segment's probe only where it would have */
	if (p->derived && (!p->arp || !p->onlink))
		p->arp = NULL;
	p->unprobed = !local && !x->v1 && x->ip.family == AF_INET && p->onlink &&
		      (!p->arp || !p->arp->probed);
	if (p->exact && p->exact->has_cm)
		p->cm = &p->exact->cm;
	else if (x->v1 && x->n_cms && x->cms[0].cm != FLEET_CM_NOT_ASKED)
		p->cm = &x->cms[0];
	else if (p->route && p->route->cm_wrong) {
		p->cm = &p->route->cm;
		p->cm_class = true;
	}
	return true;
}

/* what the destination's host found from dst back to src: the way a reply leaves */
static bool back_of(const struct fleet *f, const struct pair *p, struct pair *ret)
{
	const struct fleet_port *b = &f->ports[p->to];
	const struct fleet_addr *y = &b->addrs[p->kb];

	if (!b->reported)
		return false;
	*ret = (struct pair){
		.from = p->to, .to = p->from, .ka = p->kb, .kb = p->ka, .src = p->dst, .dst = p->src
	};
	ret->route = facts_class(y, p->src);
	return ret->route != NULL;
}

/*
 * A pair that nothing above fails, but whose ARP no probe judged: where every
 * host step 2 chose to ask the destination's address sent no answers
 * (FleetProbers=1: one host), nobody checked it, and it is unknown, never
 * ok (issue 47). Placed at the destination port, whose address is the hole;
 * the cell names the silent host, for the summary.
 */
static void unprobed_because(const struct fleet *f, size_t to, size_t kb, struct fleet_cell *c)
{
	const struct fleet_port *b = &f->ports[to];
	size_t who;
	unsigned int k;
	char d[64];

	if (c->cause != FLEET_OK || !facts_unprobed(f, b->addrs[kb].id, &who, &k))
		return;
	ipstr(&b->addrs[kb].ip, d);
	if (who == SIZE_MAX)
		because(c, FLEET_UNKNOWN, to, "not probed: no answer holds an ARP probe of %s", d);
	else if (k == 1)
		because(c, FLEET_UNKNOWN, to,
			"not probed: %s sent no answers, and it alone asks ARP for %s "
			"(FleetProbers=1)",
			f->ports[who].host, d);
	else
		because(c, FLEET_UNKNOWN, to,
			"not probed: %s sent no answers, nor did the other hosts that ask ARP for "
			"%s (FleetProbers=%u)",
			f->ports[who].host, d, k);
	c->missing = who == SIZE_MAX ? 0 : who + 1;
	c->not_probed = true;
}

/*
 * A port pair is judged, in each family, by the pairs of its addresses that
 * can talk (can_talk); where none can, by all of that family, so that a
 * route that leaves through the wrong port is still found (issue 38: a second address in a
 * subnet the other ports lack made working pairs wrong-port). The pairs of
 * addresses in order of source then destination address (facts_build sorts
 * each port's addresses).
 */
void fleet_judge_pair(const struct fleet *f, size_t from, size_t to, bool why,
		      struct fleet_cell *ret)
{
	const struct fleet_port *a = &f->ports[from], *b = &f->ports[to];
	bool local = a->host_index == b->host_index, any4 = false, any6 = false;
	size_t na = a->n_addrs, nb = b->n_addrs, n = 0, unprobed = 0;
	/* the pairs of addresses, found once (up to PAIRS_MAX; more are found again) */
	struct pair p, back, pairs[PAIRS_MAX];

	ret->cause = FLEET_OK;
	ret->at = from;
	ret->arp = 0;
	ret->missing = 0;
	ret->not_probed = false;
	ret->why[0] = '\0';
	(void)why;
	if (local && !b->local_delivery) {
		because(ret, FLEET_LOCAL, from, "both ports on %s, which does not set AcceptLocal",
			a->host);
		return;
	}
	/* each family on its own: an IPv4 pair that talks says nothing of IPv6's route */
	for (size_t x = 0; x < na; x++)
		for (size_t y = 0; y < nb; y++) {
			struct pair *q = n < PAIRS_MAX ? &pairs[n] : &p;

			if (pair_of(f, from, x, to, y, local, q)) {
				q->talks = local || can_talk(f, q);
				n++;
				if (q->talks)
					*(q->src->family == AF_INET ? &any4 : &any6) = true;
			}
		}
	if (local && a->reported && !n) {
		/* a port that is down asks nothing: down where the pair would be judged */
		if (one_prefix(a, b)) {
			port_down(a, from, ret);
			port_down(b, to, ret);
			if (ret->cause != FLEET_OK)
				return;
		}
		because(ret, FLEET_LOCAL, from,
			"both ports on %s, no IPv4 address of one prefix: not judged", a->host);
		return;
	}
	stale_because(a, from, ret);
	stale_because(b, to, ret);
	port_down(a, from, ret);
	port_down(b, to, ret);
	hwaddr_because(f, from, ret);
	hwaddr_because(f, to, ret);
	for (size_t x = 0, i = 0; x < na && n; x++)
		for (size_t y = 0; y < nb; y++) {
			const struct pair *q = &p;

			if (n <= PAIRS_MAX) {
				if (i == n || pairs[i].ka != x || pairs[i].kb != y)
					continue;
				q = &pairs[i++];
			} else if (pair_of(f, from, x, to, y, local, &p))
				p.talks = local || can_talk(f, &p);
			else
				continue;
			if (q->arp && q->arp->probed)
				ret->arp = q->derived && ret->arp != 1 ? 2 : 1;
			if (ret->cause != FLEET_OK)
				continue;
			if (!local && (q->src->family == AF_INET ? any4 : any6) && !q->talks)
				continue;
			if (local)
				judge_local(f, q, ret);
			else
				judge_probe(f, q, back_of(f, q, &back) ? &back : NULL, ret);
			if (!unprobed && q->unprobed)
				unprobed = q->kb + 1;
		}
	if (unprobed)
		unprobed_because(f, to, unprobed - 1, ret);
	if (!n) {
		because(ret, FLEET_UNKNOWN, from, "%s %s", a->host,
			a->reported ? "checked no address of a common family" : "sent no answers");
		if (!a->reported)
			ret->missing = a->host_first + 1;
	}
}

void fleet_judge(const struct fleet *f, size_t from, size_t to, struct fleet_cell *ret)
{
	fleet_judge_pair(f, from, to, true, ret);
}
