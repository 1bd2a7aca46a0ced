// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RDMA devices as they come and go. The kernel announces an RDMA device
 * (class "infiniband": mlx5_0, rxe0, ...) registering, unregistering or
 * renaming with a uevent on every kernel ib-hook supports, and only kernels
 * from 6.9 on also on the RDMA netlink (RDMA_NLDEV_CMD_MONITOR); the uevent
 * is what every host has. The watcher only needs to know *that* RDMA ports
 * changed: it then looks at every link again, level-triggered.
 *
 * The raw kernel uevent socket (NETLINK_KOBJECT_UEVENT, group 1), not udev's:
 * udev may not run (containers), and what udev adds is of no use here.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uevent.h"

#define UEVENT_KERNEL_GROUP 1

int uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_KERNEL_GROUP };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* the value of KEY= among the message's NUL-separated KEY=VALUE lines, or NULL */
static const char *uevent_value(const char *buf, size_t len, const char *key)
{
	size_t klen = strlen(key);

	for (size_t at = 0; at < len;) {
		const char *line = buf + at;
		size_t n = strnlen(line, len - at);

		if (n > klen && memcmp(line, key, klen) == 0 && line[klen] == '=')
			return line + klen + 1;
		at += n + 1;
	}
	return NULL;
}

bool uevent_is_rdma(const char *buf, size_t len)
{
	const char *subsystem, *action;

	/* kernel messages start "ACTION@DEVPATH"; udev's own start "libudev" */
	if (len == 0 || buf[len - 1] != '\0' || !memchr(buf, '@', strnlen(buf, len)))
		return false;
	subsystem = uevent_value(buf, len, "SUBSYSTEM");
	action = uevent_value(buf, len, "ACTION");
	if (!subsystem || !action || strcmp(subsystem, "infiniband") != 0)
		return false;
	/* add, remove, move (a rename), change (GID or port state changes of some drivers) */
	return strcmp(action, "bind") != 0 && strcmp(action, "unbind") != 0;
}

int uevent_read(int fd, bool *ret_rdma)
{
	char buf[8192];
	struct sockaddr_nl sa;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) - 1 };
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1
	};

	for (;;) {
		ssize_t n = recvmsg(fd, &msg, 0);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return 0;
			/* ENOBUFS: uevents were lost; one of them may have been an RDMA device's */
			if (errno == ENOBUFS) {
				*ret_rdma = true;
				continue;
			}
			return -errno;
		}
		/* only the kernel's own (port 0): anyone may send on this socket */
		if (sa.nl_pid != 0 || (msg.msg_flags & MSG_TRUNC))
			continue;
		buf[n] = '\0';
		if (uevent_is_rdma(buf, (size_t)n + (n > 0 && buf[n - 1] == '\0' ? 0 : 1)))
			*ret_rdma = true;
	}
}
