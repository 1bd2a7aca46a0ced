// SPDX-License-Identifier: GPL-2.0-or-later
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake-kernel.h"

struct fake_kernel fake;

static struct ibh_ip ip(const char *cidr)
{
	struct ibh_ip a;

	assert_int_equal(ip_from_record(cidr, &a, strchr(cidr, '/') != NULL), 0);
	return a;
}

static bool prefix_holds(const struct ibh_ip *prefix, const struct ibh_ip *a)
{
	struct ibh_ip x = *a, p;

	x.len = prefix->len;
	ip_prefix(&p, &x);
	return p.family == prefix->family && ip_equal(&p, prefix);
}

static const struct ibh_link *link_of(int ifindex)
{
	for (size_t i = 0; i < fake.n_links; i++)
		if (fake.links[i].ifindex == ifindex)
			return &fake.links[i];
	return NULL;
}

static int fake_open(struct ibh_kernel **ret)
{
	*ret = (struct ibh_kernel *)&fake;
	return 0;
}

static void fake_close(struct ibh_kernel *k)
{
	(void)k;
}

static uint32_t fake_port(const struct ibh_kernel *k)
{
	(void)k;
	return 4242;
}

static int fake_netns(struct ibh_kernel *k, struct ibh_netns *ret)
{
	(void)k;
	*ret = fake.netns;
	return 0;
}

static int fake_get_link(struct ibh_kernel *k, const char *name, struct ibh_link *ret)
{
	(void)k;
	for (size_t i = 0; i < fake.n_links; i++)
		if (strcmp(fake.links[i].name, name) == 0) {
			*ret = fake.links[i];
			return 0;
		}
	return -ENODEV;
}

static int fake_get_link_by_index(struct ibh_kernel *k, int ifindex, struct ibh_link *ret)
{
	const struct ibh_link *l = link_of(ifindex);

	(void)k;
	if (!l)
		return -ENODEV;
	*ret = *l;
	return 0;
}

static int copy_out(const void *items, size_t n, size_t size, void *ret, size_t *n_ret)
{
	void *copy = calloc(n ? n : 1, size);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, items, n * size);
	*(void **)ret = copy;
	*n_ret = n;
	return 0;
}

static int fake_dump_links(struct ibh_kernel *k, struct ibh_link **ret, size_t *n_ret)
{
	(void)k;
	return copy_out(fake.links, fake.n_links, sizeof(*fake.links), ret, n_ret);
}

static int fake_dump_addrs(struct ibh_kernel *k, int ifindex, struct ibh_addr_entry **ret,
			   size_t *n_ret)
{
	struct ibh_addr_entry a[32];
	size_t n = 0;

	(void)k;
	for (size_t i = 0; i < fake.n_addrs; i++)
		if (!ifindex || fake.addrs[i].ifindex == ifindex)
			a[n++] = fake.addrs[i];
	return copy_out(a, n, sizeof(*a), ret, n_ret);
}

static int fake_dump_rules(struct ibh_kernel *k, struct ibh_rule **ret, size_t *n_ret,
			   bool *ret_protocol)
{
	(void)k;
	*ret_protocol = true;
	return copy_out(fake.rules, fake.n_rules, sizeof(*fake.rules), ret, n_ret);
}

static int fake_dump_table(struct ibh_kernel *k, uint32_t table, int oif, struct ibh_route **ret,
			   size_t *n_ret)
{
	struct ibh_route t[128];
	size_t n = 0;

	(void)k;
	for (size_t i = 0; i < fake.n_routes; i++)
		if (fake.routes[i].table == table && (!oif || fake.routes[i].oif == oif))
			t[n++] = fake.routes[i];
	return copy_out(t, n, sizeof(*t), ret, n_ret);
}

/* main's most specific route to dst through oif: what RTM_F_FIB_MATCH answers here */
static int fake_fib_match(struct ibh_kernel *k, const struct ibh_ip *dst, int oif,
			  struct ibh_route *ret)
{
	const struct ibh_route *best = NULL;

	(void)k;
	for (size_t i = 0; i < fake.n_routes; i++) {
		const struct ibh_route *r = &fake.routes[i];

		if (r->table == RT_TABLE_MAIN && r->oif == oif && prefix_holds(&r->dst, dst) &&
		    (!best || r->dst.len > best->dst.len))
			best = r;
	}
	if (!best)
		return -ENOENT;
	*ret = *best;
	return 0;
}

static int before(enum fake_call call)
{
	int n = (int)fake.calls[call]++;

	return fake.before ? fake.before(call, n) : 0;
}

