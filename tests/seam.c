// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ib-hook-test: ib-hook with a seam between its plan and the kernel, for the
 * tests of a world that moves under a pass (issue 25). It is linked with
 * -Wl,--wrap for the four requests that change rules and routes, so the
 * program ib-hook itself carries no trace of it; it is never installed.
 *
 * IB_HOOK_TEST_SEAM=CMD runs "sh -c CMD seam N KIND TABLE" before each such
 * request: N counts them from 1 in this process, KIND is route-add,
 * route-del, rule-add or rule-del, TABLE the request's table. CMD may change
 * the namespace (remove the address the plan has just seen); an exit status
 * other than 0 is the errno the request then fails with, without reaching
 * the kernel.
 *
 * IB_HOOK_TEST_NO_NETNS_COOKIE=1 takes the netns cookie away, as on kernels
 * before 5.14: the record is then named by the fallback (ib-hook(8), FILES).
 * IB_HOOK_TEST_NETNS_INODE=N gives the namespace inode N, as the kernel gives
 * a later namespace the inode of one that went.
 *
 * IB_HOOK_TEST_RDMA=NETDEV=DEV:PORT adds an RDMA port DEV PORT whose netdev
 * is NETDEV to what the kernel reports, for the output of a host with an
 * RDMA port on a kernel without rdma_rxe.
 *
 * IB_HOOK_TEST_INFINIBAND=DIR reads the RDMA ports' sysfs attributes (state,
 * link_layer, the GID table) under DIR instead of /sys/class/infiniband: a
 * fixture table that holds the namespace's real addresses.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model.h"
#include "netlink.h"
#include "sysctl.h"

int __real_netlink_route_add(struct ibh_nl *n, const struct ibh_route *r);
int __real_netlink_route_del(struct ibh_nl *n, const struct ibh_route *r);
int __real_netlink_rule_add(struct ibh_nl *n, const struct ibh_rule *r);
int __real_netlink_rule_del(struct ibh_nl *n, const struct ibh_rule *r);
int __wrap_netlink_route_add(struct ibh_nl *n, const struct ibh_route *r);
int __wrap_netlink_route_del(struct ibh_nl *n, const struct ibh_route *r);
int __wrap_netlink_rule_add(struct ibh_nl *n, const struct ibh_rule *r);
int __wrap_netlink_rule_del(struct ibh_nl *n, const struct ibh_rule *r);
int __real_netlink_netns_cookie(struct ibh_nl *n, uint64_t *ret);
int __wrap_netlink_netns_cookie(struct ibh_nl *n, uint64_t *ret);
int __real_netlink_netns_inode(uint64_t *ret_dev, uint64_t *ret_ino);
int __wrap_netlink_netns_inode(uint64_t *ret_dev, uint64_t *ret_ino);
int __real_netlink_rdma_ports(struct ibh_rdma_port **ret, size_t *n_ret);
int __wrap_netlink_rdma_ports(struct ibh_rdma_port **ret, size_t *n_ret);
int __real_rdma_port_attr_read(const char *dev, uint32_t port, const char *attr, char *buf,
			       size_t size);
int __wrap_rdma_port_attr_read(const char *dev, uint32_t port, const char *attr, char *buf,
			       size_t size);

/* 0, or the negative errno the request is to fail with */
static int seam(const char *kind, uint32_t table)
{
	static unsigned int calls;
	const char *cmd = getenv("IB_HOOK_TEST_SEAM");
	char n[16], t[16];
	int status;
	pid_t pid;

	if (!cmd)
		return 0;
	snprintf(n, sizeof(n), "%u", ++calls);
	snprintf(t, sizeof(t), "%u", table);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, "seam", n, kind, t, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EIO;
	return -WEXITSTATUS(status);
}

int __wrap_netlink_route_add(struct ibh_nl *n, const struct ibh_route *r)
{
	int e = seam("route-add", r->table);

	return e < 0 ? e : __real_netlink_route_add(n, r);
}

int __wrap_netlink_route_del(struct ibh_nl *n, const struct ibh_route *r)
{
	int e = seam("route-del", r->table);

	return e < 0 ? e : __real_netlink_route_del(n, r);
}

int __wrap_netlink_rule_add(struct ibh_nl *n, const struct ibh_rule *r)
{
	int e = seam("rule-add", r->table);

	return e < 0 ? e : __real_netlink_rule_add(n, r);
}

int __wrap_netlink_rule_del(struct ibh_nl *n, const struct ibh_rule *r)
{
	int e = seam("rule-del", r->table);

	return e < 0 ? e : __real_netlink_rule_del(n, r);
}

int __wrap_netlink_netns_cookie(struct ibh_nl *n, uint64_t *ret)
{
	const char *no = getenv("IB_HOOK_TEST_NO_NETNS_COOKIE");

	if (no && strcmp(no, "1") == 0)
		return -ENOPROTOOPT;
	return __real_netlink_netns_cookie(n, ret);
}

int __wrap_netlink_netns_inode(uint64_t *ret_dev, uint64_t *ret_ino)
{
	const char *ino = getenv("IB_HOOK_TEST_NETNS_INODE");
	int r = __real_netlink_netns_inode(ret_dev, ret_ino);

	if (r >= 0 && ino)
		*ret_ino = strtoull(ino, NULL, 10);
	return r;
}

int __wrap_netlink_rdma_ports(struct ibh_rdma_port **ret, size_t *n_ret)
{
	const char *spec = getenv("IB_HOOK_TEST_RDMA");
	struct ibh_rdma_port fake = {}, *v = NULL, *w;
	char ndev[IF_NAMESIZE];
	size_t n = 0;

	if (!spec)
		return __real_netlink_rdma_ports(ret, n_ret);
	if (sscanf(spec, "%15[^=]=%63[^:]:%u", ndev, fake.dev, &fake.port) != 3)
		return -EINVAL;
	fake.ifindex = (int)if_nametoindex(ndev);
	snprintf(fake.ndev, sizeof(fake.ndev), "%s", ndev);
	/* a kernel without RDMA netlink reports no port: the fake is then the only one */
	if (__real_netlink_rdma_ports(&v, &n) < 0) {
		v = NULL;
		n = 0;
	}
	w = realloc(v, (n + 1) * sizeof(*w));
	if (!w) {
		free(v);
		return -ENOMEM;
	}
	w[n++] = fake;
	*ret = w;
	*n_ret = n;
	return 0;
}

int __wrap_rdma_port_attr_read(const char *dev, uint32_t port, const char *attr, char *buf,
			       size_t size)
{
	const char *root = getenv("IB_HOOK_TEST_INFINIBAND");

	if (!root)
		return __real_rdma_port_attr_read(dev, port, attr, buf, size);
	return rdma_port_attr_read_at(root, dev, port, attr, buf, size);
}
