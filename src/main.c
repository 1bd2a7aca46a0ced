// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ib-hook: per-interface source routing for hosts with several RDMA ports in
 * one subnet. This file only turns arguments and the dispatcher environment
 * into requests, sets up logging and maps results to exit codes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-config.h"
#include "check.h"
#include "cni.h"
#include "config.h"
#include "engine.h"
#include "hookenv.h"
#include "inventory.h"
#include "jobenv.h"
#include "join.h"
#include "lock.h"
#include "log.h"
#include "probe.h"
#include "watch.h"

#define DEFAULT_CONFIG SYSCONFDIR "/ib-hook.conf"
#define LOCK_FILE      RUNSTATEDIR "/ib-hook.lock"
#define MAX_IFACES     64
#define MAX_PEERS      64

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
		"  -k, --check [PEER...]\n"
		"                     will RDMA CM use each managed address's port (to each\n"
		"                     PEER)? read-only; exit 1 unless every line is ok\n"
		"      --fleet FILE   with --check: every address of every other host in FILE,\n"
		"                     the joined --inventory of a fleet (- for stdin)\n"
		"      --inventory    this host's ports as JSON, for the fleet view\n"
		"      --job-env      the environment a job's NCCL and UCX need on this host's\n"
		"                     RDMA ports, as export lines (or --json); read-only\n"
		"      --join [ANSWER...]\n"
		"                     with --fleet: the hosts' --check --fleet --json answers\n"
		"                     (files, else stdin) into the matrix of port pairs\n"
		"      --json         --status, --dry-run, --check and --join as JSON\n"
		"      --html         --join as one HTML page\n"
		"      --all-pairs    --join: every pair (JSON), every failing pair (text, page)\n"
		"      --host NAME    --join --html: the page of NAME's ports\n"
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

/* what the command line and the dispatcher's environment ask for */
struct cli {
	struct ibh_request req;
	const char *ifaces[MAX_IFACES];
	size_t n_ifaces;
	bool all, watch, check, job_env;
	/* the fleet view: --inventory, --check --fleet FILE, --join */
	bool inventory, join, html, all_pairs;
	const char *host;
	const char *fleet;
	struct ibh_ip peers[MAX_PEERS]; /* --check PEER... */
	size_t n_peers;
	const char *config_path; /* --config, or NULL: the default file and drop-ins */
	unsigned long wait_sec;
	int verbose;
	/* NetworkManager's ENTRY INTERFACE ACTION */
	const char *nm_iface, *nm_action;
	/* a hook run: which dispatcher family it came from, and the link it names */
	enum ibh_hook_family hook_family;
	char hook_link[IF_NAMESIZE];
};

/* the end of a run before it began (--help, --version, a usage error): its exit code */
static bool stop(int *exit_code, int code)
{
	*exit_code = code;
	return false;
}

/* --check [PEER...]: what it takes, and the peers' addresses; true: go on */
static bool check_args(int argc, char *argv[], struct cli *cli, int *exit_code)
{
	if (cli->watch || cli->req.mode != IBH_MODE_CHANGE || cli->req.action != IBH_ACTION_APPLY)
		return stop(exit_code,
			    usage_error("--check takes no --watch, --remove, --dry-run or --status",
					NULL));
	for (int i = optind; i < argc; i++) {
		struct ibh_ip *p = &cli->peers[cli->n_peers];

		if (cli->n_peers == MAX_PEERS)
			return stop(exit_code, usage_error("too many peers", argv[i]));
		memset(p, 0, sizeof(*p));
		p->family = strchr(argv[i], ':') ? AF_INET6 : AF_INET;
		p->len = p->family == AF_INET ? 32 : 128;
		if (inet_pton(p->family, argv[i], p->a) != 1)
			return stop(exit_code,
				    usage_error("a peer is an IPv4 or IPv6 address", argv[i]));
		cli->n_peers++;
	}
	return true;
}

