// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What other hosts need to know of this host's ports to check their pairs
 * towards it and to place a cause at it: addresses, the hardware address that
 * should answer ARP for them, whether a rule of its own routes each address
 * (ib-hook applied), the settings that decide who answers ARP and what the
 * reverse-path filter drops, and the RDMA port. Read-only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "inventory.h"
#include "kernel.h"
#include "plan.h"
#include "report.h"
#include "rule.h"
#include "select.h"
#include "snapshot.h"

/* tables the kernel has of its own: a rule to one of them is none of a port's */
#define RT_TABLE_DEFAULT_ID 253
#define RT_TABLE_LOCAL_ID   255

/* a rule sends traffic from a (a whole address) to a table other than the kernel's */
static bool routed(const struct ibh_ip *a, const struct ibh_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ip_same_address(&rules[i].src, a) && rules[i].src.len == ip_bits(a->family) &&
		    rules[i].table != 0 &&
		    (rules[i].table < RT_TABLE_DEFAULT_ID || rules[i].table > RT_TABLE_LOCAL_ID))
			return true;
	return false;
}

/*
 * The GIDs a RoCE port holds for the port's addresses (an address without
 * one is missing): RDMA CM cannot connect from or to that address. An
 * InfiniBand port's GIDs are the port's, not its addresses': none listed.
 */
static void gids_json(FILE *out, const struct ibh_link *link, const struct ibh_rdma_port *rp,
		      const struct ibh_addr_entry *addrs, size_t n_addrs,
		      const struct ibh_config *c)
{
	char buf[64];
	bool first = true;

	if (kernel->rdma_port_read(rp->dev, rp->port, "link_layer", buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "?");
	fprintf(out, ",\"link_layer\":");
	report_json_string(out, buf);
	fprintf(out, ",\"gids\":[");
	for (size_t j = 0; strcmp(buf, "Ethernet") == 0 && j < n_addrs; j++) {
		const struct ibh_ip *ip = &addrs[j].addr.ip;
		struct ibh_gid g;
		char a[64];

		if (addrs[j].ifindex != link->ifindex || !plan_address_managed(c, ip))
			continue;
		if (check_gid(rp->dev, rp->port, link->name, ip, &g) < 0)
			continue;
		fprintf(out, "%s{\"address\":\"%s\",\"index\":%d,\"type\":", first ? "" : ",",
			ip_to_string(ip, a, sizeof(a), true), g.index);
		report_json_string(out, gid_type_name(g.type));
		fprintf(out, "}");
		first = false;
	}
	fprintf(out, "]");
}

static void port_json(FILE *out, const struct ibh_link *link, const struct ibh_addr_entry *addrs,
		      size_t n_addrs, const struct ibh_rule *rules, size_t n_rules,
		      const struct ibh_config *c)
{
	const struct ibh_rdma_port *rp = select_rdma_port(link->ifindex);
	char hw[3 * IBH_HW_MAX], buf[64];
	bool all_routed = true, first = true;

	fprintf(out, "{\"interface\":");
	report_json_string(out, link->name);
	fprintf(out, ",\"up\":%s,\"hwaddr\":\"%s\"", link->up ? "true" : "false",
		hw_to_string(link->hw, link->hw_len, hw, sizeof(hw)));
	fprintf(out, ",\"addresses\":[");
	for (size_t j = 0; j < n_addrs; j++) {
		const struct ibh_ip *ip = &addrs[j].addr.ip;

		if (addrs[j].ifindex != link->ifindex || !plan_address_managed(c, ip))
			continue;
		fprintf(out, "%s\"%s\"", first ? "" : ",",
			ip_to_string(ip, buf, sizeof(buf), true));
		all_routed &= routed(ip, rules, n_rules);
		first = false;
	}
	fprintf(out, "],\"routed\":%s", !first && all_routed ? "true" : "false");
	fprintf(out, ",\"arp_ignore\":%d,\"arp_filter\":%d,\"rp_filter\":%d,\"accept_local\":%d",
		check_conf_effective(link->name, "arp_ignore", false),
		check_conf_effective(link->name, "arp_filter", true),
		check_conf_effective(link->name, "rp_filter", false),
		check_conf_effective(link->name, "accept_local", true));
	/* what AcceptLocal= sets, not what the port has now: a port that lost it is a fault */
	fprintf(out, ",\"local_delivery\":%s",
		c->sysctl[IBH_SYSCTL_ACCEPT_LOCAL] > 0 ? "true" : "false");
	if (!rp) {
		fprintf(out, ",\"rdma\":null}");
		return;
	}
	if (kernel->rdma_port_read(rp->dev, rp->port, "state", buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "?");
	fprintf(out, ",\"rdma\":{\"device\":");
	report_json_string(out, rp->dev);
	/* sysfs says "4: ACTIVE": the name is what counts */
	fprintf(out, ",\"port\":%u,\"state\":", rp->port);
	report_json_string(out, strstr(buf, ": ") ? strstr(buf, ": ") + 2 : buf);
	gids_json(out, link, rp, addrs, n_addrs, c);
	fprintf(out, "}}");
}

int inventory_run(const struct ibh_config *c, FILE *out, char ret_port[static IF_NAMESIZE])
{
	struct ibh_snapshot s;
	struct ibh_rule *rules = NULL;
	size_t n_rules = 0;
	char host[256] = "";
	bool protocol, first = true;
	int r;

	r = snapshot_open(&s);
	if (r < 0)
		return r;
	r = kernel->dump_rules(s.k, &rules, &n_rules, &protocol);
	if (r < 0)
		goto cleanup;
	if (gethostname(host, sizeof(host) - 1) < 0) {
		r = -errno;
		goto cleanup;
	}
	/* other hosts find this one, and tell who answered ARP, by these: none is no port of it */
	for (size_t i = 0; i < s.n_links; i++)
		if (link_is_managed(c, &s.links[i]) && s.links[i].hw_len == 0) {
			snprintf(ret_port, IF_NAMESIZE, "%s", s.links[i].name);
			r = -EADDRNOTAVAIL;
			goto cleanup;
		}
	fprintf(out, "{\"version\":1,\"host\":");
	report_json_string(out, host);
	fprintf(out, ",\"ports\":[");
	for (size_t i = 0; i < s.n_links; i++) {
		if (!link_is_managed(c, &s.links[i]))
			continue;
		if (!first)
			fprintf(out, ",");
		port_json(out, &s.links[i], s.addrs, s.n_addrs, rules, n_rules, c);
		first = false;
	}
	fprintf(out, "]}\n");
	r = 0;
cleanup:
	free(rules);
	snapshot_close(&s);
	return r;
}
