// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ib-hook --check: will an RDMA connection from and to each managed address
 * use that address's port? --status compares the kernel with what apply would
 * install; this asks the kernel (and RDMA CM) what it will actually do:
 *
 * - the route from A to the peer leaves through A's port (RTM_GETROUTE with
 *   the source, as `ip route get PEER from A` and rdma_resolve_addr do);
 * - the effective ARP settings let only A's port answer for A (arp_ignore 1
 *   or 2, or arp_filter), else peers may map A to another port's MAC;
 * - the port's RDMA port is ACTIVE; on RoCE it holds a GID for A (the GID
 *   table is what the peer's connect request is matched against), on
 *   InfiniBand it has a LID (a subnet manager has seen it);
 * - with a PEER given and librdmacm installed, RDMA CM resolves A -> PEER
 *   on that port's RDMA device and port.
 *
 * Read-only: it changes nothing, and needs no privilege where the kernel
 * lets anyone read routes and sysfs (RDMA CM needs /dev/infiniband/rdma_cm).
 */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "gid.h"
#include "log.h"
#include "kernel.h"
#include "plan.h"
#include "report.h"
#include "select.h"
#include "snapshot.h"

#define CM_TIMEOUT_MS 2000

/* the verdicts, worst first when several apply: the first is what the line says */
static const struct {
	enum ibh_check_verdict verdict;
	const char *word;
	bool passes; /* the line counts as ok, --check may exit 0 */
	const char *meaning;
} verdicts[] = {
	{ IBH_CHECK_OK, "ok", true, "RDMA CM will use this port" },
	{ IBH_CHECK_LINK_DOWN, "link-down", false, "the port is down" },
	{ IBH_CHECK_NO_ROUTE, "no-route", false,
	  "the kernel has no route from the address to the peer" },
	{ IBH_CHECK_WRONG_PORT, "wrong-port", false,
	  "traffic from the address leaves through another port" },
	{ IBH_CHECK_LOCAL_DROPPED, "local-dropped", false,
	  "the peer is the host's own address on another port, which drops ARP from the "
	  "host's own addresses (accept_local=0 or arp_filter=1): RDMA CM cannot resolve it" },
	{ IBH_CHECK_ARP_FLUX, "arp-flux", false, "another port may answer ARP for the address" },
	{ IBH_CHECK_ARP_OFF, "arp-off", false, "the port answers no ARP request (arp_ignore=8)" },
	{ IBH_CHECK_UNKNOWN, "unknown", false, "a value the verdict needs could not be read" },
	{ IBH_CHECK_PORT_DOWN, "port-down", false, "the RDMA port is not ACTIVE" },
	{ IBH_CHECK_NO_GID, "no-gid", false, "the RoCE port holds no GID for the address" },
	{ IBH_CHECK_LINK_LOCAL_GIDS, "link-local-gids", false,
	  "the RoCE port holds link-local GIDs only: none for the address" },
	{ IBH_CHECK_NO_ROCE_V2, "no-roce-v2", false,
	  "the RoCE port holds a RoCE v1 GID for the address, no RoCE v2 one" },
	{ IBH_CHECK_NO_LID, "no-lid", false,
	  "the InfiniBand port has no LID (no subnet manager?)" },
	{ IBH_CHECK_UNRESOLVED, "unresolved", false, "RDMA CM could not resolve the peer" },
	{ IBH_CHECK_LOCAL, "local", true,
	  "the peer is one of the host's own addresses: IP traffic to it stays in the host, "
	  "and a peer on another port answers ARP from this one" },
};

static size_t verdict_row(enum ibh_check_verdict v)
{
	size_t i = 0;

	while (i + 1 < sizeof(verdicts) / sizeof(verdicts[0]) && verdicts[i].verdict != v)
		i++;
	return i;
}

const char *check_verdict_word(enum ibh_check_verdict v)
{
	return verdicts[verdict_row(v)].verdict == v ? verdicts[verdict_row(v)].word : "?";
}

bool check_verdict_passes(enum ibh_check_verdict v)
{
	return verdicts[verdict_row(v)].verdict == v && verdicts[verdict_row(v)].passes;
}