static bool address_present(const struct ibh_ip *a)
{
	for (size_t i = 0; i < fake.n_addrs; i++)
		if (ip_same_address(&fake.addrs[i].addr.ip, a))
			return true;
	return false;
}

static int fake_route_add(struct ibh_kernel *k, const struct ibh_route *r)
{
	const struct ibh_link *l = link_of(r->oif);
	struct ibh_route add = *r;
	int e = before(FAKE_ROUTE_ADD);

	(void)k;
	if (e < 0)
		return e;
	if (!l)
		return -ENODEV;
	if (!l->up)
		return -ENETDOWN;
	/* fib_create_info: a preferred source no link has */
	if (r->src.family && !address_present(&r->src))
		return -EINVAL;
	memset(add.oif_name, 0, sizeof(add.oif_name));
	for (size_t i = 0; i < fake.n_routes; i++)
		if (route_equal(&fake.routes[i], &add) || route_add_hits(&fake.routes[i], &add))
			return -EEXIST;
	assert_true(fake.n_routes < sizeof(fake.routes) / sizeof(fake.routes[0]));
	fake.routes[fake.n_routes++] = add;
	return 1;
}

static int fake_route_del(struct ibh_kernel *k, const struct ibh_route *r)
{
	int e = before(FAKE_ROUTE_DEL);

	(void)k;
	if (e < 0)
		return e;
	for (size_t i = 0; i < fake.n_routes; i++) {
		const struct ibh_route *f = &fake.routes[i];

		if (f->table == r->table && ip_equal(&f->dst, &r->dst) && f->oif == r->oif &&
		    (!r->metric || f->metric == r->metric)) {
			fake.routes[i] = fake.routes[--fake.n_routes];
			return 1;
		}
	}
	return 0;
}

static void rule_describe(struct ibh_rule *r)
{
	char a[64];

	snprintf(r->desc, sizeof(r->desc), "from %s lookup %u priority %u proto %u",
		 ip_to_string(&r->src, a, sizeof(a), false), r->table, r->priority, r->protocol);
}

/* in priority order, after the rules of the same priority, as the kernel inserts */
static void rule_insert(const struct ibh_rule *r)
{
	size_t at = fake.n_rules;

	assert_true(fake.n_rules < sizeof(fake.rules) / sizeof(fake.rules[0]));
	while (at > 0 && fake.rules[at - 1].priority > r->priority)
		at--;
	memmove(&fake.rules[at + 1], &fake.rules[at], (fake.n_rules - at) * sizeof(*r));
	fake.rules[at] = *r;
	fake.n_rules++;
}

static int fake_rule_add(struct ibh_kernel *k, const struct ibh_rule *r)
{
	struct ibh_rule add;
	int e = before(FAKE_RULE_ADD);

	(void)k;
	if (e < 0)
		return e;
	rule_wanted(&r->src, r->table, r->priority, &add);
	rule_describe(&add);
	for (size_t i = 0; i < fake.n_rules; i++)
		if (rule_equal(&fake.rules[i], &add) || rule_add_hits(&fake.rules[i], &add, true))
			return -EEXIST;
	rule_insert(&add);
	return 1;
}

static int fake_rule_del(struct ibh_kernel *k, const struct ibh_rule *r)
{
	int e = before(FAKE_RULE_DEL);

	(void)k;
	if (e < 0)
		return e;
	for (size_t i = 0; i < fake.n_rules; i++) {
		const struct ibh_rule *f = &fake.rules[i];

		if (f->src.family == r->src.family && ip_equal(&f->src, &r->src) &&
		    f->table == r->table && f->priority == r->priority &&
		    f->protocol == RTPROT_KERNEL) {
			memmove(&fake.rules[i], &fake.rules[i + 1],
				(fake.n_rules - i - 1) * sizeof(*f));
			fake.n_rules--;
			return 1;
		}
	}
	return 0;
}

static int fake_neigh_flush(struct ibh_kernel *k, int ifindex)
{
	(void)k;
	return link_of(ifindex) ? 0 : -ENODEV;
}

static int fake_rdma_ports(struct ibh_rdma_port **ret, size_t *n_ret)
{
	return copy_out(fake.rdma, fake.n_rdma, sizeof(*fake.rdma), ret, n_ret);
}

static int fake_rdma_port_read(const char *dev, uint32_t port, const char *attr, char *buf,
			       size_t size)
{
	(void)dev, (void)port;
	for (size_t i = 0; i < fake.n_port_attrs; i++)
		if (strcmp(fake.port_attrs[i].attr, attr) == 0) {
			snprintf(buf, size, "%s", fake.port_attrs[i].value);
			return 0;
		}
	return -ENOENT;
}

