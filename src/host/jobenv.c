// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NCCL and UCX pick an RDMA device and, on RoCE, a GID index themselves, and
 * guess wrong on a host whose ports share a subnet: the job is told which
 * ports ib-hook manages, in a stable order, and the GID index when one
 * serves every port (NCCL_IB_GID_INDEX is one number for a whole job; each
 * port's own index moves with every other address, VLAN or macvlan on it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "gid.h"
#include "jobenv.h"
#include "kernel.h"
#include "log.h"
#include "plan.h"
#include "report.h"
#include "select.h"
#include "snapshot.h"

static int port_order(const void *a, const void *b)
{
	const struct ibh_job_port *x = a, *y = b;
	int r = strverscmp(x->dev, y->dev);

	return r ? r : x->port < y->port ? -1 : x->port > y->port;
}

/* s, then ",", then fmt... */
static void list_add(char *s, size_t size, const char *first, const char *item)
{
	size_t len = strlen(s);

	snprintf(s + len, size - len, "%s%s", len ? "," : first, item);
}

void jobenv_decide(struct ibh_job_port *ports, size_t n, struct ibh_job_env *ret)
{
	bool one = true;

	*ret = (struct ibh_job_env){ .gid_index = -1 };
	qsort(ports, n, sizeof(*ports), port_order);
	for (size_t i = 0; i < n; i++) {
		struct ibh_job_port *p = &ports[i];
		char item[96];

		p->used = p->up && strcmp(p->state, "ACTIVE") == 0;
		/* two links on one RDMA port (never seen, but cheap): the port once */
		if (!p->used || (i && ports[i - 1].used && strcmp(ports[i - 1].dev, p->dev) == 0 &&
				 ports[i - 1].port == p->port && (p->used = false, true)))
			continue;
		ret->n_used++;
		snprintf(item, sizeof(item), "%s:%u", p->dev, p->port);
		list_add(ret->hca, sizeof(ret->hca), "=", item);
		list_add(ret->devices, sizeof(ret->devices), "", item);
		list_add(ret->ifnames, sizeof(ret->ifnames), "=", p->ifname);
		if (strcmp(p->link_layer, "Ethernet") != 0)
			continue;
		if (!ret->roce)
			ret->gid_index = p->gid_index;
		ret->roce = true;
		one &= p->gid_index >= 0 && p->gid_index == ret->gid_index;
	}
	if (!one)
		ret->gid_index = -1;
}

/* a value as the shell and a Slurm TaskProlog both take it: bare when it can be */
static void shell_value(FILE *f, const char *v)
{
	if (*v && strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			    "_=:,.@%+-") == strlen(v)) {
		fputs(v, f);
		return;
	}
	fputc('\'', f);
	for (; *v; v++)
		if (*v == '\'')
			fputs("'\\''", f);
		else
			fputc(*v, f);
	fputc('\'', f);
}

/* the environment: name and value pairs, in the order printed; n_ret of them */
static size_t env_of(const struct ibh_job_env *e, const char *names[5], const char *values[5],
		     char index[16])
{
	size_t n = 0;

	if (!e->n_used)
		return 0;
	snprintf(index, 16, "%d", e->gid_index);
	names[n] = "NCCL_IB_HCA";
	values[n++] = e->hca;
	if (e->gid_index >= 0) {
		names[n] = "NCCL_IB_GID_INDEX";
		values[n++] = index;
		names[n] = "UCX_IB_GID_INDEX";
		values[n++] = index;
	}
	names[n] = "NCCL_SOCKET_IFNAME";
	values[n++] = e->ifnames;
	names[n] = "UCX_NET_DEVICES";
	values[n++] = e->devices;
	return n;
}

/* why no GID index is exported, when a RoCE port is used; "" when one is */
static void no_index_why(const struct ibh_job_port *ports, size_t n, const struct ibh_job_env *e,
			 char *buf, size_t size)
{
	size_t len;

	buf[0] = '\0';
	if (!e->roce || e->gid_index >= 0)
		return;
	len = (size_t)snprintf(buf, size, "no one RoCE v2 GID index fits every port:");
	for (size_t i = 0; i < n && len < size; i++) {
		if (!ports[i].used || strcmp(ports[i].link_layer, "Ethernet") != 0)
			continue;
		if (ports[i].gid_index >= 0)
			len += (size_t)snprintf(buf + len, size - len, " %s:%u %d", ports[i].dev,
						ports[i].port, ports[i].gid_index);
		else
			len += (size_t)snprintf(buf + len, size - len, " %s:%u none", ports[i].dev,
						ports[i].port);
	}
}

static void print_text(const struct ibh_job_port *ports, size_t n, const struct ibh_job_env *e,
		       FILE *f)
{
	const char *names[5], *values[5];
	char index[16], why[1024];
	size_t k = env_of(e, names, values, index);

	fprintf(f, "# ib-hook --job-env: %zu managed RDMA port(s)%s\n", e->n_used,
		e->n_used ? "" : ": nothing to export");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "# %s %s:%u %s %s", ports[i].ifname, ports[i].dev, ports[i].port,
			ports[i].link_layer, ports[i].state);
		if (strcmp(ports[i].link_layer, "Ethernet") == 0 && ports[i].gid_index >= 0)
			fprintf(f, ", RoCE v2 GID %d", ports[i].gid_index);
		else if (strcmp(ports[i].link_layer, "Ethernet") == 0)
			fprintf(f, ", no RoCE v2 GID");
		fprintf(f, "%s\n",
			ports[i].used ? ""
			: ports[i].up ? ": left out, not ACTIVE"
				      : ": left out, link down");
	}
	no_index_why(ports, n, e, why, sizeof(why));
	if (why[0])
		fprintf(f, "# NCCL_IB_GID_INDEX, UCX_IB_GID_INDEX not set: %s\n", why);
	for (size_t i = 0; i < k; i++) {
		fprintf(f, "export %s=", names[i]);
		shell_value(f, values[i]);
		fputc('\n', f);
	}
}