/* the three steps of the fleet view: what each takes; true: go on */
static bool fleet_args(int argc, char *argv[], struct cli *cli, int *exit_code)
{
	int steps = cli->inventory + cli->join + (cli->check && cli->fleet);

	if (steps != 1 || cli->all || cli->n_ifaces || cli->watch || cli->job_env ||
	    cli->req.mode != IBH_MODE_CHANGE || cli->req.action != IBH_ACTION_APPLY)
		return stop(exit_code, usage_error("the fleet view is one of --inventory, "
						   "--check --fleet FILE and --join --fleet FILE",
						   NULL));
	if (cli->join != !!cli->fleet && !cli->check)
		return stop(exit_code, usage_error("--join takes --fleet FILE", NULL));
	if (cli->html && (!cli->join || cli->req.json))
		return stop(exit_code,
			    usage_error("--html goes with --join, without --json", NULL));
	if ((cli->all_pairs || cli->host) && !cli->join)
		return stop(exit_code, usage_error("--all-pairs and --host go with --join", NULL));
	if (cli->host && !cli->html)
		return stop(exit_code, usage_error("--host goes with --join --html", NULL));
	if (optind < argc && !cli->join)
		return stop(exit_code, usage_error("unexpected argument", argv[optind]));
	return true;
}

/* true: go on; false: exit with *exit_code */
static bool parse_args(int argc, char *argv[], struct cli *cli, int *exit_code)
{
	/* clang-format off */
	static const struct option options[] = {
		{ "iface", required_argument, NULL, 'i' }, { "all", no_argument, NULL, 'a' },
		{ "remove", no_argument, NULL, 'r' },      { "dry-run", no_argument, NULL, 'n' },
		{ "status", no_argument, NULL, 's' },      { "check", no_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },        { "watch", no_argument, NULL, 'W' },
		{ "config", required_argument, NULL, 'c' }, { "wait", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },     { "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },        { "inventory", no_argument, NULL, 'N' },
		{ "fleet", required_argument, NULL, 'F' }, { "join", no_argument, NULL, 'J' },
		{ "html", no_argument, NULL, 'H' },        { "all-pairs", no_argument, NULL, 'P' },
		{ "host", required_argument, NULL, 'O' },  { "job-env", no_argument, NULL, 'E' },
		{},
	};
	/* clang-format on */
	struct ibh_request *req = &cli->req;
	/* NetworkManager's ENTRY INTERFACE ACTION holds no option, even if a name starts with '-' */
	bool nm_call = argc == 3 && getenv("NM_DISPATCHER_ACTION");
	enum ibh_mode mode;
	char *end;
	int opt;

	/* one message of ours, without getopt's own naming the binary's path */
	opterr = 0;
	while (!nm_call && (opt = getopt_long(argc, argv, "i:arnskc:w:vVh", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (cli->n_ifaces == MAX_IFACES)
				return stop(exit_code, usage_error("too many --iface", NULL));
			cli->ifaces[cli->n_ifaces++] = optarg;
			break;
		case 'a':
		case 'j':
		case 'W':
		case 'k':
			*(opt == 'a'   ? &cli->all
			  : opt == 'j' ? &req->json
			  : opt == 'W' ? &cli->watch
				       : &cli->check) = true;
			break;
		case 'N':
		case 'J':
		case 'H':
			*(opt == 'N'   ? &cli->inventory
			  : opt == 'J' ? &cli->join
				       : &cli->html) = true;
			break;
		case 'F':
			cli->fleet = optarg;
			break;
		case 'P':
			cli->all_pairs = true;
			break;
		case 'E':
			cli->job_env = true;
			break;
		case 'O':
			cli->host = optarg;
			break;
		case 'r':
			req->action = IBH_ACTION_REMOVE;
			break;
		case 'n':
		case 's':
			mode = opt == 'n' ? IBH_MODE_DRY_RUN : IBH_MODE_STATUS;
			if (req->mode != IBH_MODE_CHANGE && req->mode != mode)
				return stop(exit_code,
					    usage_error("--status and --dry-run exclude each other",
							NULL));
			req->mode = mode;
			break;
		case 'c':
			cli->config_path = optarg;
			break;
		case 'w':
			errno = 0;
			cli->wait_sec = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || cli->wait_sec > 3600)
				return stop(
					exit_code,
					usage_error(
						"--wait takes seconds from 0 (do not wait) to 3600",
						optarg));
			break;
		case 'v':
			cli->verbose++;
			break;
		case 'V':
			printf("ib-hook %s\n", PROJECT_VERSION);
			return stop(exit_code, 0);
		case 'h':
			help(stdout);
			return stop(exit_code, 0);
		default:
			if (optopt && optopt != '?' && strchr("icwFO", optopt))
				return stop(exit_code,
					    usage_error("option needs a value", argv[optind - 1]));
			return stop(exit_code, usage_error("unknown option",
							   optopt ? (char[]){ '-', (char)optopt, 0 }
								  : argv[optind - 1]));
		}
	}
	if (cli->inventory || cli->join || cli->html || cli->fleet || cli->all_pairs || cli->host)
		return fleet_args(argc, argv, cli, exit_code);
	if (cli->check && cli->job_env)
		return stop(exit_code,
			    usage_error("--check and --job-env exclude each other", NULL));
	if (cli->check)
		return check_args(argc, argv, cli, exit_code);
	if (cli->job_env && (optind < argc || cli->all || cli->watch ||
			     req->mode != IBH_MODE_CHANGE || req->action != IBH_ACTION_APPLY))
		return stop(exit_code,
			    usage_error("--job-env takes only --iface, --json and --config",
					optind < argc ? argv[optind] : NULL));
	if (cli->job_env)
		return true;
	/* INTERFACE ACTION: NetworkManager's dispatcher calling convention */
	if (optind < argc && (argc - optind != 2 || cli->all || cli->n_ifaces || cli->watch ||
			      req->mode == IBH_MODE_STATUS))
		return stop(exit_code, usage_error("unexpected argument", argv[optind]));
	if (optind < argc) {
		cli->nm_iface = argv[optind];
		cli->nm_action = argv[optind + 1];
	}
	if (cli->all && cli->n_ifaces)
		return stop(exit_code, usage_error("--all and --iface exclude each other", NULL));
	if (req->mode == IBH_MODE_STATUS && req->action == IBH_ACTION_REMOVE)
		return stop(exit_code,
			    usage_error("--status and --remove exclude each other", NULL));
	if (req->json && req->mode == IBH_MODE_CHANGE)
		return stop(exit_code,
			    usage_error("--json goes with --status, --dry-run or --check", NULL));
	if (cli->watch && (cli->all || cli->n_ifaces || req->mode != IBH_MODE_CHANGE ||
			   req->action != IBH_ACTION_APPLY))
		return stop(
			exit_code,
			usage_error(
				"--watch takes no --iface, --all, --remove, --dry-run or --status",
				NULL));
	return true;
}

/*
 * no --iface, --all, --status or --watch: the interface and the action of a
 * dispatcher; false: exit with *exit_code (0: nothing to do)
 */
static bool from_hook_env(struct cli *cli, int *exit_code)
{
	struct ibh_hook_env env;
	struct ibh_hook hook;

	hookenv_read(&env);
	env.nm_arg_iface = cli->nm_iface;
	env.nm_arg_action = cli->nm_action;
	if (hookenv_parse(&env, &hook) < 0)
		return stop(
			exit_code,
			usage_error(
				"no interface: give --iface IF or --all (a dispatcher sets IFACE)",
				NULL));
	if (hook.action == IBH_ACTION_NONE)
		return stop(exit_code, 0);
	cli->req.hook = true;
	cli->hook_family = hook.family;
	/* IFACE alone is a replay by hand: an explicit --remove still counts */
	if (!(cli->req.action == IBH_ACTION_REMOVE && hook.family == IBH_HOOK_BY_HAND))
		cli->req.action = hook.action;
	if (hook.iface == hook.link) {
		snprintf(cli->hook_link, sizeof(cli->hook_link), "%s", hook.link);
		hook.iface = cli->hook_link;
	}
	cli->ifaces[cli->n_ifaces++] = hook.iface;
	return true;
}

/*
 * A person's --remove while the watcher runs: the watcher puts everything
 * back at its next pass, as its contract says (it keeps every managed port
 * as apply leaves it). Like systemctl stop on a unit that a socket can start
 * again, say so and how to stop it; the removal itself went as asked.
 */
static void warn_watcher(const char *record_path)
{
	char path[64], cgroup[512] = "";
	int pid = watch_running(record_path);
	FILE *f;

	if (pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(cgroup, sizeof(cgroup), f))
			cgroup[0] = '\0';
		fclose(f);
	}
	if (strstr(cgroup, "/ib-hook.service"))
		log_warning("the watcher (ib-hook.service, pid %d) puts it back at its next pass; "
			    "to keep it removed, stop the watcher first: systemctl stop ib-hook "
			    "(and systemctl disable ib-hook to keep it stopped)",
			    pid);
	else
		log_warning("the watcher (ib-hook --watch, pid %d) puts it back at its next pass; "
			    "to keep it removed, stop the watcher first: kill %d",
			    pid, pid);
}

