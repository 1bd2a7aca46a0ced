// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The benchmark's launcher: one long-lived process that times fork/exec of
 * each command it is given, so that ib-hook and the seed script are started
 * the same way and neither pays for `ip netns exec` (about 10 ms by itself).
 *
 *   launch [-w WARMUP] SPEC
 *
 * SPEC has one row per line, fields separated by tabs:
 *
 *   NAME  REPS  NETNS  FLAGS  PREPARE  COMMAND ARGS...
 *
 * NETNS is a name under /run/netns; PREPARE is a shell script run (untimed)
 * in that namespace before every timed run, or "-"; COMMAND is an absolute
 * path, its arguments are split at spaces. FLAGS "j" gives the run a journal
 * socket, "-" none. Rows are interleaved round by round so that every ratio
 * compares runs made under the same machine load.
 *
 * The launcher opens the namespaces first, then moves into a mount namespace
 * of its own with a tmpfs on /run: ib-hook's lock file lands there, and the
 * journal socket it logs to is a socket of the launcher, drained after each
 * run, so that the host's journal (if any) never sees a benchmark message.
 *
 * To be disturbed less by other load on the machine, the launcher puts itself
 * in a scheduling group of its own (a new session is a new autogroup) at nice
 * -20, when it may.
 *
 * Output, one line per row: NAME N MEDIAN_US P25_US P75_US MIN_US MAX_US
 * MAXRSS_KB FAILURES CPU_MEDIAN_US (user + system time of the child, which
 * other load on the machine disturbs less than the wall clock), then
 * "launcher VMHWM_KB": a child started with vfork semantics inherits the
 * launcher's peak RSS before exec, so that is the floor of every RSS figure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROWS    64
#define MAX_ARGS    32
#define JOURNAL_DIR "/run/systemd/journal"
#define JOURNAL_ON  JOURNAL_DIR "/socket"
#define JOURNAL_OFF JOURNAL_DIR "/socket.off"

extern char **environ;

struct row {
	char *name;
	int reps;
	int netns;
	bool journal;
	char *prepare;
	char *argv[MAX_ARGS + 1];
	uint64_t *us;
	uint64_t *cpu_us;
	int n;
	long maxrss_kb;
	int failures;
};

static struct row rows[MAX_ROWS];
static int n_rows;
static int journal_fd = -1;
static bool journal_on;
static char *const child_env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };

static void die(const char *what)
{
	fprintf(stderr, "launch: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_netns(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	return fd;
}

static void parse_spec(const char *path)
{
	char line[4096];
	FILE *f = fopen(path, "re");

	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f)) {
		char *field[6], *save = NULL, *s = line;
		struct row *r;
		int n = 0, a = 0;

		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		while (n < 6 && (field[n] = strtok_r(s, "\t", &save)))
			n++, s = NULL;
		if (n != 6 || n_rows == MAX_ROWS) {
			fprintf(stderr, "launch: bad spec line: %s\n", line);
			exit(1);
		}
		r = &rows[n_rows++];
		r->name = strdup(field[0]);
		r->reps = atoi(field[1]);
		r->netns = open_netns(field[2]);
		r->journal = strchr(field[3], 'j');
		r->prepare = strcmp(field[4], "-") ? strdup(field[4]) : NULL;
		for (s = strtok_r(field[5], " ", &save); s && a < MAX_ARGS;
		     s = strtok_r(NULL, " ", &save))
			r->argv[a++] = strdup(s);
		r->us = calloc((size_t)r->reps + 1, sizeof(*r->us));
		r->cpu_us = calloc((size_t)r->reps + 1, sizeof(*r->cpu_us));
		if (!r->name || !r->us || !r->cpu_us || r->reps < 1 || a == 0) {
			fprintf(stderr, "launch: bad spec line\n");
			exit(1);
		}
	}
	fclose(f);
}

