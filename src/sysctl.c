// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "sysctl.h"

static int sysctl_path(char *buf, size_t size, const char *ifname, enum ibh_sysctl key)
{
	if (strchr(ifname, '/') || strcmp(ifname, "..") == 0 || strcmp(ifname, ".") == 0)
		return -EINVAL;
	snprintf(buf, size, "/proc/sys/net/ipv4/conf/%s/%s", ifname, sysctl_name(key));
	return 0;
}

int sysctl_read(const char *ifname, enum ibh_sysctl key)
{
	char path[128], buf[32];
	ssize_t n;
	int fd, r;

	r = sysctl_path(path, sizeof(path), ifname, key);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	return (int)strtol(buf, NULL, 10);
}

int sysctl_write(const char *ifname, enum ibh_sysctl key, int value)
{
	char path[128], buf[16];
	ssize_t n;
	int fd, len, r;

	r = sysctl_path(path, sizeof(path), ifname, key);
	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%d\n", value);
	n = write(fd, buf, (size_t)len);
	r = n < 0 ? -errno : n != len ? -EIO : 0;
	close(fd);
	return r;
}

static int netdev_attr_path(char *buf, size_t size, const char *ifname, const char *attr)
{
	if (strchr(ifname, '/') || strcmp(ifname, "..") == 0 || strcmp(ifname, ".") == 0)
		return -EINVAL;
	snprintf(buf, size, "/sys/class/net/%s/%s", ifname, attr);
	return 0;
}

int netdev_attr_read(const char *ifname, const char *attr, char *buf, size_t size)
{
	char path[128];
	ssize_t n;
	int fd, r;

	r = netdev_attr_path(path, sizeof(path), ifname, attr);
	if (r < 0)
		return r;
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

int netdev_attr_write(const char *ifname, const char *attr, const char *value)
{
	char path[128];
	size_t len = strlen(value);
	ssize_t n;
	int fd, r;

	r = netdev_attr_path(path, sizeof(path), ifname, attr);
	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	r = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	close(fd);
	return r;
}