static void print_json(const struct ibh_job_port *ports, size_t n, const struct ibh_job_env *e,
		       FILE *f)
{
	const char *names[5], *values[5];
	char index[16], why[1024];
	size_t k = env_of(e, names, values, index);

	fprintf(f, "{\"version\":1,\"ports\":[");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"interface\":", i ? "," : "");
		report_json_string(f, ports[i].ifname);
		fprintf(f, ",\"device\":");
		report_json_string(f, ports[i].dev);
		fprintf(f, ",\"port\":%u,\"link_layer\":", ports[i].port);
		report_json_string(f, ports[i].link_layer);
		fprintf(f, ",\"state\":");
		report_json_string(f, ports[i].state);
		fprintf(f, ",\"up\":%s,\"used\":%s,\"gid_index\":", ports[i].up ? "true" : "false",
			ports[i].used ? "true" : "false");
		if (ports[i].gid_index >= 0)
			fprintf(f, "%d}", ports[i].gid_index);
		else
			fprintf(f, "null}");
	}
	fprintf(f, "],\"gid_index\":");
	if (e->gid_index >= 0)
		fprintf(f, "%d", e->gid_index);
	else
		fprintf(f, "null");
	no_index_why(ports, n, e, why, sizeof(why));
	fprintf(f, ",\"gid_index_why\":");
	if (why[0])
		report_json_string(f, why);
	else
		fprintf(f, "null");
	fprintf(f, ",\"env\":{");
	for (size_t i = 0; i < k; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", names[i]);
		report_json_string(f, values[i]);
	}
	fprintf(f, "}}\n");
}

int jobenv_print(const struct ibh_job_port *ports, size_t n, bool json, FILE *out)
{
	struct ibh_job_port *v = calloc(n ? n : 1, sizeof(*v));
	struct ibh_job_env e;

	if (!v)
		return -ENOMEM;
	memcpy(v, ports, n * sizeof(*v));
	jobenv_decide(v, n, &e);
	if (json)
		print_json(v, n, &e, out);
	else
		print_text(v, n, &e, out);
	free(v);
	return e.n_used ? 0 : 1;
}

static bool named(const char *name, const char *const *ifnames, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ifnames[i], name) == 0)
			return true;
	return n == 0;
}

/* the port's sysfs attribute, "?" when it cannot be read; "4: ACTIVE" is "ACTIVE" */
static void port_attr(const struct ibh_rdma_port *rp, const char *attr, char *buf, size_t size)
{
	if (kernel->rdma_port_read(rp->dev, rp->port, attr, buf, size) < 0)
		snprintf(buf, size, "?");
	if (strstr(buf, ": "))
		memmove(buf, strstr(buf, ": ") + 2, strlen(strstr(buf, ": ") + 2) + 1);
}

/* RoCE: the RoCE v2 entry of the link's first managed IPv4 address, else of its first IPv6 one */
static int port_gid(const struct ibh_config *c, const struct ibh_snapshot *s,
		    const struct ibh_link *link, const struct ibh_rdma_port *rp)
{
	for (int family = AF_INET; family; family = family == AF_INET ? AF_INET6 : 0)
		for (size_t j = 0; j < s->n_addrs; j++) {
			const struct ibh_ip *ip = &s->addrs[j].addr.ip;
			struct ibh_gid g;

			if (s->addrs[j].ifindex != link->ifindex || ip->family != family ||
			    !plan_address_managed(c, ip))
				continue;
			if (gid_find(kernel->rdma_port_read, rp->dev, rp->port, link->name, ip,
				     &g) < 0 ||
			    g.type != IBH_GID_ROCE_V2)
				return -1;
			return g.index;
		}
	return -1;
}

int jobenv_run(const struct ibh_config *c, const char *const *ifnames, size_t n_ifnames, bool json,
	       FILE *out)
{
	struct ibh_job_port *ports = NULL;
	struct ibh_snapshot s;
	size_t n = 0;
	int r;

	r = snapshot_open(&s);
	if (r < 0)
		return r;
	r = snapshot_find_links(&s, ifnames, n_ifnames);
	if (r < 0)
		goto cleanup;
	ports = calloc(s.n_links ? s.n_links : 1, sizeof(*ports));
	if (!ports) {
		r = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < s.n_links; i++) {
		const struct ibh_link *link = &s.links[i];
		const struct ibh_rdma_port *rp = select_rdma_port(link->ifindex);
		struct ibh_job_port *p = &ports[n];

		if (!rp || !named(link->name, ifnames, n_ifnames) || !link_is_managed(c, link))
			continue;
		snprintf(p->ifname, sizeof(p->ifname), "%s", link->name);
		snprintf(p->dev, sizeof(p->dev), "%s", rp->dev);
		p->port = rp->port;
		p->up = link->up;
		port_attr(rp, "state", p->state, sizeof(p->state));
		port_attr(rp, "link_layer", p->link_layer, sizeof(p->link_layer));
		p->gid_index =
			strcmp(p->link_layer, "Ethernet") == 0 ? port_gid(c, &s, link, rp) : -1;
		n++;
	}
	r = jobenv_print(ports, n, json, out);
cleanup:
	free(ports);
	snapshot_close(&s);
	return r;
}