static int take_lock(unsigned long wait_sec)
{
	int fd = lock_take(LOCK_FILE, (unsigned int)wait_sec);

	if (fd == -ETIMEDOUT)
		log_error("another ib-hook run held '%s' for %lu s; giving up", LOCK_FILE,
			  wait_sec);
	else if (fd < 0)
		log_error_errno(fd, "cannot lock '%s': %m%s", LOCK_FILE, log_errno_hint(fd));
	return fd;
}

/* the runs a person or a dispatcher asked for, under the lock when they change something */
static enum ibh_result run_once(const struct cli *cli, const struct ibh_config *config)
{
	struct ibh_request req = cli->req;
	struct ibh_engine *engine = NULL;
	enum ibh_result res = IBH_OK, one;
	int lock_fd = -1, r;

	if (cli->req.mode == IBH_MODE_CHANGE) {
		lock_fd = take_lock(cli->wait_sec);
		if (lock_fd < 0)
			return IBH_FAILED;
	}
	/* engine_new() says why it failed */
	r = engine_new(config, &engine);
	if (r < 0) {
		res = IBH_FAILED;
		goto cleanup;
	}
	/* exit 2 says nothing was changed: a dispatcher's interface may be gone, that is no error */
	if (!cli->req.hook) {
		res = engine_find_links(engine, cli->ifaces, cli->n_ifaces);
		if (res != IBH_OK)
			goto cleanup;
	}
	/*
	 * A watcher of this namespace with this configuration follows main's
	 * routes and keeps T(X)'s copies: a hook or --iface run leaves them to it
	 * rather than walk all of main (its lock on the .watch file says it is
	 * alive; the kernel drops it when it dies, even by SIGKILL)
	 */
	if (!cli->all && config->gateway_routes && req.action == IBH_ACTION_APPLY &&
	    req.mode != IBH_MODE_STATUS)
		req.watcher = watch_covers(engine_record_path(engine), config);
	if (cli->all)
		res = engine_run_all(engine, &req);
	for (size_t i = 0; i < cli->n_ifaces; i++) {
		one = engine_run(engine, cli->ifaces[i], &req);
		if (one > res)
			res = one;
	}
	one = engine_end(engine, &cli->req);
	if (one > res)
		res = one;
	if (cli->req.action == IBH_ACTION_REMOVE && cli->req.mode == IBH_MODE_CHANGE &&
	    (!cli->req.hook || cli->hook_family == IBH_HOOK_BY_HAND))
		warn_watcher(engine_record_path(engine));
cleanup:
	engine_free(engine);
	if (lock_fd >= 0)
		close(lock_fd);
	return res;
}

