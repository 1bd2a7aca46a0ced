/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

enum ibh_log_target {
	IBH_LOG_AUTO, /* a dispatcher or the watcher: the journal; stderr on a tty or without one */
	IBH_LOG_STDERR, /* stderr only (--status, --dry-run) */
	IBH_LOG_BOTH,	/* a person's change (--iface, --all): stderr always, and the journal */
};

void log_setup(enum ibh_log_target target, int max_level);
/* on: errors and warnings are debug messages (the watcher's retry of a failure it said) */
void log_demote(bool on);
/* journal fields of the messages that follow; NULL/0 clears them */
void log_context(const char *iface, const char *action, uint32_t table);

/* the first error logged so far, "" when none: what the CNI plugin's error object says */
const char *log_first_error(void);

/* logs at level; returns -|error| so that callers can `return log_error_errno(r, ...)` */
int log_full(int level, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define log_debug(...)		  log_full(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...)		  log_full(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...)		  log_full(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...)	  log_full(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)		  log_full(LOG_ERR, 0, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...)	  log_full(LOG_ERR, (e), __VA_ARGS__)

/* " (ib-hook needs root or CAP_NET_ADMIN)" after a refusal (-EPERM, -EACCES), else "" */
const char *log_errno_hint(int r);
