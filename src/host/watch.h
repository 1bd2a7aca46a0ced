/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

struct ibh_config;

struct ibh_watch_options {
	/* re-read on SIGHUP, as config_load_all() reads them */
	const char *config_path;
	const char *dropin_dir;
	const char *lock_path;
	unsigned int wait_sec;
	int rcvbuf; /* bytes; 0: the default */
};

/*
 * ib-hook --watch: keep every managed interface as apply leaves it, from the
 * kernel's own notifications. Returns the exit code (0 on SIGTERM/SIGINT).
 */
int watch_run(const struct ibh_config *config, const struct ibh_watch_options *opt);
/*
 * The pid of the watcher of the network namespace whose record is at
 * record_path (it holds a lock on record_path.watch for its life), 0 when
 * none runs, or -errno
 */
int watch_running(const char *record_path);
/*
 * The pid of the watcher of that namespace when it runs with configuration c
 * (the fingerprint its file holds): it follows main's routes and keeps T(X)'s
 * copies of them, so a hook run may leave those to it. 0 when none does.
 */
int watch_covers(const char *record_path, const struct ibh_config *c);
