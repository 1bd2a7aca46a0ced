// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The watcher: one netlink socket subscribed to link, address, rule and
 * route notifications, a signalfd, and a short timer that gathers a burst of
 * notifications into one pass. A notification only names the links to look
 * at; the engine then observes, plans and applies as a hook run does
 * (level-triggered). Idle, poll() sleeps without a timeout.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "config.h"
#include "engine.h"
#include "lock.h"
#include "log.h"
#include "kernel.h"
#include "select.h"
#include "watch.h"

/*
 * The first notification after a quiet spell is acted on at once; one that
 * comes within BATCH_MS of the last pass is part of a burst, and waits until
 * BATCH_MS after that pass, so that the rest of the burst is handled with it.
 */
#define BATCH_MS 2
/* a link whose objects ib-hook had to put back this often within the window is fought over */
#define FIGHT_RUNS	8
#define FIGHT_WINDOW_MS 10000
#define BACKOFF_MAX_MS	60000
/* a failed run is tried again after this, twice as long each time, up to BACKOFF_MAX_MS */
#define RETRY_FIRST_MS 250
#define LOCK_RETRY_MS  1000
#define DEFAULT_RCVBUF (4 * 1024 * 1024)

/*
 * What the watcher keeps of a link between passes (ifindex 0: of the pass
 * over every link). An entry lives only while it holds something: a fight
 * within its window or hold, a look owed when the hold ends, a failure to
 * try again. So no count of links that came and went fills the table.
 */
struct link_state {
	int ifindex;
	/* repairs in the window that began at window_start; no repair before hold_until */
	unsigned int runs;
	int64_t window_start, hold_until;
	bool owed; /* a notification came during the hold */
	/* failed runs in a row, and when to try again */
	unsigned int failures;
	int64_t retry_at;
};

struct watch {
	/* the configuration in use: the watcher's own, replaced whole on SIGHUP */
	struct ibh_config *config;
	const struct ibh_watch_options *opt;
	struct ibh_engine *engine;
	struct ibh_monitor *mon;
	struct ibh_events ev;
	int64_t deadline;  /* ms; 0: nothing to do */
	int64_t last_pass; /* ms, when the last pass ended */
	struct link_state *links;
	size_t n_links, cap_links;
	int lock_error; /* the last failure to take the lock that was said, or 0 */
	int (*notify)(int unset, const char *state);
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Type=notify: through libsystemd, opened only under systemd */
static void notify(struct watch *w, const char *state)
{
	if (!getenv("NOTIFY_SOCKET"))
		return;
	if (!w->notify) {
		void *dl = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);

		if (dl)
			w->notify = (int (*)(int, const char *))dlsym(dl, "sd_notify");
		if (!w->notify)
			return;
	}
	w->notify(0, state);
}

static struct link_state *state_find(struct watch *w, int ifindex)
{
	for (size_t i = 0; i < w->n_links; i++)
		if (w->links[i].ifindex == ifindex)
			return &w->links[i];
	return NULL;
}

/* NULL only when out of memory: the link then goes without back-off or retry for now */
static struct link_state *state_of(struct watch *w, int ifindex)
{
	struct link_state *s = state_find(w, ifindex);

	if (s || array_grow(&w->links, &w->cap_links, w->n_links, sizeof(*w->links), 8) < 0)
		return s;
	s = &w->links[w->n_links++];
	*s = (struct link_state){ .ifindex = ifindex };
	return s;
}

/* entries that hold nothing any more go: a link that went leaves nothing behind */
static void state_prune(struct watch *w, int64_t now)
{
	for (size_t i = w->n_links; i-- > 0;) {
		const struct link_state *s = &w->links[i];

		if (!s->owed && !s->failures && s->hold_until <= now &&
		    now - s->window_start > FIGHT_WINDOW_MS)
			w->links[i] = w->links[--w->n_links];
	}
}

static int64_t held_until(struct watch *w, int ifindex)
{
	const struct link_state *s = state_find(w, ifindex);

	return s ? s->hold_until : 0;
}

/* when s is next to be run without a notification (never during a hold); INT64_MAX: not */
static int64_t state_due(const struct link_state *s)
{
	int64_t due = s->owed ? s->hold_until : INT64_MAX;

	if (s->failures && s->retry_at < due)
		due = s->retry_at > s->hold_until ? s->retry_at : s->hold_until;
	return due;
}

