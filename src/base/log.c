// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Messages go to the journal when a dispatcher or the watcher runs ib-hook,
 * and to stderr when stderr is a terminal or no journal is reachable. A
 * person's change (--iface, --all, --remove, postinst) reports on stderr
 * whether or not it is a terminal (ssh, Ansible, a pipe) and leaves the same
 * lines in the journal, so the host keeps a trail of manual changes. libsystemd
 * is opened only when the first message is sent: a run with nothing to do
 * never pays for loading it and its dependencies.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "log.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

static struct {
	enum ibh_log_target target;
	int max_level;
	bool journal_tried;
	/* sd_journal_sendv(): its prototype, so that no libsystemd headers are needed */
	int (*sendv)(const struct iovec *iov, int n);
	char iface[64];
	char action[16];
	uint32_t table;
	bool demoted;
	char first_error[1024];
} log_state = { .max_level = LOG_INFO };

void log_setup(enum ibh_log_target target, int max_level)
{
	log_state.target = target;
	log_state.max_level = max_level;
}

void log_demote(bool on)
{
	log_state.demoted = on;
}

void log_context(const char *iface, const char *action, uint32_t table)
{
	snprintf(log_state.iface, sizeof(log_state.iface), "%s", iface ? iface : "");
	snprintf(log_state.action, sizeof(log_state.action), "%s", action ? action : "");
	log_state.table = table;
}

static bool journal_open(void)
{
	void *dl;

	if (log_state.journal_tried)
		return log_state.sendv;
	log_state.journal_tried = true;
	if (log_state.target == IBH_LOG_STDERR ||
	    (log_state.target == IBH_LOG_AUTO && isatty(STDERR_FILENO)) ||
	    access(JOURNAL_SOCKET, W_OK) < 0)
		return false;
	dl = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		return false;
	log_state.sendv = (int (*)(const struct iovec *, int))dlsym(dl, "sd_journal_sendv");
	return log_state.sendv;
}

static int journal_send(int level, int error, const char *msg)
{
	char message[1100], priority[16], iface[80], action[40], table[40], errnum[24];
	struct iovec iov[8];
	int n = 0;

#define FIELD(buf, ...)                                                                            \
	do {                                                                                       \
		snprintf(buf, sizeof(buf), __VA_ARGS__);                                           \
		iov[n++] = (struct iovec){ .iov_base = buf, .iov_len = strlen(buf) };              \
	} while (0)

	FIELD(message, "MESSAGE=%s", msg);
	FIELD(priority, "PRIORITY=%d", level);
	iov[n++] = (struct iovec){ .iov_base = "SYSLOG_IDENTIFIER=ib-hook", .iov_len = 25 };
	if (log_state.iface[0])
		FIELD(iface, "INTERFACE=%s", log_state.iface);
	if (log_state.action[0])
		FIELD(action, "IB_HOOK_ACTION=%s", log_state.action);
	if (log_state.table)
		FIELD(table, "IB_HOOK_TABLE=%u", log_state.table);
	if (error)
		FIELD(errnum, "ERRNO=%d", error);
#undef FIELD
	return log_state.sendv(iov, n);
}

int log_full(int level, int error, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	error = error < 0 ? -error : error;
	if (log_state.demoted && level <= LOG_WARNING)
		level = LOG_DEBUG;
	if (level > log_state.max_level)
		return -error;
	errno = error;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (level <= LOG_ERR && !log_state.first_error[0])
		snprintf(log_state.first_error, sizeof(log_state.first_error), "%s", msg);

	/* whatever the journal refuses still reaches stderr: nothing is lost silently */
	if (journal_open() && journal_send(level, error, msg) >= 0 &&
	    log_state.target != IBH_LOG_BOTH)
		return -error;
	if (level <= LOG_WARNING)
		fprintf(stderr, "ib-hook: %s%s\n", level <= LOG_ERR ? "" : "warning: ", msg);
	else
		fprintf(stderr, "%s\n", msg);
	return -error;
}

const char *log_first_error(void)
{
	return log_state.first_error;
}

const char *log_errno_hint(int r)
{
	return r == -EPERM || r == -EACCES ? " (ib-hook needs root or CAP_NET_ADMIN)" : "";
}