static int *sysctl_slot(const char *ifname, enum ibh_sysctl key)
{
	for (size_t i = 0; i < fake.n_sysctl; i++)
		if (strcmp(fake.sysctl[i].ifname, ifname) == 0)
			return &fake.sysctl[i].value[key];
	assert_true(fake.n_sysctl < sizeof(fake.sysctl) / sizeof(fake.sysctl[0]));
	snprintf(fake.sysctl[fake.n_sysctl].ifname, IF_NAMESIZE, "%s", ifname);
	return &fake.sysctl[fake.n_sysctl++].value[key];
}

static int fake_sysctl_read(const char *ifname, enum ibh_sysctl key)
{
	return *sysctl_slot(ifname, key);
}

static int fake_sysctl_write(const char *ifname, enum ibh_sysctl key, int value)
{
	*sysctl_slot(ifname, key) = value;
	return 0;
}

static int fake_netdev_read(const char *ifname, const char *attr, char *buf, size_t size)
{
	(void)ifname, (void)attr, (void)buf, (void)size;
	return -ENOENT;
}

static int fake_netdev_write(const char *ifname, const char *attr, const char *value)
{
	(void)ifname, (void)attr, (void)value;
	return -ENOENT;
}

static bool fake_netdev_exists(const char *ifname, const char *attr)
{
	(void)ifname, (void)attr;
	return false;
}

static struct ibh_kernel_ops fake_ops = {
	.open = fake_open,
	.close = fake_close,
	.port = fake_port,
	.netns = fake_netns,
	.get_link = fake_get_link,
	.get_link_by_index = fake_get_link_by_index,
	.dump_links = fake_dump_links,
	.dump_addrs = fake_dump_addrs,
	.dump_rules = fake_dump_rules,
	.dump_table = fake_dump_table,
	.fib_match = fake_fib_match,
	.route_add = fake_route_add,
	.route_del = fake_route_del,
	.rule_add = fake_rule_add,
	.rule_del = fake_rule_del,
	.neigh_flush = fake_neigh_flush,
	.rdma_ports = fake_rdma_ports,
	.rdma_port_read = fake_rdma_port_read,
	.sysctl_read = fake_sysctl_read,
	.sysctl_write = fake_sysctl_write,
	.netdev_read = fake_netdev_read,
	.netdev_write = fake_netdev_write,
	.netdev_exists = fake_netdev_exists,
};

void fake_begin(void)
{
	memset(&fake, 0, sizeof(fake));
	snprintf(fake.state_dir, sizeof(fake.state_dir), "/tmp/ibh-fake.XXXXXX");
	assert_non_null(mkdtemp(fake.state_dir));
	fake_ops.state_dir = fake.state_dir;
	fake.netns.cookie = FAKE_COOKIE;
	kernel = &fake_ops;
}

void fake_new_netns(void)
{
	char dir[sizeof(fake.state_dir)];
	struct ibh_netns ns = fake.netns;

	memcpy(dir, fake.state_dir, sizeof(dir));
	memset(&fake, 0, sizeof(fake));
	memcpy(fake.state_dir, dir, sizeof(dir));
	fake.netns = ns;
}

void fake_end(void)
{
	struct dirent *d;
	char path[384];
	DIR *dir = opendir(fake.state_dir);

	while (dir && (d = readdir(dir)))
		if (d->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", fake.state_dir, d->d_name);
			unlink(path);
		}
	if (dir)
		closedir(dir);
	rmdir(fake.state_dir);
	kernel = &kernel_linux;
}

void fake_link(const char *name, int ifindex, bool up)
{
	struct ibh_link *l = &fake.links[fake.n_links++];

	snprintf(l->name, sizeof(l->name), "%s", name);
	l->ifindex = ifindex;
	l->type = 32; /* ARPHRD_INFINIBAND */
	l->up = up;
}

void fake_memserver34(void)
{
	fake_link("ib0", 3, true);
	fake_link("ib1", 4, true);
	fake_addr(3, "172.16.34.1/16");
	fake_addr(4, "172.16.34.2/16");
}