/* a notification for a held link: it is looked at when the hold ends */
static void owe(struct watch *w, int ifindex)
{
	struct link_state *s = state_find(w, ifindex);

	if (s)
		s->owed = true;
}

/*
 * Another program that fights over a table (or a flapping link) must not make
 * the watcher spin: after FIGHT_RUNS repairs within the window, the link waits,
 * twice as long each time, up to a minute, with one log line per episode.
 */
static void account(struct watch *w, int ifindex, int64_t now)
{
	struct link_state *f = state_of(w, ifindex);
	int64_t hold;

	if (!f)
		return;
	if (now - f->window_start > FIGHT_WINDOW_MS) {
		f->window_start = now;
		f->runs = 0;
	}
	if (++f->runs <= FIGHT_RUNS)
		return;
	hold = (int64_t)1000 << (f->runs - FIGHT_RUNS - 1 < 6 ? f->runs - FIGHT_RUNS - 1 : 6);
	if (hold > BACKOFF_MAX_MS)
		hold = BACKOFF_MAX_MS;
	if (f->hold_until <= now)
		log_warning("interface %d: ib-hook put its routing back %u times in %d s (another "
			    "program, or a flapping link?); waiting %lld ms before the next repair",
			    ifindex, f->runs, FIGHT_WINDOW_MS / 1000, (long long)hold);
	f->hold_until = now + hold;
}

static void reload(struct watch *w)
{
	struct ibh_config_error err = {};
	struct ibh_config *next = malloc(sizeof(*next));
	char files[IBH_CONFIG_FILES_SIZE];
	int r;

	if (!next) {
		log_error("cannot re-read the configuration: out of memory; keeping the old one");
		return;
	}
	r = config_load_all(next, w->opt->config_path, w->opt->dropin_dir, &err, files,
			    sizeof(files));
	if (r < 0) {
		char msg[512];

		config_error_format(&err, r, msg, sizeof(msg));
		log_error("%s; keeping the configuration in use", msg);
		free(next);
		return;
	}
	engine_set_config(w->engine, next);
	free(w->config);
	w->config = next;
	for (char *p = files; *p; p++)
		if (*p == '\n')
			*p = ' ';
	log_info("re-read the configuration: %s", files[0] ? files : "no file, the defaults");
	w->ev.all = true;
}

/*
 * Run one link (ifindex 0: every link). A failure that no notification may
 * follow (/run full for a moment, ENOMEM or ENOBUFS from the kernel) is tried
 * again, later and later, until it succeeds. It is said once: until then the
 * link's runs, retries or not, say their errors only with -v.
 */
static void run(struct watch *w, const struct ibh_request *req, int ifindex)
{
	struct link_state *s = state_find(w, ifindex);
	enum ibh_result res;
	char what[32];
	int64_t delay;

	log_demote(s && s->failures);
	res = ifindex ? engine_run_index(w->engine, ifindex, req) : engine_run_all(w->engine, req);
	log_demote(false);
	s = res == IBH_FAILED ? state_of(w, ifindex) : state_find(w, ifindex);
	if (!s)
		return;
	if (ifindex)
		snprintf(what, sizeof(what), "interface %d", ifindex);
	else
		snprintf(what, sizeof(what), "every managed link");
	if (res != IBH_FAILED) {
		if (s->failures)
			log_info("%s: applied after %u failed run(s)", what, s->failures);
		s->failures = 0;
		return;
	}
	delay = (int64_t)RETRY_FIRST_MS << (s->failures < 8 ? s->failures : 8);
	if (delay > BACKOFF_MAX_MS)
		delay = BACKOFF_MAX_MS;
	if (!s->failures)
		log_notice("%s: the run failed; trying again in %lld ms, then less and less often "
			   "(up to every %d s) until it succeeds",
			   what, (long long)delay, BACKOFF_MAX_MS / 1000);
	s->failures++;
	s->retry_at = now_ms() + delay;
}