/* --join and --check --fleet: other hosts' documents, no configuration of this host's */
static int fleet_main(const struct cli *cli, int argc, char *argv[])
{
	size_t at = 0;
	int r;

	log_setup(IBH_LOG_STDERR, cli->verbose ? LOG_DEBUG : LOG_INFO);
	signal(SIGPIPE, SIG_IGN);
	if (cli->join)
		r = join_run(
			cli->fleet, (const char *const *)argv + optind, (size_t)(argc - optind),
			cli->html	? FLEET_HTML
			: cli->req.json ? FLEET_JSON
					: FLEET_TEXT,
			&(struct fleet_options){ .all_pairs = cli->all_pairs, .host = cli->host },
			stdout);
	else {
		struct ibh_config config;
		struct ibh_config_error cerr = {};
		char files[IBH_CONFIG_FILES_SIZE];
		struct probe_opts o = { .format = 2 };
		const char *format = getenv("IB_HOOK_FLEET_FORMAT");

		/* [Fleet] of this host's configuration: the same on every host, as the lab gives it */
		r = config_load_all(&config, cli->config_path ? cli->config_path : DEFAULT_CONFIG,
				    cli->config_path ? NULL : DEFAULT_CONFIG ".d", &cerr, files, sizeof(files));
		if (r < 0) {
			char msg[512];

			config_error_format(&cerr, r, msg, sizeof(msg));
			log_error("%s", msg);
			return IBH_USAGE;
		}
		o.probers = config.fleet_probers;
		o.rate = config.fleet_arp_rate;
		/* version 1, every pair (internal: the tests of a join that reads only it) */
		if (format && strcmp(format, "1") == 0)
			o.format = 1;
		else if (format && strcmp(format, "2") == 0)
			o.format = 2;
		r = probe_run(cli->fleet, &o, cli->req.json, stdout, &at);
		if (r == -ENOENT)
			log_error("no host of '%s' has this host's ports, or no such file",
				  cli->fleet);
		else if (r == -EINVAL || r == -EEXIST)
			log_error("'%s' is no joined inventory (ib-hook(8)), near byte %zu",
				  cli->fleet, at);
		else if (r < 0)
			log_error_errno(r, "cannot check the fleet's pairs: %m%s",
					log_errno_hint(r));
	}
	if (fflush(stdout) != 0 && r >= 0)
		r = -EIO;
	return r == -EINVAL || r == -ENOENT || r == -EEXIST ? IBH_USAGE : r < 0 ? IBH_FAILED : r;
}

