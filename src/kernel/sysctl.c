// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ip.h"
#include "sysctl.h"

static const char *const sysctl_names[IBH_SYSCTL_MAX] = {
	[IBH_SYSCTL_ARP_IGNORE] = "arp_ignore",
	[IBH_SYSCTL_ARP_ANNOUNCE] = "arp_announce",
	[IBH_SYSCTL_RP_FILTER] = "rp_filter",
	[IBH_SYSCTL_ACCEPT_LOCAL] = "accept_local",
};

const char *sysctl_name(enum ibh_sysctl key)
{
	return sysctl_names[key];
}

const char *ipoib_mode_name(enum ibh_ipoib_mode m)
{
	return m == IBH_IPOIB_CONNECTED	 ? "connected"
	       : m == IBH_IPOIB_DATAGRAM ? "datagram"
					 : "keep";
}

/* the file's first line, without its newline */
static int read_line(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_all(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd, r;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	r = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	close(fd);
	return r;
}

int sysctl_read_name(const char *ifname, const char *name)
{
	char path[128], buf[32];
	int r;

	if (!ifname_valid(ifname) || strchr(name, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/%s", ifname, name);
	r = read_line(path, buf, sizeof(buf));
	return r < 0 ? r : (int)strtol(buf, NULL, 10);
}

int sysctl_read(const char *ifname, enum ibh_sysctl key)
{
	return sysctl_read_name(ifname, sysctl_name(key));
}

int sysctl_write(const char *ifname, enum ibh_sysctl key, int value)
{
	char path[128], buf[16];

	if (!ifname_valid(ifname))
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/%s", ifname, sysctl_name(key));
	snprintf(buf, sizeof(buf), "%d\n", value);
	return write_all(path, buf);
}

int netdev_attr_read(const char *ifname, const char *attr, char *buf, size_t size)
{
	char path[128];

	if (!ifname_valid(ifname))
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	return read_line(path, buf, size);
}

int rdma_port_attr_read_at(const char *root, const char *dev, uint32_t port, const char *attr,
			   char *buf, size_t size)
{
	char path[512];

	/* an RDMA device's name is one path component, as a link's */
	if (!*dev || strchr(dev, '/') || strcmp(dev, ".") == 0 || strcmp(dev, "..") == 0 ||
	    strstr(attr, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s/ports/%u/%s", root, dev, port, attr);
	return read_line(path, buf, size);
}

int rdma_port_attr_read(const char *dev, uint32_t port, const char *attr, char *buf, size_t size)
{
	return rdma_port_attr_read_at("/sys/class/infiniband", dev, port, attr, buf, size);
}

int netdev_attr_write(const char *ifname, const char *attr, const char *value)
{
	char path[128];

	if (!ifname_valid(ifname))
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	return write_all(path, value);
}

bool netdev_attr_exists(const char *ifname, const char *attr)
{
	char path[128];

	if (!ifname_valid(ifname))
		return false;
	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	return access(path, F_OK) == 0;
}
