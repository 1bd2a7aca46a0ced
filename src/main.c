// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ib-hook: per-interface source routing for hosts with several RDMA ports in
 * one subnet. This file only turns arguments and the dispatcher environment
 * into requests, sets up logging and maps results to exit codes.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-config.h"
#include "config.h"
#include "engine.h"
#include "hookenv.h"
#include "lock.h"
#include "log.h"
#include "watch.h"

#define DEFAULT_CONFIG SYSCONFDIR "/ib-hook.conf"
#define LOCK_FILE      RUNSTATEDIR "/ib-hook.lock"
#define MAX_IFACES     64

static void help(FILE *f)
{
	fprintf(f,
		"Usage: ib-hook [OPTIONS]\n"
		"Per-interface source routing for RDMA ports that share one subnet.\n"
		"\n"
		"  -i, --iface IF     act on interface IF (repeatable)\n"
		"  -a, --all          act on every managed interface\n"
		"  -r, --remove       remove what ib-hook installed instead of applying\n"
		"  -n, --dry-run      print the equivalent ip/sysctl commands, change nothing\n"
		"  -s, --status       show the state of managed interfaces; exit 1 on drift\n"
		"      --json         --status and --dry-run as one JSON document\n"
		"      --watch        keep managed interfaces applied from the kernel's events\n"
		"  -c, --config PATH  configuration file (default %s)\n"
		"  -w, --wait SEC     wait at most SEC seconds for another run (default 30)\n"
		"  -v, --verbose      say more\n"
		"  -V, --version      print the version\n"
		"  -h, --help         print this help\n"
		"\n"
		"Without --iface or --all, ib-hook runs as a hook: the interface and the action\n"
		"come from the environment of networkd-dispatcher (IFACE, STATE), ifupdown or\n"
		"NetworkManager (IFACE, MODE, PHASE, ADDRFAM). See ib-hook(8).\n",
		DEFAULT_CONFIG);
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "ib-hook: %s%s%s\nTry 'ib-hook --help'.\n", msg, arg ? ": " : "",
		arg ? arg : "");
	return IBH_USAGE;
}