/* 0 after a pass, or the lock's -errno (-ETIMEDOUT: another run holds it) */
static int pass(struct watch *w)
{
	struct ibh_request req = {
		.action = IBH_ACTION_APPLY,
		.mode = IBH_MODE_CHANGE,
		.hook = true,
		.down_removes = true,
		.out = stdout,
	};
	int64_t now = now_ms();
	int *held = NULL;
	const int *repaired;
	size_t n;
	int lock_fd;

	/* RDMA ports come and go (rdma link add/delete, driver reloads) */
	select_forget();
	/* the same lock as hook runs, held only for this pass */
	lock_fd = lock_take(w->opt->lock_path, 0);
	if (lock_fd < 0)
		return lock_fd;
	engine_invalidate(w->engine);
	/* a rule names no link: a held one is looked at again when its hold ends */
	held = calloc(w->n_links ? w->n_links : 1, sizeof(*held));
	for (size_t i = 0; held && i < w->n_links; i++)
		if (w->links[i].ifindex && w->links[i].hold_until > now)
			held[req.n_held++] = w->links[i].ifindex;
	req.held = held;
	/*
	 * A route in a managed link's table is that link's to look at: with
	 * 200 000 copies in T(ib0), a repair of T(ib1) must not re-plan ib0.
	 * A table that is no one link's (a rule may send lookups there) is
	 * every link's.
	 */
	for (size_t i = 0; i < w->ev.n_tables && !w->ev.all && !w->ev.tables_changed; i++) {
		int ifindex = engine_link_of_table(w->engine, w->ev.tables[i]);

		if (ifindex <= 0 ||
		    !index_array_add(w->ev.ifindex, &w->ev.n,
				     sizeof(w->ev.ifindex) / sizeof(w->ev.ifindex[0]), ifindex))
			w->ev.tables_changed = true;
	}
	if (w->ev.all || w->ev.tables_changed) {
		if (w->ev.overrun)
			log_notice("notifications were lost (receive buffer full): reading "
				   "everything");
		for (size_t i = 0; i < req.n_held; i++)
			owe(w, held[i]);
		run(w, &req, 0);
	} else
		for (size_t i = 0; i < w->ev.n; i++) {
			int ifindex = w->ev.ifindex[i];

			if (held_until(w, ifindex) > now) {
				owe(w, ifindex);
				continue;
			}
			run(w, &req, ifindex);
		}
	/* holds that ended and failures whose time came (run() may add entries: by index) */
	for (size_t i = 0; i < w->n_links; i++) {
		struct link_state *s = &w->links[i];

		if (state_due(s) > now)
			continue;
		s->owed = false;
		run(w, &req, s->ifindex);
	}
	/* whichever way the pass went, every repair counts towards its link's back-off */
	n = engine_repaired(w->engine, &repaired);
	for (size_t i = 0; i < n; i++)
		account(w, repaired[i], now);
	state_prune(w, now);
	close(lock_fd);
	free(held);
	w->ev = (struct ibh_events){ .main = w->ev.main };
	return 0;
}

/* a notification asks for a pass */
static bool events_pending(const struct ibh_events *ev)
{
	return ev->all || ev->tables_changed || ev->n || ev->n_tables;
}

static int next_timeout(struct watch *w)
{
	int64_t now = now_ms(), until = w->deadline;

	/* only held or failed links are due: sleep until the first is */
	if (!events_pending(&w->ev)) {
		int64_t first = INT64_MAX;

		for (size_t i = 0; i < w->n_links; i++) {
			int64_t due = state_due(&w->links[i]);

			first = due < first ? due : first;
		}
		if (first == INT64_MAX)
			return -1;
		if (first > until)
			until = first;
	}
	if (until - now > BACKOFF_MAX_MS)
		until = now + BACKOFF_MAX_MS;
	return until <= now ? 0 : (int)(until - now);
}

/*
 * A watcher says it runs in this namespace by a lock it holds for its life
 * on record_path.watch, which holds its pid: --remove can then say that the
 * watcher will put back what it deletes. Never a blocking open (a FIFO put
 * there), never through a symlink.
 */
static int watch_file_open(const char *record_path, int flags)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s.watch", record_path);
	fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EBADF;
	}
	return fd;
}