int main(int argc, char *argv[])
{
	struct cli cli = {
		.req = { .action = IBH_ACTION_APPLY, .mode = IBH_MODE_CHANGE, .out = stdout },
		.wait_sec = 30
	};
	const char *dropin_dir;
	struct ibh_config_error cerr = {};
	struct ibh_config config;
	char files[IBH_CONFIG_FILES_SIZE];
	enum ibh_log_target target;
	enum ibh_result res;
	int r;

	/* a container runtime's call: the CNI protocol, not options (SPEC section 11) */
	if (cni_called(argc)) {
		log_setup(IBH_LOG_AUTO, LOG_INFO);
		signal(SIGPIPE, SIG_IGN);
		return cni_main(stdin, stdout, LOCK_FILE);
	}
	if (!parse_args(argc, argv, &cli, &r))
		return r;
	if (cli.join || cli.fleet)
		return fleet_main(&cli, argc, argv);
	dropin_dir = cli.config_path ? NULL : DEFAULT_CONFIG ".d";

	/*
	 * A person's change reports on stderr even when piped (ssh, Ansible,
	 * postinst); --status and --dry-run print on stdout and never log to the
	 * journal; a dispatcher or the watcher logs to the journal.
	 */
	target = cli.req.mode != IBH_MODE_CHANGE || cli.check || cli.inventory || cli.job_env
			 ? IBH_LOG_STDERR
		 : cli.all || cli.n_ifaces ? IBH_LOG_BOTH
					   : IBH_LOG_AUTO;
	log_setup(target, cli.verbose ? LOG_DEBUG : LOG_INFO);
	/* a closed stdout or stderr (`ib-hook --all | head -1`) must not end a run halfway */
	signal(SIGPIPE, SIG_IGN);

	if (!cli.all && cli.n_ifaces == 0 && cli.req.mode != IBH_MODE_STATUS && !cli.watch &&
	    !cli.check && !cli.inventory && !cli.job_env) {
		if (!from_hook_env(&cli, &r))
			return r;
	}
	if (cli.req.mode == IBH_MODE_STATUS && cli.n_ifaces == 0)
		cli.all = true;

	r = config_load_all(&config, cli.config_path ? cli.config_path : DEFAULT_CONFIG, dropin_dir,
			    &cerr, files, sizeof(files));
	if (r < 0) {
		char msg[512];

		config_error_format(&cerr, r, msg, sizeof(msg));
		log_error("%s", msg);
		return IBH_USAGE;
	}
	cli.req.config_files = files;
	/* [Hooks] may switch a dispatcher family off: its runs then do nothing */
	if (cli.req.hook && cli.hook_family < IBH_HOOK_MAX && !config.hooks[cli.hook_family]) {
		log_debug("%s runs are switched off ([Hooks]); nothing to do",
			  hook_family(cli.hook_family)->name);
		return 0;
	}

	if (cli.inventory) {
		char port[IF_NAMESIZE] = "";

		r = inventory_run(&config, stdout, port);
		if (r == -EADDRNOTAVAIL)
			log_error("the kernel reports no hardware address for port '%s': no host "
				  "could tell its ARP answers",
				  port);
		else if (r < 0)
			log_error_errno(r, "cannot ask the kernel: %m");
		return r < 0 || fflush(stdout) != 0 ? IBH_FAILED : 0;
	}
	if (cli.job_env) {
		r = jobenv_run(&config, cli.ifaces, cli.n_ifaces, cli.req.json, stdout);
		if (r == -ENODEV)
			return IBH_USAGE;
		if (r < 0)
			log_error_errno(r, "cannot ask the kernel: %m");
		if (fflush(stdout) != 0)
			r = -EIO;
		return r < 0 ? IBH_FAILED : r;
	}
	if (cli.check) {
		r = check_run(&config, cli.ifaces, cli.n_ifaces, cli.peers, cli.n_peers,
			      cli.req.json, stdout);
		if (r == -ENODEV)
			return IBH_USAGE;
		if (r < 0)
			log_error_errno(r, "cannot ask the kernel: %m");
		if (fflush(stdout) != 0)
			r = 1;
		return r < 0 ? IBH_FAILED : r;
	}
	if (cli.watch) {
		struct ibh_watch_options wopt = {
			.config_path = cli.config_path ? cli.config_path : DEFAULT_CONFIG,
			.dropin_dir = dropin_dir,
			.lock_path = LOCK_FILE,
			.wait_sec = (unsigned int)cli.wait_sec,
			/* for tests: a tiny buffer makes the kernel drop notifications */
			.rcvbuf = getenv("IB_HOOK_WATCH_RCVBUF")
					  ? atoi(getenv("IB_HOOK_WATCH_RCVBUF"))
					  : 0,
		};

		return watch_run(&config, &wopt);
	}
	res = run_once(&cli, &config);
	if (fflush(stdout) != 0 && res == IBH_OK)
		res = IBH_FAILED;
	return (int)res;
}