int check_conf_effective(const char *ifname, const char *key, bool or)
{
	int x = kernel->conf_read(ifname, key), all = kernel->conf_read("all", key);

	if (x < 0 || all < 0)
		return -1;
	if (or)
		return x || all;
	return x > all ? x : all;
}

static int port_read(const char *dev, uint32_t port, char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* the RDMA port's sysfs attribute fmt... ("gids/%d") */
static int port_read(const char *dev, uint32_t port, char *buf, size_t size, const char *fmt, ...)
{
	char attr[48];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(attr, sizeof(attr), fmt, ap);
	va_end(ap);
	return kernel->rdma_port_read(dev, port, attr, buf, size);
}

int check_gid(const char *dev, uint32_t port, const char *ifname, const struct ibh_ip *addr,
	      struct ibh_gid *ret)
{
	return gid_find(kernel->rdma_port_read, dev, port, ifname, addr, ret);
}

static void rdma_facts(struct ibh_check_line *l)
{
	char buf[64];

	if (port_read(l->rdma_dev, l->rdma_port, l->state, sizeof(l->state), "state") < 0)
		snprintf(l->state, sizeof(l->state), "?");
	/* sysfs says "4: ACTIVE": the name is what counts, and what is shown */
	if (strstr(l->state, ": "))
		memmove(l->state, strstr(l->state, ": ") + 2,
			strlen(strstr(l->state, ": ") + 2) + 1);
	if (port_read(l->rdma_dev, l->rdma_port, l->link_layer, sizeof(l->link_layer),
		      "link_layer") < 0)
		snprintf(l->link_layer, sizeof(l->link_layer), "?");
	l->lid_r = port_read(l->rdma_dev, l->rdma_port, buf, sizeof(buf), "lid");
	if (l->lid_r == 0)
		l->lid = (unsigned int)strtoul(buf, NULL, 0);
	if (strcmp(l->link_layer, "Ethernet") == 0)
		check_gid(l->rdma_dev, l->rdma_port, l->ifname, &l->addr, &l->gid);
}

static void because(struct ibh_check_line *l, enum ibh_check_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void because(struct ibh_check_line *l, enum ibh_check_verdict v, const char *fmt, ...)
{
	va_list ap;

	if (l->verdict != IBH_CHECK_OK)
		return;
	l->verdict = v;
	va_start(ap, fmt);
	vsnprintf(l->why, sizeof(l->why), fmt, ap);
	va_end(ap);
}

/*
 * A peer that is one of the host's own addresses never leaves through a
 * port: IP delivers it locally. RDMA CM still resolves it by ARP out of the
 * address's port, and the port that holds the peer answers only a request
 * that comes from one of the host's own addresses when accept_local is on
 * and arp_filter off (measured on 5.4 to 6.12: tests/vm/rping.sh, loopback-*).
 */
static void judge_local(struct ibh_check_line *l, const char *a)
{
	if (!l->local_ifindex || l->local_ifindex == l->ifindex || l->addr.family != AF_INET)
		return;
	if (l->local_accept < 0 || l->local_arp_filter < 0)
		because(l, IBH_CHECK_UNKNOWN,
			"accept_local and arp_filter of %s could not be read "
			"(net.ipv4.conf.{all,%s})",
			l->local_dev, l->local_dev);
	else if (!l->local_accept || l->local_arp_filter)
		because(l, IBH_CHECK_LOCAL_DROPPED,
			"the peer is this host's address on %s, which drops ARP from %s "
			"(accept_local=%d, arp_filter=%d): RDMA CM cannot resolve it; "
			"[Sysctl] AcceptLocal=1 and no arp_filter make it work",
			l->local_dev, a, l->local_accept, l->local_arp_filter);
}

/* without a probe there is nothing to route to: the line says so */
static void judge_route(struct ibh_check_line *l, const char *a)
{
	if (l->no_probe)
		return;
	if (l->route_r < 0)
		because(l, IBH_CHECK_NO_ROUTE, "no route from %s", a);
	else if (l->local)
		judge_local(l, a);
	else if (l->route_oif != l->ifindex)
		because(l, IBH_CHECK_WRONG_PORT, "the route from %s leaves through %s, not %s", a,
			l->route_dev[0] ? l->route_dev : "?", l->ifname);
}

/* RDMA CM could not be asked here: no librdmacm, or no access to its device (not root) */
static bool cm_not_asked(int r)
{
	return r == -ENOSYS || r == -EACCES || r == -EPERM;
}

/* the verdict from what was found: the first problem, in the order of verdicts[] */
void check_judge(struct ibh_check_line *l)
{
	char a[64];

	l->verdict = IBH_CHECK_OK;
	l->why[0] = '\0';
	ip_to_string(&l->addr, a, sizeof(a), false);
	if (!l->up)
		because(l, IBH_CHECK_LINK_DOWN, "%s is down", l->ifname);
	judge_route(l, a);
	if (l->addr.family == AF_INET) {
		if (l->arp_ignore < 0 || l->arp_filter < 0)
			because(l, IBH_CHECK_UNKNOWN,
				"the ARP settings of %s could not be read (net.ipv4.conf.{all,%s}."
				"arp_ignore, arp_filter)",
				l->ifname, l->ifname);
		else if (l->arp_ignore >= 8)
			because(l, IBH_CHECK_ARP_OFF,
				"arp_ignore=%d: %s answers no ARP request, peers cannot reach %s",
				l->arp_ignore, l->ifname, a);
		else if (l->arp_ignore != 1 && l->arp_ignore != 2 && l->arp_filter != 1)
			because(l, IBH_CHECK_ARP_FLUX,
				"arp_ignore=%d, arp_filter=%d: every port answers ARP for %s",
				l->arp_ignore, l->arp_filter, a);
	}
	if (l->rdma) {
		bool roce = strcmp(l->link_layer, "Ethernet") == 0;

		if (strcmp(l->state, "?") == 0 || strcmp(l->link_layer, "?") == 0 ||
		    (!roce && l->lid_r < 0))
			because(l, IBH_CHECK_UNKNOWN, "the state of %s port %u could not be read",
				l->rdma_dev, l->rdma_port);
		else if (strcmp(l->state, "ACTIVE") != 0)
			because(l, IBH_CHECK_PORT_DOWN, "%s port %u is %s", l->rdma_dev,
				l->rdma_port, l->state);
		else if (roce && l->gid.index < 0 && l->gid.entries && !l->gid.global)
			because(l, IBH_CHECK_LINK_LOCAL_GIDS,
				"%s port %u holds link-local GIDs only, none for %s: "
				"RDMA CM cannot use the address (is it on %s itself?)",
				l->rdma_dev, l->rdma_port, a, l->ifname);
		else if (roce && l->gid.index < 0)
			because(l, IBH_CHECK_NO_GID, "%s port %u holds no GID for %s", l->rdma_dev,
				l->rdma_port, a);
		else if (roce && l->gid.type == IBH_GID_UNKNOWN)
			because(l, IBH_CHECK_UNKNOWN,
				"the type of GID %d of %s port %u could not be read", l->gid.index,
				l->rdma_dev, l->rdma_port);
		else if (roce && l->gid.type != IBH_GID_ROCE_V2)
			because(l, IBH_CHECK_NO_ROCE_V2,
				"%s port %u holds no RoCE v2 GID for %s, only %s (index %d): "
				"RDMA CM and a RoCE v2 index (NCCL_IB_GID_INDEX, "
				"UCX_IB_GID_INDEX) cannot use it",
				l->rdma_dev, l->rdma_port, a, gid_type_name(l->gid.type),
				l->gid.index);
		else if (!roce && l->lid == 0)
			because(l, IBH_CHECK_NO_LID, "%s port %u has no LID", l->rdma_dev,
				l->rdma_port);
	}
	if (l->cm_r == 0 && !l->rdma)
		because(l, IBH_CHECK_WRONG_PORT,
			"RDMA CM chose %s port %u, but %s has no RDMA port", l->cm.dev, l->cm.port,
			l->ifname);
	else if (l->cm_r == 0 &&
		 (strcmp(l->cm.dev, l->rdma_dev) != 0 || l->cm.port != l->rdma_port))
		because(l, IBH_CHECK_WRONG_PORT, "RDMA CM chose %s port %u, not %s port %u",
			l->cm.dev, l->cm.port, l->rdma_dev[0] ? l->rdma_dev : "?", l->rdma_port);
	else if (l->cm_r < 0 && !cm_not_asked(l->cm_r))
		because(l, IBH_CHECK_UNRESOLVED, "RDMA CM could not resolve %s: %s%s%s", a,
			strerror(-l->cm_r), l->cm.event[0] ? "; " : "", l->cm.event);
	if (l->verdict == IBH_CHECK_OK && l->local) {
		char p[64];

		l->verdict = IBH_CHECK_LOCAL;
		ip_to_string(&l->peer, p, sizeof(p), false);
		if (!l->local_ifindex)
			snprintf(l->why, sizeof(l->why), "%s is local to this host (a local route)",
				 p);
		else if (l->local_ifindex == l->ifindex)
			snprintf(l->why, sizeof(l->why),
				 "%s is %s's own address: traffic to it stays in the host", p,
				 l->ifname);
		else if (l->addr.family != AF_INET)
			snprintf(l->why, sizeof(l->why),
				 "%s is this host's address on %s: traffic to it stays in the host",
				 p, l->local_dev);
		else
			snprintf(l->why, sizeof(l->why),
				 "%s is this host's address on %s: IP traffic to it stays in the "
				 "host, and %s answers ARP from %s (accept_local=1, arp_filter=0)",
				 p, l->local_dev, l->local_dev, l->ifname);
	}
}

/* the host part of x (past len bits) is all ones */
static bool host_all_ones(const struct ibh_ip *x, unsigned int len)
{
	for (unsigned int b = len; b < ip_bits(x->family); b++)
		if (!(x->a[b / 8] & (0x80 >> (b % 8))))
			return false;
	return true;
}

/* x, inside prefix, is an address the kernel routes through the prefix's route */
static bool probe_usable(const struct ibh_ip *x, const struct ibh_ip *prefix,
			 const struct ibh_addr_entry *all, size_t n_all)
{
	struct ibh_ip net = *x;

	net.len = prefix->len;
	ip_prefix(&net, &net);
	if (!ip_same_address(&net, prefix))
		return false;
	/* IPv4 below /31: the network and broadcast addresses are the local table's */
	if (x->family == AF_INET && prefix->len < 31 &&
	    (ip_same_address(x, prefix) || host_all_ones(x, prefix->len)))
		return false;
	for (size_t i = 0; i < n_all; i++)
		if (ip_same_address(&all[i].addr.ip, x))
			return false;
	return true;
}

int check_probe(const struct ibh_addr *a, const struct ibh_addr_entry *all, size_t n_all,
		struct ibh_ip *ret)
{
	unsigned int bits = ip_bits(a->ip.family);
	struct ibh_ip prefix, x;
	unsigned int host_bits;
	uint32_t last;

	plan_addr_prefix(a, &prefix);
	/* `A peer P/len`: P is the other end, the address the prefix is there for */
	x = a->peer;
	x.len = (uint8_t)bits;
	if (a->peer.family && probe_usable(&x, &prefix, all, n_all)) {
		*ret = x;
		return 0;
	}
	host_bits = bits - prefix.len;
	/* a few candidates are enough: the prefix holds at most a handful of the host's */
	last = host_bits >= 5 ? 15 : (1u << host_bits) - 1;
	for (uint32_t k = host_bits == 1 ? 0 : 1; host_bits && k <= last; k++) {
		x = prefix;
		x.len = (uint8_t)bits;
		x.a[bits / 8 - 1] |= (uint8_t)k;
		if (probe_usable(&x, &prefix, all, n_all)) {
			*ret = x;
			return 0;
		}
	}
	return -ENOENT;
}

/* the host's own address peer is on: its link, and what lets ARP between two ports through */
static void local_peer(struct ibh_kernel *k, const struct ibh_addr_entry *all, size_t n_all,
		       struct ibh_check_line *l)
{
	struct ibh_link y;

	l->local = true;
	l->local_accept = l->local_arp_filter = -1;
	for (size_t i = 0; i < n_all && !l->local_ifindex; i++)
		if (ip_same_address(&all[i].addr.ip, &l->peer))
			l->local_ifindex = all[i].ifindex;
	if (!l->local_ifindex || kernel->get_link_by_index(k, l->local_ifindex, &y) < 0)
		return;
	snprintf(l->local_dev, sizeof(l->local_dev), "%s", y.name);
	if (l->addr.family == AF_INET) {
		l->local_accept = check_conf_effective(y.name, "accept_local", true);
		l->local_arp_filter = check_conf_effective(y.name, "arp_filter", true);
	}
}

/* ARP between the two ports of a local peer is dropped, or may be */
static bool local_blocked(const struct ibh_check_line *l)
{
	return l->local && l->addr.family == AF_INET && l->local_ifindex &&
	       l->local_ifindex != l->ifindex && (l->local_accept != 1 || l->local_arp_filter != 0);
}

static void gather(struct ibh_kernel *k, const struct ibh_link *link,
		   const struct ibh_addr_entry *all, size_t n_all, struct ibh_check_line *l)
{
	const struct ibh_rdma_port *port = select_rdma_port(link->ifindex);
	struct ibh_route rt;
	struct ibh_link via;
	bool ask_cm;

	l->route_r = l->no_probe ? -ENOENT : kernel->route_get(k, &l->peer, &l->addr, &rt);
	if (l->route_r == 0) {
		l->route_oif = rt.oif;
		if (rt.oif > 0 && kernel->get_link_by_index(k, rt.oif, &via) == 0)
			snprintf(l->route_dev, sizeof(l->route_dev), "%s", via.name);
		if (rt.type == RTN_LOCAL)
			local_peer(k, all, n_all, l);
	}
	l->arp_ignore = l->arp_announce = l->arp_filter = -1;
	if (l->addr.family == AF_INET) {
		l->arp_ignore = check_conf_effective(link->name, "arp_ignore", false);
		l->arp_announce = check_conf_effective(link->name, "arp_announce", false);
		l->arp_filter = check_conf_effective(link->name, "arp_filter", true);
	}
	l->cm_r = 1;
	l->gid = (struct ibh_gid){ .index = -1 };
	/* RDMA CM would wait for an ARP answer that the peer's port does not give */
	ask_cm = l->peer_given && !local_blocked(l);
	/*
	 * No RDMA port here, on a host that has some (its RDMA device went away,
	 * a port matched by Name=): RDMA CM is asked anyway, so that an address
	 * RDMA cannot use is not called ok. A probe address answers no ARP: RDMA
	 * CM is asked only about a real peer.
	 */
	if (!port) {
		if (ask_cm && select_rdma_any())
			l->cm_r = kernel->cm_resolve(&l->addr, &l->peer, CM_TIMEOUT_MS, &l->cm);
		return;
	}
	l->rdma = true;
	snprintf(l->rdma_dev, sizeof(l->rdma_dev), "%s", port->dev);
	l->rdma_port = port->port;
	rdma_facts(l);
	if (ask_cm)
		l->cm_r = kernel->cm_resolve(&l->addr, &l->peer, CM_TIMEOUT_MS, &l->cm);
}

/* a value read from the kernel, "?" when it could not be */
static void text_int(FILE *f, int v)
{
	if (v < 0)
		fputc('?', f);
	else
		fprintf(f, "%d", v);
}

static void print_text(FILE *f, const struct ibh_check_line *l)
{
	char a[64], p[64];

	fprintf(f, "%s %s -> %s%s: %s", l->ifname, ip_to_string(&l->addr, a, sizeof(a), false),
		l->no_probe ? "nothing" : ip_to_string(&l->peer, p, sizeof(p), false),
		l->no_probe	? " (no other address in its prefix)"
		: l->peer_given ? ""
				: " (probe)",
		check_verdict_word(l->verdict));
	if (l->why[0])
		fprintf(f, ": %s", l->why);
	if (l->no_probe)
		fprintf(f, " (route not checked: give a PEER");
	else if (l->local)
		fprintf(f, " (route local%s%s", l->local_dev[0] ? ", on " : "", l->local_dev);
	else
		fprintf(f, " (route %s%s", l->route_r < 0 ? "none" : "dev ",
			l->route_r < 0	  ? ""
			: l->route_dev[0] ? l->route_dev
					  : "?");
	if (l->addr.family == AF_INET) {
		fprintf(f, "; arp_ignore=");
		text_int(f, l->arp_ignore);
		fprintf(f, " arp_announce=");
		text_int(f, l->arp_announce);
		fprintf(f, " arp_filter=");
		text_int(f, l->arp_filter);
	}
	if (!l->rdma)
		fprintf(f, "; no RDMA port: routing and ARP only");
	else {
		fprintf(f, "; %s port %u %s, %s", l->rdma_dev, l->rdma_port, l->state,
			l->link_layer);
		if (strcmp(l->link_layer, "Ethernet") == 0) {
			if (l->gid.index >= 0)
				fprintf(f, ", gid %d %s", l->gid.index, gid_type_name(l->gid.type));
			else if (l->gid.entries && !l->gid.global)
				fprintf(f, ", no gid (link-local only)");
			else
				fprintf(f, ", no gid");
		} else if (l->lid_r < 0)
			fprintf(f, ", lid ?");
		else
			fprintf(f, ", lid %u", l->lid);
	}
	if (l->rdma || l->cm_r != 1) {
		if (l->cm_r == 0)
			fprintf(f, "; rdma_cm %s port %u", l->cm.dev, l->cm.port);
		else if (l->cm_r == -ENOSYS)
			fprintf(f, "; rdma_cm not asked (no librdmacm)");
		else if (cm_not_asked(l->cm_r))
			fprintf(f, "; rdma_cm not asked (no access to /dev/infiniband/rdma_cm)");
		else if (l->cm_r < 0)
			fprintf(f, "; rdma_cm %s", strerror(-l->cm_r));
	}
	fprintf(f, ")\n");
}

/* a value read from the kernel, null when it could not be */
static void json_value(FILE *f, int v)
{
	if (v < 0)
		fprintf(f, "null");
	else
		fprintf(f, "%d", v);
}

static void json_int(FILE *f, const char *key, int v)
{
	fprintf(f, ",\"%s\":", key);
	json_value(f, v);
}

static void print_json(FILE *f, const struct ibh_check_line *l, bool first)
{
	char a[64];

	fprintf(f, "%s{\"interface\":", first ? "" : ",");
	report_json_string(f, l->ifname);
	fprintf(f, ",\"address\":\"%s\"", ip_to_string(&l->addr, a, sizeof(a), false));
	if (l->no_probe)
		fprintf(f, ",\"peer\":null");
	else
		fprintf(f, ",\"peer\":\"%s\"", ip_to_string(&l->peer, a, sizeof(a), false));
	fprintf(f, ",\"peer_given\":%s,\"local\":", l->peer_given ? "true" : "false");
	if (!l->local)
		fprintf(f, "null");
	else {
		fprintf(f, "{\"interface\":");
		if (l->local_dev[0])
			report_json_string(f, l->local_dev);
		else
			fprintf(f, "null");
		fputc('}', f);
	}
	fprintf(f, ",\"verdict\":\"%s\",\"why\":", check_verdict_word(l->verdict));
	report_json_string(f, l->why);
	fprintf(f, ",\"route_dev\":");
	if (l->route_r < 0)
		fprintf(f, "null");
	else
		report_json_string(f, l->route_dev);
	if (l->addr.family == AF_INET) {
		fprintf(f, ",\"arp\":{\"arp_ignore\":");
		json_value(f, l->arp_ignore);
		json_int(f, "arp_announce", l->arp_announce);
		json_int(f, "arp_filter", l->arp_filter);
		fprintf(f, "}");
	} else
		fprintf(f, ",\"arp\":null");
	if (!l->rdma)
		fprintf(f, ",\"rdma\":null");
	else {
		fprintf(f, ",\"rdma\":{\"device\":");
		report_json_string(f, l->rdma_dev);
		fprintf(f, ",\"port\":%u,\"state\":", l->rdma_port);
		report_json_string(f, l->state);
		fprintf(f, ",\"link_layer\":");
		report_json_string(f, l->link_layer);
		json_int(f, "gid_index", l->gid.index);
		fprintf(f, ",\"gid_type\":");
		report_json_string(f, l->gid.index >= 0 ? gid_type_name(l->gid.type) : "");
		fprintf(f, ",\"gids_link_local_only\":%s",
			l->gid.index < 0 && l->gid.entries && !l->gid.global ? "true" : "false");
		json_int(f, "lid", l->lid_r < 0 ? -1 : (int)l->lid);
		fputc('}', f);
	}
	if (l->cm_r == 0) {
		fprintf(f, ",\"rdma_cm\":{\"device\":");
		report_json_string(f, l->cm.dev);
		fprintf(f, ",\"port\":%u}", l->cm.port);
	} else if (l->cm_r < 0 && !cm_not_asked(l->cm_r)) {
		fprintf(f, ",\"rdma_cm\":{\"error\":");
		report_json_string(f, strerror(-l->cm_r));
		fprintf(f, "}");
	} else
		fprintf(f, ",\"rdma_cm\":null");
	fprintf(f, "}");
}

static bool named(const char *name, const char *const *ifnames, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ifnames[i], name) == 0)
			return true;
	return n == 0;
}