/*
 * The file says the watcher's pid, then the fingerprint of its configuration
 * (config_fingerprint): a hook run that runs with the same one leaves the
 * copies of main's routes to it (watch_covers)
 */
static int watch_write(int fd, const struct ibh_config *c)
{
	char text[64];
	int n = snprintf(text, sizeof(text), "%ld\nconfig %016llx\n", (long)getpid(),
			 (unsigned long long)config_fingerprint(c));

	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, (size_t)n, 0) != n)
		return errno ? -errno : -EIO;
	return 0;
}

static int watch_announce(const char *record_path, const struct ibh_config *c)
{
	int fd, r;

	/* the record's directory may not exist before the first change */
	(void)mkdir(kernel->state_dir, 0755);
	fd = watch_file_open(record_path, O_RDWR | O_CREAT);
	if (fd < 0)
		return fd;
	r = flock(fd, LOCK_EX | LOCK_NB) < 0 ? -errno : watch_write(fd, c);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* the pid of the live watcher and its file's text, 0 when none runs, or -errno */
static int watch_read(const char *record_path, char *buf, size_t size)
{
	ssize_t n;
	int fd = watch_file_open(record_path, O_RDONLY), r;

	buf[0] = '\0';
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	/* the kernel drops the watcher's lock when it ends, even by SIGKILL */
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		close(fd);
		return 0; /* left by a watcher that ended */
	}
	r = errno == EWOULDBLOCK ? 0 : -errno;
	n = r < 0 ? -1 : read(fd, buf, size - 1);
	close(fd);
	if (r < 0)
		return r;
	buf[n > 0 ? n : 0] = '\0';
	r = atoi(buf);
	return r > 0 ? r : -EBADMSG;
}

int watch_running(const char *record_path)
{
	char buf[64];

	return watch_read(record_path, buf, sizeof(buf));
}

int watch_covers(const char *record_path, const struct ibh_config *c)
{
	char buf[64], want[32];
	const char *line;
	int pid = watch_read(record_path, buf, sizeof(buf));

	if (pid <= 0)
		return 0;
	snprintf(want, sizeof(want), "config %016llx\n", (unsigned long long)config_fingerprint(c));
	line = strchr(buf, '\n');
	return line && strcmp(line + 1, want) == 0 ? pid : 0;
}

/*
 * The lock could not be taken, and not because a run holds it. What may pass
 * (no memory, no file descriptor, /run full) is tried again each second; a
 * lock file that is not one (a symlink, a directory) will not heal: the
 * watcher says what is wrong and stops, and systemd shows why.
 */
static int lock_failed(struct watch *w, int r)
{
	char status[384];

	if (r == -ENOMEM || r == -ENFILE || r == -EMFILE || r == -ENOSPC || r == -EDQUOT ||
	    r == -EINTR || r == -EAGAIN) {
		if (w->lock_error != r)
			log_warning_errno(r, "cannot lock '%s': %m; trying again every %d s",
					  w->opt->lock_path, LOCK_RETRY_MS / 1000);
		w->lock_error = r;
		return 0;
	}
	log_error_errno(r,
			"cannot lock '%s': %m%s; it must be a regular file (or absent); the "
			"watcher stops",
			w->opt->lock_path, log_errno_hint(r));
	snprintf(status, sizeof(status), "STATUS=cannot lock '%s': %s\nERRNO=%d", w->opt->lock_path,
		 strerror(-r), -r);
	notify(w, status);
	return r;
}