int main(int argc, char *argv[])
{
	static const struct option options[] = { { "iface", required_argument, NULL, 'i' },
						 { "all", no_argument, NULL, 'a' },
						 { "remove", no_argument, NULL, 'r' },
						 { "dry-run", no_argument, NULL, 'n' },
						 { "status", no_argument, NULL, 's' },
						 { "json", no_argument, NULL, 'j' },
						 { "watch", no_argument, NULL, 'W' },
						 { "config", required_argument, NULL, 'c' },
						 { "wait", required_argument, NULL, 'w' },
						 { "verbose", no_argument, NULL, 'v' },
						 { "version", no_argument, NULL, 'V' },
						 { "help", no_argument, NULL, 'h' },
						 {} };
	struct ibh_request req = { .action = IBH_ACTION_APPLY,
				   .mode = IBH_MODE_CHANGE,
				   .out = stdout };
	const char *ifaces[MAX_IFACES], *config_path = NULL;
	struct ibh_config_error cerr = {};
	struct ibh_engine *engine = NULL;
	struct ibh_config config;
	size_t n_ifaces = 0;
	unsigned long wait_sec = 30;
	enum ibh_result res = IBH_OK;
	bool all = false, watch = false;
	int verbose = 0, lock_fd = -1, opt, r;
	char *end;

	/* NetworkManager's ENTRY INTERFACE ACTION holds no option, even if a name starts with '-' */
	bool nm_call = argc == 3 && getenv("NM_DISPATCHER_ACTION");

	/* one message of ours, without getopt's own naming the binary's path */
	opterr = 0;
	while (!nm_call && (opt = getopt_long(argc, argv, "i:arnsc:w:vVh", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (n_ifaces == MAX_IFACES)
				return usage_error("too many --iface", NULL);
			ifaces[n_ifaces++] = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'r':
			req.action = IBH_ACTION_REMOVE;
			break;
		case 'n':
			if (req.mode == IBH_MODE_STATUS)
				return usage_error("--status and --dry-run exclude each other", NULL);
			req.mode = IBH_MODE_DRY_RUN;
			break;
		case 's':
			if (req.mode == IBH_MODE_DRY_RUN)
				return usage_error("--status and --dry-run exclude each other", NULL);
			req.mode = IBH_MODE_STATUS;
			break;
		case 'j':
			req.json = true;
			break;
		case 'W':
			watch = true;
			break;
		case 'c':
			config_path = optarg;
			break;
		case 'w':
			errno = 0;
			wait_sec = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || wait_sec > 3600)
				return usage_error(
					"--wait takes seconds from 0 (do not wait) to 3600",
					optarg);
			break;
		case 'v':
			verbose++;
			break;
		case 'V':
			printf("ib-hook %s\n", PROJECT_VERSION);
			return 0;
		case 'h':
			help(stdout);
			return 0;
		default:
			if (optopt && optopt != '?' && strchr("icw", optopt))
				return usage_error("option needs a value", argv[optind - 1]);
			return usage_error("unknown option", optopt ? (char[]){ '-', (char)optopt, 0 }
								   : argv[optind - 1]);
		}
	}
	/* INTERFACE ACTION: NetworkManager's dispatcher calling convention */
	if (optind < argc &&
	    (argc - optind != 2 || all || n_ifaces || watch || req.mode == IBH_MODE_STATUS))
		return usage_error("unexpected argument", argv[optind]);
	if (all && n_ifaces)
		return usage_error("--all and --iface exclude each other", NULL);
	if (req.mode == IBH_MODE_STATUS && req.action == IBH_ACTION_REMOVE)
		return usage_error("--status and --remove exclude each other", NULL);
	if (req.json && req.mode == IBH_MODE_CHANGE)
		return usage_error("--json goes with --status or --dry-run", NULL);
	if (watch &&
	    (all || n_ifaces || req.mode != IBH_MODE_CHANGE || req.action != IBH_ACTION_APPLY))
		return usage_error(
			"--watch takes no --iface, --all, --remove, --dry-run or --status", NULL);

	log_setup(IBH_LOG_AUTO, verbose ? LOG_DEBUG : LOG_INFO);
	/* a closed stdout or stderr (`ib-hook --all | head -1`) must not end a run halfway */
	signal(SIGPIPE, SIG_IGN);

	if (!all && n_ifaces == 0 && req.mode != IBH_MODE_STATUS && !watch) {
		struct ibh_hook_env env = {
			.iface = getenv("IFACE"),
			.state = getenv("STATE"),
			.mode = getenv("MODE"),
			.phase = getenv("PHASE"),
			.addrfam = getenv("ADDRFAM"),
			.method = getenv("METHOD"),
			.nm_arg_iface = optind < argc ? argv[optind] : NULL,
			.nm_arg_action = optind < argc ? argv[optind + 1] : NULL,
			.nm_action = getenv("NM_DISPATCHER_ACTION"),
			.device_iface = getenv("DEVICE_IFACE"),
			.device_ip_iface = getenv("DEVICE_IP_IFACE"),
		};
		struct ibh_hook hook;

		if (hookenv_parse(&env, &hook) < 0)
			return usage_error(
				"no interface: give --iface IF or --all (a dispatcher sets IFACE)", NULL);
		if (hook.action == IBH_ACTION_NONE)
			return 0;
		req.hook = true;
		/* IFACE alone is a replay by hand: an explicit --remove still counts */
		if (!(req.action == IBH_ACTION_REMOVE && strcmp(hook.source, "environment") == 0))
			req.action = hook.action;
		ifaces[n_ifaces++] = hook.iface;
	}
	if (req.mode == IBH_MODE_STATUS && n_ifaces == 0)
		all = true;

	r = config_load(&config, config_path ? config_path : DEFAULT_CONFIG, !config_path, &cerr);
	req.config_files = config_path			       ? config_path
			   : access(DEFAULT_CONFIG, F_OK) == 0 ? DEFAULT_CONFIG
							       : "none (defaults)";
	if (r < 0) {
		if (cerr.line)
			log_error("%s:%u: %s", config_path ? config_path : DEFAULT_CONFIG,
				  cerr.line, cerr.message);
		else
			log_error("%s: %s", config_path ? config_path : DEFAULT_CONFIG,
				  cerr.message[0] ? cerr.message : strerror(-r));
		return IBH_USAGE;
	}

	if (watch) {
		struct ibh_watch_options wopt = {
			.config_path = config_path ? config_path : DEFAULT_CONFIG,
			.config_missing_ok = !config_path,
			.lock_path = LOCK_FILE,
			.wait_sec = (unsigned int)wait_sec,
			/* for tests: a tiny buffer makes the kernel drop notifications */
			.rcvbuf = getenv("IB_HOOK_WATCH_RCVBUF")
					  ? atoi(getenv("IB_HOOK_WATCH_RCVBUF"))
					  : 0,
		};

		return watch_run(&config, &wopt);
	}
	if (req.mode == IBH_MODE_CHANGE) {
		lock_fd = lock_take(LOCK_FILE, (unsigned int)wait_sec);
		if (lock_fd == -ETIMEDOUT) {
			log_error("another ib-hook run held '%s' for %lu s; giving up", LOCK_FILE,
				  wait_sec);
			return IBH_FAILED;
		}
		if (lock_fd < 0) {
			log_error_errno(lock_fd, "cannot lock '%s': %m%s", LOCK_FILE,
					lock_fd == -EACCES || lock_fd == -EPERM
						? " (ib-hook needs root or CAP_NET_ADMIN)"
						: "");
			return IBH_FAILED;
		}
	}

	r = engine_new(&config, &engine);
	if (r < 0) {
		log_error_errno(r, "cannot open a netlink socket: %m");
		res = IBH_FAILED;
		goto cleanup;
	}
	if (all)
		res = engine_run_all(engine, &req);
	for (size_t i = 0; i < n_ifaces; i++) {
		enum ibh_result one = engine_run(engine, ifaces[i], &req);

		if (one > res)
			res = one;
	}
	{
		enum ibh_result one = engine_end(engine, &req);

		if (one > res)
			res = one;
	}
cleanup:
	engine_free(engine);
	if (lock_fd >= 0)
		close(lock_fd);
	if (fflush(stdout) != 0 && res == IBH_OK)
		res = IBH_FAILED;
	return res;
}