void fake_addr(int ifindex, const char *cidr)
{
	struct ibh_addr_entry *e = &fake.addrs[fake.n_addrs++];
	struct ibh_route *r = &fake.routes[fake.n_routes++];

	e->ifindex = ifindex;
	e->addr.ip = ip(cidr);
	memset(r, 0, sizeof(*r));
	ip_prefix(&r->dst, &e->addr.ip);
	r->oif = ifindex;
	r->table = RT_TABLE_MAIN;
	r->protocol = RTPROT_KERNEL;
	r->type = RTN_UNICAST;
	if (e->addr.ip.family == AF_INET) {
		r->src = e->addr.ip;
		r->src.len = 32;
		r->scope = RT_SCOPE_LINK;
	} else {
		r->metric = 256;
	}
}

void fake_addr_del(int ifindex, const char *cidr)
{
	struct ibh_ip a = ip(cidr), p;

	ip_prefix(&p, &a);
	for (size_t i = 0; i < fake.n_addrs; i++)
		if (fake.addrs[i].ifindex == ifindex && ip_equal(&fake.addrs[i].addr.ip, &a))
			fake.addrs[i--] = fake.addrs[--fake.n_addrs];
	/* the kernel takes the prefix route with the address, and routes by it as source */
	for (size_t i = 0; i < fake.n_routes; i++)
		if ((fake.routes[i].table == RT_TABLE_MAIN && ip_equal(&fake.routes[i].dst, &p) &&
		     fake.routes[i].oif == ifindex) ||
		    (fake.routes[i].src.family && ip_same_address(&fake.routes[i].src, &a)))
			fake.routes[i--] = fake.routes[--fake.n_routes];
}

void fake_link_del(int ifindex)
{
	for (size_t i = 0; i < fake.n_links; i++)
		if (fake.links[i].ifindex == ifindex)
			fake.links[i--] = fake.links[--fake.n_links];
	for (size_t i = 0; i < fake.n_addrs; i++)
		if (fake.addrs[i].ifindex == ifindex)
			fake.addrs[i--] = fake.addrs[--fake.n_addrs];
	for (size_t i = 0; i < fake.n_routes; i++)
		if (fake.routes[i].oif == ifindex)
			fake.routes[i--] = fake.routes[--fake.n_routes];
}

void fake_rule(const char *src, unsigned int table, unsigned int priority, unsigned char protocol)
{
	struct ibh_rule r;

	rule_wanted((const struct ibh_ip[]){ ip(src) }, table, priority, &r);
	r.protocol = protocol;
	rule_describe(&r);
	rule_insert(&r);
}

void fake_route(unsigned int table, const char *dst, int ifindex, unsigned int metric,
		unsigned char protocol)
{
	struct ibh_route *r = &fake.routes[fake.n_routes++];

	memset(r, 0, sizeof(*r));
	r->dst = ip(dst);
	r->oif = ifindex;
	r->table = table;
	r->metric = metric;
	r->protocol = protocol;
	r->type = RTN_UNICAST;
}

size_t fake_rules_from(const char *src, unsigned int table, unsigned int priority)
{
	struct ibh_ip a = ip(src);
	size_t n = 0;

	for (size_t i = 0; i < fake.n_rules; i++)
		n += ip_same_address(&fake.rules[i].src, &a) && fake.rules[i].table == table &&
		     fake.rules[i].priority == priority;
	return n;
}

size_t fake_routes_to(unsigned int table, const char *dst)
{
	struct ibh_ip a = ip(dst);
	size_t n = 0;

	for (size_t i = 0; i < fake.n_routes; i++)
		n += ip_equal(&fake.routes[i].dst, &a) && fake.routes[i].table == table;
	return n;
}

/* path's text after the len bytes of text (of size) */
static size_t append_file(char *text, size_t len, size_t size, const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return len;
	len += fread(text + len, 1, size - 1 - len, f);
	text[len] = '\0';
	fclose(f);
	return len;
}

const char *fake_record(void)
{
	static char text[16384];
	struct dirent **parts;
	char path[384];
	size_t len;
	int n;

	snprintf(path, sizeof(path), "%s/netns-c%d", fake.state_dir, FAKE_COOKIE);
	text[0] = '\0';
	len = append_file(text, 0, sizeof(text), path);
	n = scandir(fake.state_dir, &parts, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "netns-c%d.routes-", FAKE_COOKIE);
		if (strncmp(parts[i]->d_name, path, strlen(path)) == 0) {
			snprintf(path, sizeof(path), "%s/%s", fake.state_dir, parts[i]->d_name);
			len = append_file(text, len, sizeof(text), path);
		}
		free(parts[i]);
	}
	if (n >= 0)
		free(parts);
	return text;
}

void fake_write_record(const char *text)
{
	fake_write_record_file("", text);
}

void fake_write_record_file(const char *suffix, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/netns-c%d%s", fake.state_dir, FAKE_COOKIE, suffix);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}