int watch_run(const struct ibh_config *config, const struct ibh_watch_options *opt)
{
	struct watch w = { .config = malloc(sizeof(struct ibh_config)), .opt = opt };
	sigset_t mask;
	int sfd = -1, ufd = -1, afd = -1, r, rc = 1;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		log_error_errno(-errno, "cannot create a signalfd: %m");
		goto cleanup;
	}
	if (!w.config) {
		log_error_errno(-ENOMEM, "%m");
		goto cleanup;
	}
	*w.config = *config;
	r = kernel->monitor_open(opt->rcvbuf > 0 ? opt->rcvbuf : DEFAULT_RCVBUF, &w.mon);
	if (r < 0) {
		log_error_errno(r, "cannot open netlink: %m%s", log_errno_hint(r));
		goto cleanup;
	}
	/* engine_new() says why it failed */
	if (engine_new(w.config, &w.engine) < 0)
		goto cleanup;
	w.ev.main = engine_follow_main(w.engine);
	afd = watch_announce(engine_record_path(w.engine), w.config);
	if (afd < 0)
		log_debug("cannot announce the watcher in '%s.watch': %s",
			  engine_record_path(w.engine), strerror(-afd));
	/*
	 * RDMA devices register after their netdev is configured (mlx5_ib after
	 * mlx5_core; soft-RoCE from a script) and go away on a driver reload:
	 * their uevents make a pass over every link, as the selection follows them
	 */
	ufd = kernel->rdma_monitor_open();
	if (ufd < 0)
		log_warning_errno(ufd, "cannot listen for RDMA devices (uevents): %m; ports "
				       "whose RDMA device appears later are applied at their next "
				       "link or address event");
	/* subscribed before the first pass: nothing that happens during it is missed */
	w.ev.all = true;
	w.deadline = now_ms();
	for (bool ready = false;;) {
		struct pollfd fds[3] = {
			{ .fd = kernel->monitor_fd(w.mon), .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
			{ .fd = ufd, .events = POLLIN },
		};
		int timeout = next_timeout(&w);

		if (timeout == 0) {
			r = pass(&w);
			if (r < 0 && r != -ETIMEDOUT && lock_failed(&w, r) < 0)
				goto cleanup;
			if (r < 0)
				w.deadline = now_ms() + LOCK_RETRY_MS;
			else {
				if (w.lock_error)
					log_info("'%s' can be locked again", opt->lock_path);
				w.lock_error = 0;
			}
			if (r == 0 && !ready) {
				notify(&w, "READY=1\nSTATUS=watching");
				ready = true;
			}
			w.last_pass = now_ms();
			continue;
		}
		if (poll(fds, ufd >= 0 ? 3 : 2, timeout) < 0) {
			if (errno == EINTR)
				continue;
			log_error_errno(-errno, "poll: %m");
			goto cleanup;
		}
		if (fds[0].revents) {
			bool idle = !events_pending(&w.ev);

			r = kernel->monitor_read(w.mon, engine_port(w.engine), &w.ev);
			if (r < 0) {
				log_error_errno(r, "reading notifications: %m");
				goto cleanup;
			}
			if (idle && events_pending(&w.ev)) {
				int64_t now = now_ms();

				w.deadline =
					now - w.last_pass > BATCH_MS ? now : w.last_pass + BATCH_MS;
			}
		}
		if (ufd >= 0 && fds[2].revents) {
			bool idle = !w.ev.all && !w.ev.tables_changed && w.ev.n == 0, rdma = false;

			r = kernel->rdma_monitor_read(ufd, &rdma);
			if (r < 0) {
				log_warning_errno(r, "reading uevents: %m; no longer listening for "
						     "RDMA devices");
				close(ufd);
				ufd = -1;
			} else if (rdma) {
				log_debug("an RDMA device came, went or changed: looking at every "
					  "link");
				w.ev.all = true;
				if (idle)
					w.deadline = now_ms();
			}
		}
		if (fds[1].revents) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					notify(&w, "RELOADING=1");
					reload(&w);
					/* hook runs compare their configuration with this one */
					if (afd >= 0 && watch_write(afd, w.config) < 0)
						log_debug(
							"cannot announce the new configuration in "
							"'%s.watch'",
							engine_record_path(w.engine));
					w.deadline = now_ms();
					notify(&w, "READY=1");
					continue;
				}
				/* the kernel state stays as it is: routing keeps working without ib-hook */
				notify(&w, "STOPPING=1");
				rc = 0;
				goto cleanup;
			}
		}
	}
cleanup:
	if (afd >= 0) {
		char path[PATH_MAX];

		/* a watcher killed leaves its file unlocked, which says as much */
		snprintf(path, sizeof(path), "%s.watch", engine_record_path(w.engine));
		unlink(path);
		close(afd);
	}
	free(w.links);
	engine_free(w.engine);
	free(w.config);
	kernel->monitor_close(w.mon);
	if (ufd >= 0)
		close(ufd);
	if (sfd >= 0)
		close(sfd);
	return rc;
}