int check_run(const struct ibh_config *c, const char *const *ifnames, size_t n_ifnames,
	      const struct ibh_ip *peers, size_t n_peers, bool json, FILE *out)
{
	struct ibh_snapshot s;
	size_t checked = 0, ok = 0, local = 0, passed = 0;
	int r;

	r = snapshot_open(&s);
	if (r < 0)
		return r;
	r = snapshot_find_links(&s, ifnames, n_ifnames);
	if (r < 0)
		goto cleanup;
	if (json)
		fprintf(out, "{\"version\":1,\"checks\":[");
	for (size_t i = 0; i < s.n_links; i++) {
		const struct ibh_link *link = &s.links[i];

		if (!named(link->name, ifnames, n_ifnames) || !link_is_managed(c, link))
			continue;
		for (size_t j = 0; j < s.n_addrs; j++) {
			const struct ibh_addr *a = &s.addrs[j].addr;

			if (s.addrs[j].ifindex != link->ifindex || !plan_address_managed(c, &a->ip))
				continue;
			for (size_t k = 0; k < (n_peers ? n_peers : 1); k++) {
				struct ibh_check_line l = { .ifindex = link->ifindex,
							    .up = link->up };

				snprintf(l.ifname, sizeof(l.ifname), "%s", link->name);
				l.addr = a->ip;
				l.addr.len = (uint8_t)(a->ip.family == AF_INET ? 32 : 128);
				if (n_peers && peers[k].family != a->ip.family)
					continue;
				if (n_peers) {
					l.peer = peers[k];
					l.peer_given = true;
				} else
					l.no_probe =
						check_probe(a, s.addrs, s.n_addrs, &l.peer) < 0;
				gather(s.k, link, s.addrs, s.n_addrs, &l);
				check_judge(&l);
				if (json)
					print_json(out, &l, checked == 0);
				else
					print_text(out, &l);
				checked++;
				ok += l.verdict == IBH_CHECK_OK;
				local += l.verdict == IBH_CHECK_LOCAL;
				passed += check_verdict_passes(l.verdict);
			}
		}
	}
	if (json)
		fprintf(out,
			"],\"summary\":{\"checked\":%zu,\"ok\":%zu,\"local\":%zu,\"not_ok\":%zu},"
			"\"ok\":%s}\n",
			checked, ok, local, checked - passed,
			checked && passed == checked ? "true" : "false");
	else if (checked == 0)
		fprintf(out, "nothing checked: no managed interface with an address%s\n",
			n_peers ? " of the peers' family" : "");
	else if (local)
		fprintf(out, "%zu checked: %zu ok, %zu local, %zu not ok\n", checked, ok, local,
			checked - passed);
	else
		fprintf(out, "%zu checked: %zu ok, %zu not ok\n", checked, ok, checked - passed);
	r = checked && passed == checked ? 0 : 1;
cleanup:
	snapshot_close(&s);
	return r;
}