/* a private /run: ib-hook's lock file and a journal socket nobody else reads */
static void private_run(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = JOURNAL_ON };
	int size = 8 << 20;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		die("private /run");
	if (mkdir("/run/systemd", 0755) < 0 || mkdir(JOURNAL_DIR, 0755) < 0)
		die("mkdir " JOURNAL_DIR);
	journal_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (journal_fd < 0 || bind(journal_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("journal socket");
	(void)setsockopt(journal_fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	journal_on = true;
}

static void journal(bool on)
{
	static char buf[1 << 16];

	while (recv(journal_fd, buf, sizeof(buf), 0) >= 0)
		;
	if (on == journal_on)
		return;
	if (rename(on ? JOURNAL_OFF : JOURNAL_ON, on ? JOURNAL_ON : JOURNAL_OFF) < 0)
		die("rename journal socket");
	journal_on = on;
}

static long vm_hwm_kb(void)
{
	char line[256];
	long kb = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* a session of our own is an autogroup of our own: only then does nice count against other load */
static void raise_priority(void)
{
	int fd;

	(void)setsid();
	fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void)!write(fd, "-20", 3);
		close(fd);
	}
	(void)setpriority(PRIO_PROCESS, 0, -20);
}

/* spawn argv with stdio on /dev/null; returns its wait status */
static int run(char *const argv[], struct rusage *ru, uint64_t *ret_ns)
{
	posix_spawn_file_actions_t fa;
	uint64_t t0, t1;
	pid_t pid;
	int status, r;

	posix_spawn_file_actions_init(&fa);
	for (int fd = 0; fd < 3; fd++)
		posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);
	t0 = now_ns();
	r = posix_spawn(&pid, argv[0], &fa, NULL, argv, child_env);
	if (r == 0)
		while (wait4(pid, &status, 0, ru) < 0)
			if (errno != EINTR)
				die("wait4");
	t1 = now_ns();
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0) {
		errno = r;
		die(argv[0]);
	}
	if (ret_ns)
		*ret_ns = t1 - t0;
	return status;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of a sorted sample; the median averages the middle pair */
static uint64_t pct(const uint64_t *v, int n, int p)
{
	if (p == 50 && n % 2 == 0)
		return (v[n / 2 - 1] + v[n / 2]) / 2;
	return v[(int)((long)(n - 1) * p / 100)];
}

int main(int argc, char *argv[])
{
	int warmup = 3, max_reps = 0, opt;

	while ((opt = getopt(argc, argv, "w:")) != -1) {
		if (opt != 'w') {
			fprintf(stderr, "usage: launch [-w WARMUP] SPEC\n");
			return 2;
		}
		warmup = atoi(optarg);
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: launch [-w WARMUP] SPEC\n");
		return 2;
	}
	parse_spec(argv[optind]);
	private_run();
	raise_priority();
	for (int i = 0; i < n_rows; i++)
		if (rows[i].reps > max_reps)
			max_reps = rows[i].reps;

	for (int round = 0; round < warmup + max_reps; round++)
		for (int i = 0; i < n_rows; i++) {
			struct row *r = &rows[i];
			struct rusage ru;
			uint64_t ns;
			int st;

			if (round >= warmup + r->reps)
				continue;
			if (setns(r->netns, CLONE_NEWNET) < 0)
				die("setns");
			if (r->prepare) {
				char *prep[] = { "/bin/sh", r->prepare, NULL };

				st = run(prep, &ru, NULL);
				if (!WIFEXITED(st) || WEXITSTATUS(st)) {
					fprintf(stderr,
						"launch: %s: prepare %s failed (status %d)\n",
						r->name, r->prepare, st);
					return 1;
				}
			}
			journal(r->journal);
			st = run(r->argv, &ru, &ns);
			if (round < warmup)
				continue;
			r->cpu_us[r->n] =
				(uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
				(uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
			r->us[r->n++] = ns / 1000;
			if (ru.ru_maxrss > r->maxrss_kb)
				r->maxrss_kb = ru.ru_maxrss;
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				r->failures++;
		}

	for (int i = 0; i < n_rows; i++) {
		struct row *r = &rows[i];

		qsort(r->us, (size_t)r->n, sizeof(*r->us), cmp_u64);
		qsort(r->cpu_us, (size_t)r->n, sizeof(*r->cpu_us), cmp_u64);
		printf("%s %d %llu %llu %llu %llu %llu %ld %d %llu\n", r->name, r->n,
		       (unsigned long long)pct(r->us, r->n, 50),
		       (unsigned long long)pct(r->us, r->n, 25),
		       (unsigned long long)pct(r->us, r->n, 75), (unsigned long long)r->us[0],
		       (unsigned long long)r->us[r->n - 1], r->maxrss_kb, r->failures,
		       (unsigned long long)pct(r->cpu_us, r->n, 50));
	}
	/* not getrusage(): that counts the peak of the program that exec'ed us */
	printf("launcher %ld\n", vm_hwm_kb());
	return 0;
}
