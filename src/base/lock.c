// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Runs for different interfaces overlap (parallel ifup, NetworkManager and
 * networkd-dispatcher at once): one flock(2) serialises them. The kernel drops
 * the lock with the process, so a crash leaves nothing to clean up; the file
 * itself stays and is reused.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "lock.h"

static void on_alarm(int sig)
{
}

int lock_take(const char *path, unsigned int timeout_sec)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	int fd, r;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	if (errno != EWOULDBLOCK) {
		r = -errno;
		goto fail;
	}
	/* 0: do not wait, as flock -w 0 */
	if (timeout_sec == 0) {
		r = -ETIMEDOUT;
		goto fail;
	}
	/* no SA_RESTART: the alarm interrupts the blocking flock() */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	alarm(timeout_sec);
	r = flock(fd, LOCK_EX) == 0 ? 0 : errno == EINTR ? -ETIMEDOUT : -errno;
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	if (r == 0)
		return fd;
fail:
	close(fd);
	return r;
}
