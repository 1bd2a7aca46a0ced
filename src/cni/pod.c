// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A pod is a host of its own: the plugin enters the pod's network namespace
 * and runs the host engine there (observe -> plan -> apply, engine.c), so the
 * record is the namespace's (named by its cookie under /run/ib-hook, as on a
 * host) and goes with DEL. What a pod adds to a host run is only which
 * interfaces are managed: not [Match] globs but the attachments chained with
 * ib-hook, which the record names (the interfaces it holds rules and routes
 * for), plus the one of this call. Their tables stay those the record shows,
 * whatever this attachment's configuration says, so that one attachment's
 * ADD or DEL never moves another's; the settings that are one per namespace
 * (priority, IPv6, MainRoute) must agree. What the record cannot say (the
 * pod-wide settings the first attachment was added with, each attachment's
 * own sysctls) the container's file says: <state>/cni-<CNI_CONTAINERID>.
 */
/* setns() */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "json.h"
#include "kernel.h"
#include "lock.h"
#include "log.h"
#include "pod.h"
#include "record.h"
#include "sysctl.h"

#define LOCK_WAIT_SEC 30

/* an interface of this pod that holds ib-hook's rules and routes, other than the call's */
struct other {
	char ifname[IF_NAMESIZE];
	uint32_t table; /* of its rules or routes; 0: none seen */
};

struct others {
	struct other v[IBH_MAX_GLOBS - 1];
	size_t n;
	/* what the namespace holds of them: the settings that are one per namespace */
	uint32_t priority; /* 0: no rule */
	bool ipv6, main_deleted;
	/* the record is damaged: read as absent, it proves nothing ours */
	bool damaged;
	char why[128];
};

/* an attachment ib-hook added, as the container's file keeps it */
struct attachment {
	char ifname[IF_NAMESIZE];
	char network[64];	    /* the network's name; "-": none ib-hook can write */
	int sysctl[IBH_SYSCTL_MAX]; /* its own [Sysctl] values, or IBH_SYSCTL_KEEP */
};

/*
 * The container's file: the record's name (its first line, all that
 * versions before it wrote), the namespace's path (CNI_NETNS, for GC), the
 * pod-wide settings of the first attachment and every attachment added,
 * with its network:
 *	netns-c4242
 *	netns /var/run/netns/cni-1234
 *	pod 1000 yes keep
 *	attachment net1 rdma0 2 2 keep keep
 * An interface or network name holds no blank (the kernel refuses one in an
 * interface name, netconf.c keeps no such network name), so words split them.
 */
struct pod_file {
	char record[NAME_MAX + 1];
	char netns[PATH_MAX];
	bool decided; /* a "pod" line */
	uint32_t priority;
	bool ipv6;
	enum ibh_main_route main_route;
	struct attachment v[IBH_MAX_GLOBS - 1];
	size_t n;
};

static int fail(struct cni_error *err, enum cni_code code, const char *msg, const char *details)
{
	err->code = code;
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
	snprintf(err->details, sizeof(err->details), "%s", details ? details : "");
	return -1;
}

/* the engine said why (log_first_error); else what */
static int fail_engine(struct cni_error *err, enum cni_code code, const char *what)
{
	return fail(err, code, log_first_error()[0] ? log_first_error() : what, NULL);
}

static struct other *other_of(struct others *o, const char *ifname)
{
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->v[i].ifname, ifname) == 0)
			return &o->v[i];
	if (o->n == sizeof(o->v) / sizeof(o->v[0]))
		return NULL;
	snprintf(o->v[o->n].ifname, IF_NAMESIZE, "%s", ifname);
	return &o->v[o->n++];
}

static int read_others(const char *path, const char *ifname, struct others *ret)
{
	struct ibh_record rec = {};
	char why[128];
	int r = record_load_all(path, &rec, why, sizeof(why));

	memset(ret, 0, sizeof(*ret));
	/* as the host engine reads it: absent, which adopts nothing foreign */
	if (r == -EINVAL) {
		ret->damaged = true;
		snprintf(ret->why, sizeof(ret->why), "%s", why);
		log_warning("'%s' %s: damaged, read as absent", path, why);
		return 0;
	}
	if (r < 0)
		return r;
	for (size_t i = 0; i < rec.n; i++) {
		const struct ibh_rec *e = &rec.recs[i];
		struct other *o;
		uint8_t family = e->kind == IBH_REC_RULE ? e->rule.src.family : e->route.dst.family;

		if (e->kind == IBH_REC_LINK || strcmp(e->ifname, ifname) == 0)
			continue;
		o = other_of(ret, e->ifname);
		if (!o) {
			r = -E2BIG;
			break;
		}
		if (e->kind == IBH_REC_RULE) {
			o->table = e->rule.table;
			ret->priority = e->rule.priority;
		} else if (e->kind == IBH_REC_ROUTE && !o->table)
			o->table = e->route.table;
		ret->ipv6 |= family == AF_INET6;
		ret->main_deleted |= e->kind == IBH_REC_MAIN;
	}
	record_clear(&rec);
	return r;
}

/* a name as a [Match] glob that matches only itself */
static void glob_of(const char *name, char *buf, size_t size)
{
	size_t n = 0;

	for (const char *p = name; *p && n + 2 < size; p++) {
		if (strchr("*?[\\", *p))
			buf[n++] = '\\';
		buf[n++] = *p;
	}
	buf[n] = '\0';
}

static void set_table(struct ibh_config *c, const char *ifname, uint32_t table)
{
	for (size_t i = 0; i < c->n_tables; i++)
		if (strcmp(c->tables[i].ifname, ifname) == 0) {
			c->tables[i].table = table;
			return;
		}
	if (c->n_tables == IBH_MAX_TABLES)
		return;
	snprintf(c->tables[c->n_tables].ifname, IF_NAMESIZE, "%s", ifname);
	c->tables[c->n_tables++].table = table;
}

/* DEL took the last of ib-hook's objects: the record goes too, as with the namespace */
static void drop_empty_record(const char *path)
{
	struct ibh_record rec = {};
	char why[128];
	bool empty = true;

	if (record_load(path, &rec, why, sizeof(why)) < 0 || !rec.present)
		return;
	for (size_t i = 0; i < rec.n; i++)
		empty &= rec.recs[i].kind == IBH_REC_LINK;
	empty &= rec.n_parts == 0;
	record_clear(&rec);
	if (empty)
		unlink(path);
}

bool container_id_valid(const char *s)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
	size_t n = strlen(s);

	return n > 0 && n <= 240 && strspn(s, ok) == n && s[0] != '_' && s[0] != '.' &&
	       s[0] != '-';
}

/*
 * The container's file: <state>/cni-<CNI_CONTAINERID>. A DEL after the
 * namespace went cannot name the namespace any more; through the file it
 * still takes the record, which would otherwise stay in /run until the next
 * boot.
 */
static int pod_file_path(char *buf, size_t size, const char *container)
{
	int n = snprintf(buf, size, "%s/cni-%s", kernel->state_dir, container);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static void sysctl_word(int v, char *buf, size_t size)
{
	if (v == IBH_SYSCTL_KEEP)
		snprintf(buf, size, "keep");
	else
		snprintf(buf, size, "%d", v);
}

static int sysctl_of_word(const char *w, int *ret)
{
	char *end;
	long v;

	if (strcmp(w, "keep") == 0) {
		*ret = IBH_SYSCTL_KEEP;
		return 0;
	}
	v = strtol(w, &end, 10);
	if (*w == '\0' || *end != '\0' || v < 0 || v > 255)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

/* one line of the container's file; a line it does not know is skipped */
static void pod_file_line(struct pod_file *pf, char *line)
{
	char *w[3 + IBH_SYSCTL_MAX], *save = NULL;
	struct attachment a = {};
	unsigned int prio;
	size_t n = 0;

	line[strcspn(line, "\n")] = '\0';
	if (strncmp(line, "netns /", 7) == 0) {
		if (strlen(line + 6) < sizeof(pf->netns))
			memcpy(pf->netns, line + 6, strlen(line + 6) + 1);
		return;
	}
	for (char *t = strtok_r(line, " ", &save); t && n < 3 + IBH_SYSCTL_MAX;
	     t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	if (n == 4 && strcmp(w[0], "pod") == 0 && sscanf(w[1], "%u", &prio) == 1 &&
	    (strcmp(w[2], "yes") == 0 || strcmp(w[2], "no") == 0) &&
	    (strcmp(w[3], "keep") == 0 || strcmp(w[3], "delete") == 0)) {
		pf->decided = true;
		pf->priority = prio;
		pf->ipv6 = strcmp(w[2], "yes") == 0;
		pf->main_route = strcmp(w[3], "delete") == 0 ? IBH_MAIN_DELETE : IBH_MAIN_KEEP;
		return;
	}
	if (n != 3 + IBH_SYSCTL_MAX || strcmp(w[0], "attachment") != 0 ||
	    strlen(w[1]) >= sizeof(a.ifname) || strlen(w[2]) >= sizeof(a.network) ||
	    pf->n == sizeof(pf->v) / sizeof(pf->v[0]))
		return;
	snprintf(a.ifname, sizeof(a.ifname), "%s", w[1]);
	snprintf(a.network, sizeof(a.network), "%s", w[2]);
	for (int k = 0; k < IBH_SYSCTL_MAX; k++)
		if (sysctl_of_word(w[3 + k], &a.sysctl[k]) < 0)
			return;
	pf->v[pf->n++] = a;
}

/* the container's file at path; a missing one is empty */
static void pod_file_read_at(const char *path, struct pod_file *ret)
{
	char line[PATH_MAX + 16];
	struct stat st;
	FILE *f;
	int fd;

	memset(ret, 0, sizeof(*ret));
	/* O_NONBLOCK: a FIFO planted there must not hang the runtime */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "re"))) {
		close(fd);
		return;
	}
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line) < sizeof(ret->record))
			memcpy(ret->record, line, strlen(line) + 1);
	}
	while (fgets(line, sizeof(line), f))
		pod_file_line(ret, line);
	fclose(f);
}

static void pod_file_read(const char *container, struct pod_file *ret)
{
	char path[PATH_MAX];

	if (pod_file_path(path, sizeof(path), container) < 0)
		memset(ret, 0, sizeof(*ret));
	else
		pod_file_read_at(path, ret);
}

static void pod_file_write(const char *container, const struct pod_file *pf)
{
	char path[PATH_MAX], text[8192], v[IBH_SYSCTL_MAX][8];
	size_t len;
	int r;

	if (pod_file_path(path, sizeof(path), container) < 0)
		return;
	len = (size_t)snprintf(text, sizeof(text), "%s\n", pf->record);
	if (pf->netns[0] == '/' && !strchr(pf->netns, '\n'))
		len += (size_t)snprintf(text + len, sizeof(text) - len, "netns %s\n", pf->netns);
	if (pf->decided && len < sizeof(text))
		len += (size_t)snprintf(text + len, sizeof(text) - len, "pod %u %s %s\n",
					pf->priority, pf->ipv6 ? "yes" : "no",
					pf->main_route == IBH_MAIN_DELETE ? "delete" : "keep");
	for (size_t i = 0; i < pf->n && len < sizeof(text); i++) {
		for (int k = 0; k < IBH_SYSCTL_MAX; k++)
			sysctl_word(pf->v[i].sysctl[k], v[k], sizeof(v[k]));
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"attachment %s %s %s %s %s %s\n", pf->v[i].ifname,
					pf->v[i].network, v[0], v[1], v[2], v[3]);
	}
	r = record_write(path, text);
	if (r < 0)
		log_warning_errno(r, "cannot write '%s': %m (a DEL after the pod's namespace went "
				  "leaves its record)", path);
}

static struct attachment *attachment_of(struct pod_file *pf, const char *ifname)
{
	for (size_t i = 0; i < pf->n; i++)
		if (strcmp(pf->v[i].ifname, ifname) == 0)
			return &pf->v[i];
	return NULL;
}

static void attachment_drop(struct pod_file *pf, const char *ifname)
{
	struct attachment *a = attachment_of(pf, ifname);

	if (!a)
		return;
	memmove(a, a + 1, (size_t)(pf->v + pf->n - (a + 1)) * sizeof(*a));
	pf->n--;
}

/* the attachment first added of those but ifname; NULL: ifname's settings decide */
static const struct attachment *first_other(const struct pod_file *pf, const char *ifname)
{
	for (size_t i = 0; i < pf->n; i++)
		if (strcmp(pf->v[i].ifname, ifname) != 0)
			return &pf->v[i];
	return NULL;
}

static void pod_file_drop(const char *container)
{
	char path[PATH_MAX];

	if (pod_file_path(path, sizeof(path), container) == 0)
		(void)unlink(path);
}

/* a record named by a namespace's cookie, which no later namespace has (netns-c<N>) */
static bool cookie_record(const char *name)
{
	return strncmp(name, "netns-c", 7) == 0 && name[7] &&
	       strspn(name + 7, "0123456789") == strlen(name + 7);
}

/*
 * DEL after the namespace went: the kernel took ib-hook's objects with it;
 * the record the container's file names goes too, when it is named by the
 * namespace's cookie. One named by an inode (kernels before 5.14) stays: a
 * later namespace may have that inode, and its own record is that file
 * (engine's witnesses tell the two apart).
 */
static void drop_gone(const char *container)
{
	char path[PATH_MAX], name[NAME_MAX + 2] = "";
	FILE *f;

	if (pod_file_path(path, sizeof(path), container) < 0)
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(name, sizeof(name), f))
		name[strcspn(name, "\n")] = 0;
	fclose(f);
	if (cookie_record(name)) {
		char rec[PATH_MAX];

		snprintf(rec, sizeof(rec), "%s/%s", kernel->state_dir, name);
		if (record_remove(rec) == 0)
			log_info("%s: the pod's namespace is gone: its record %s too", container,
				 rec);
	}
	(void)unlink(path);
}

/* CHECK: --status of the interface; its text is the error's details */
static int check(struct ibh_engine *e, const char *ifname, struct cni_error *err)
{
	struct ibh_request req = { .action = IBH_ACTION_APPLY, .mode = IBH_MODE_STATUS };
	enum ibh_result res;
	char *text = NULL;
	size_t len = 0;

	req.out = open_memstream(&text, &len);
	if (!req.out)
		return fail(err, CNI_ERR_IO, "out of memory", NULL);
	res = engine_run(e, ifname, &req);
	if (res == IBH_OK)
		res = engine_end(e, &req);
	else
		(void)engine_end(e, &req);
	fclose(req.out);
	if (res != IBH_OK && !log_first_error()[0]) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s is not as ib-hook's ADD left it", ifname);
		fail(err, CNI_ERR_DRIFT, msg, text);
	} else if (res != IBH_OK)
		fail(err, CNI_ERR_DRIFT, log_first_error(), text);
	free(text);
	return res == IBH_OK ? 0 : -1;
}

static const char *main_word(enum ibh_main_route m)
{
	return m == IBH_MAIN_DELETE ? "delete" : "keep";
}

/*
 * The pod-wide settings against those the first attachment was added with:
 * refused in either direction, before anything is changed
 */
static int pod_settings_agree(const struct pod_file *pf, const struct ibh_config *c,
			      struct cni_error *err)
{
	char msg[128], details[512], had[16], asked[16];
	const char *key = NULL;

	if (pf->priority != c->priority) {
		key = "priority";
		snprintf(had, sizeof(had), "%u", pf->priority);
		snprintf(asked, sizeof(asked), "%u", c->priority);
	} else if (pf->ipv6 != c->ipv6) {
		key = "ipv6";
		snprintf(had, sizeof(had), "%s", pf->ipv6 ? "true" : "false");
		snprintf(asked, sizeof(asked), "%s", c->ipv6 ? "true" : "false");
	} else if (pf->main_route != c->main_route) {
		key = "mainRoute";
		snprintf(had, sizeof(had), "\"%s\"", main_word(pf->main_route));
		snprintf(asked, sizeof(asked), "\"%s\"", main_word(c->main_route));
	}
	if (!key)
		return 0;
	snprintf(msg, sizeof(msg), "every ib-hook attachment of a pod needs the same \"%s\"", key);
	snprintf(details, sizeof(details),
		 "the pod's ib-hook attachments (%s the first of them) have \"%s\": %s; this "
		 "configuration asks for %s",
		 pf->v[0].ifname, key, had, asked);
	return fail(err, CNI_ERR_CONFIG, msg, details);
}

/*
 * The configuration of this call for the namespace: the managed interfaces
 * are ifname and the others; the others keep their tables. ADD and CHECK
 * refuse a setting that is one per namespace and differs from the first
 * attachment's (the container's file says them; a record without that file,
 * as versions before it wrote, says what its rules show); DEL takes the
 * pod's, so that it never moves the others.
 */
static int pod_config(enum pod_command cmd, const char *ifname, const struct others *o,
		      const struct pod_file *pf, struct ibh_config *c, struct cni_error *err)
{
	char details[512];

	c->n_globs = 0;
	glob_of(ifname, c->globs[c->n_globs++], IBH_MAX_GLOB_LEN);
	for (size_t i = 0; i < o->n; i++) {
		glob_of(o->v[i].ifname, c->globs[c->n_globs++], IBH_MAX_GLOB_LEN);
		if (o->v[i].table)
			set_table(c, o->v[i].ifname, o->v[i].table);
	}
	if (cmd == POD_DEL) {
		if (pf->decided) {
			c->priority = pf->priority;
			c->ipv6 = pf->ipv6;
			c->main_route = pf->main_route;
		}
		if (o->priority)
			c->priority = o->priority;
		c->ipv6 |= o->ipv6;
		if (o->main_deleted)
			c->main_route = IBH_MAIN_DELETE;
		return 0;
	}
	if (pf->decided && first_other(pf, ifname))
		return pod_settings_agree(pf, c, err);
	if (o->priority && o->priority != c->priority) {
		snprintf(
			details, sizeof(details),
			"the pod's other ib-hook attachments have their rules at priority %u, this "
			"configuration asks for %u",
			o->priority, c->priority);
		return fail(err, CNI_ERR_CONFIG,
			    "every ib-hook attachment of a pod needs the same \"priority\"",
			    details);
	}
	if (o->ipv6 && !c->ipv6)
		return fail(err, CNI_ERR_CONFIG,
			    "every ib-hook attachment of a pod needs the same \"ipv6\"",
			    "the pod's other attachments have IPv6 rules, this configuration says "
			    "\"ipv6\": false");
	if (o->main_deleted && c->main_route != IBH_MAIN_DELETE)
		return fail(
			err, CNI_ERR_CONFIG,
			"every ib-hook attachment of a pod needs the same \"mainRoute\"",
			"the pod's other attachments were added with \"mainRoute\": \"delete\"");
	return 0;
}

/*
 * Each ADD re-checks the ARP (and rp_filter, accept_local) settings of the
 * pod's other ib-hook attachments: an interface answers ARP for its
 * neighbours' addresses too, so this attachment is only right when they are
 * (another plugin, a tuning step or the workload may have changed them).
 * Each is held to its own configuration's values, never to this one's: a
 * key it leaves alone stays alone.
 */
static int recheck_sysctls(const struct pod_file *pf, const char *ifname)
{
	for (size_t i = 0; i < pf->n; i++) {
		const struct attachment *a = &pf->v[i];

		if (strcmp(a->ifname, ifname) == 0)
			continue;
		for (int k = 0; k < IBH_SYSCTL_MAX; k++) {
			int want = a->sysctl[k], have, r;

			if (want == IBH_SYSCTL_KEEP)
				continue;
			have = kernel->sysctl_read(a->ifname, (enum ibh_sysctl)k);
			/* gone: its own DEL comes */
			if (have == -ENOENT || have == -ENODEV || have == want)
				continue;
			r = kernel->sysctl_write(a->ifname, (enum ibh_sysctl)k, want);
			if (r < 0)
				return log_error_errno(r, "%s: cannot set %s to %d: %m", a->ifname,
						       sysctl_name((enum ibh_sysctl)k), want);
			log_info("%s: %s %d -> %d", a->ifname, sysctl_name((enum ibh_sysctl)k),
				 have, want);
		}
	}
	return 0;
}

/*
 * A failed ADD takes back what it installed for ifname: the runtime holds the
 * attachment as never added, and a DEL may never come (or come after the
 * namespace went, when only the record would be left)
 */
static void take_back(struct ibh_engine *e, const char *ifname)
{
	struct ibh_request req = {
		.action = IBH_ACTION_REMOVE, .mode = IBH_MODE_CHANGE, .hook = true, .out = stdout
	};

	engine_invalidate(e);
	if (engine_run(e, ifname, &req) == IBH_OK)
		(void)engine_end(e, &req);
}

static void attachment_set(struct pod_file *pf, const char *ifname, const char *network,
			   const struct ibh_config *c)
{
	struct attachment *a = attachment_of(pf, ifname);

	/* the first attachment, or the only one added again, decides for the pod */
	if (!first_other(pf, ifname)) {
		pf->decided = true;
		pf->priority = c->priority;
		pf->ipv6 = c->ipv6;
		pf->main_route = c->main_route;
	}
	if (!a) {
		if (pf->n == sizeof(pf->v) / sizeof(pf->v[0]))
			return;
		a = &pf->v[pf->n++];
		snprintf(a->ifname, sizeof(a->ifname), "%s", ifname);
	}
	snprintf(a->network, sizeof(a->network), "%s", network[0] ? network : "-");
	memcpy(a->sysctl, c->sysctl, sizeof(a->sysctl));
}

static int run(enum pod_command cmd, const char *netns, const char *container,
	       const char *ifname, const struct cni_netconf *nc, struct ibh_config *c,
	       struct cni_error *err)
{
	struct ibh_request req = { .action = cmd == POD_DEL ? IBH_ACTION_REMOVE : IBH_ACTION_APPLY,
				   .mode = IBH_MODE_CHANGE,
				   .hook = cmd == POD_DEL,
				   .out = stdout };
	const char *name[1] = { ifname }, *path, *base;
	struct ibh_engine *e = NULL;
	struct pod_file pf;
	struct others o;
	enum ibh_result res;
	int r;

	*c = nc->config;
	if (engine_new(c, &e) < 0)
		return fail_engine(err, CNI_ERR_APPLY, "cannot open netlink in the pod");
	path = engine_record_path(e);
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	pod_file_read(container, &pf);
	r = read_others(path, ifname, &o);
	if (r < 0) {
		engine_free(e);
		return fail(err, CNI_ERR_APPLY, "cannot read ib-hook's record of the pod",
			    strerror(-r));
	}
	if (pod_config(cmd, ifname, &o, &pf, c, err) < 0) {
		engine_free(e);
		return -1;
	}
	engine_set_config(e, c);
	if (cmd != POD_DEL && engine_find_links(e, name, 1) != IBH_OK) {
		engine_free(e);
		return fail_engine(err, CNI_ERR_CONTAINER, "no such interface in the pod");
	}
	if (cmd == POD_CHECK) {
		r = check(e, ifname, err);
		engine_free(e);
		return r;
	}
	/*
	 * A damaged record proves nothing of the interface's ib-hook's: DEL
	 * removes nothing, says so and succeeds, so that the runtime can finish
	 * the pod's teardown (the namespace takes the rest with it)
	 */
	if (cmd == POD_DEL && o.damaged) {
		log_warning("%s: the pod's record '%s' is damaged (%s): DEL leaves the rules and "
			    "routes of %s it may name, which nothing proves ib-hook's",
			    ifname, path, o.why, ifname);
		attachment_drop(&pf, ifname);
		if (pf.record[0])
			pod_file_write(container, &pf);
		engine_free(e);
		return 0;
	}
	/* ahead of the record: a DEL after the namespace went finds it, also after a crash */
	if (cmd == POD_ADD && (strcmp(pf.record, base) != 0 || strcmp(pf.netns, netns) != 0)) {
		snprintf(pf.record, sizeof(pf.record), "%s", base);
		snprintf(pf.netns, sizeof(pf.netns), "%s", netns);
		pod_file_write(container, &pf);
	}
	res = engine_run(e, ifname, &req);
	if (res == IBH_OK && cmd == POD_ADD && recheck_sysctls(&pf, ifname) < 0)
		res = IBH_FAILED;
	if (res == IBH_OK)
		res = engine_end(e, &req);
	if (cmd == POD_ADD && res != IBH_OK)
		take_back(e, ifname);
	if (cmd == POD_ADD && res == IBH_OK)
		attachment_set(&pf, ifname, nc->name, c);
	else if (cmd == POD_ADD || res == IBH_OK)
		attachment_drop(&pf, ifname);
	if (cmd == POD_ADD || res == IBH_OK) {
		drop_empty_record(path);
		if (pf.n == 0 && access(path, F_OK) < 0 && errno == ENOENT)
			pod_file_drop(container);
		else if (pf.record[0])
			pod_file_write(container, &pf);
	}
	engine_free(e);
	if (res != IBH_OK)
		return fail_engine(err, CNI_ERR_APPLY,
				   cmd == POD_DEL ? "cannot remove" : "cannot apply");
	return 0;
}

int pod_run(enum pod_command cmd, const char *netns, const char *container, const char *ifname,
	    const struct cni_netconf *nc, const char *lock_path, struct cni_error *err)
{
	struct ibh_config *c;
	int fd, lock, r;

	fd = netns && *netns ? open(netns, O_RDONLY | O_CLOEXEC) : -ENOENT;
	if (fd < 0 && netns && *netns)
		fd = -errno;
	/* DEL after the namespace went: nothing of ib-hook's is left but the record */
	if (fd == -ENOENT && cmd == POD_DEL) {
		lock = lock_take(lock_path, LOCK_WAIT_SEC);
		if (lock < 0)
			return fail(err, lock == -ETIMEDOUT ? CNI_ERR_APPLY : CNI_ERR_IO,
				    "cannot take ib-hook's run lock", strerror(-lock));
		drop_gone(container);
		close(lock);
		return 0;
	}
	if (fd < 0)
		return fail(err, CNI_ERR_CONTAINER, "cannot open the pod's network namespace",
			    strerror(-fd));
	if (setns(fd, CLONE_NEWNET) < 0) {
		r = -errno;
		close(fd);
		return fail(err, r == -EINVAL ? CNI_ERR_ENV : CNI_ERR_CONTAINER,
			    "cannot enter the pod's network namespace (CNI_NETNS)", strerror(-r));
	}
	close(fd);
	lock = lock_take(lock_path, LOCK_WAIT_SEC);
	if (lock < 0)
		return fail(err, lock == -ETIMEDOUT ? CNI_ERR_APPLY : CNI_ERR_IO,
			    "cannot take ib-hook's run lock", strerror(-lock));
	c = malloc(sizeof(*c));
	r = c ? run(cmd, netns, container, ifname, nc, c, err)
	      : fail(err, CNI_ERR_IO, "out of memory", NULL);
	free(c);
	close(lock);
	return r;
}

/* GC: the runtime lists container and ifname of every attachment of the network it keeps */
static bool listed(const struct json *valid, const char *container, const char *ifname)
{
	for (size_t i = 0; i < valid->n_items; i++) {
		const char *c = json_get_string(valid->items[i], "containerID");
		const char *n = json_get_string(valid->items[i], "ifname");

		if (c && n && strcmp(c, container) == 0 && strcmp(n, ifname) == 0)
			return true;
	}
	return false;
}

/*
 * One container's file: its attachments of this network that the runtime
 * no longer lists are DELeted inside their namespace, as their DEL would;
 * a namespace that is gone (or whose path now names another, as a reused
 * /proc/PID does) takes its record and the file. Those of other networks
 * are theirs to collect. 0, or -1 with err filled; host is the node's
 * network namespace, where it returns.
 */
static int gc_container(const char *container, const struct cni_netconf *nc,
			const struct json *valid, int host, struct ibh_config *c,
			struct cni_error *err)
{
	char stale[IBH_MAX_GLOBS - 1][IF_NAMESIZE];
	struct ibh_engine *e = NULL;
	struct pod_file pf;
	size_t n_stale = 0;
	const char *path;
	bool same;
	int fd, r = 0;

	pod_file_read(container, &pf);
	for (size_t i = 0; i < pf.n; i++)
		if (strcmp(pf.v[i].network, nc->name) == 0 &&
		    !listed(valid, container, pf.v[i].ifname))
			snprintf(stale[n_stale++], IF_NAMESIZE, "%s", pf.v[i].ifname);
	/* a file of a version before GC names no namespace: left to its DEL */
	if (!pf.netns[0])
		return 0;
	fd = open(pf.netns, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		drop_gone(container);
		return 0;
	}
	if (fd < 0 || n_stale == 0) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		close(fd);
		return 0;
	}
	close(fd);
	same = engine_new(&nc->config, &e) == 0;
	if (same) {
		path = engine_record_path(e);
		same = strcmp(strrchr(path, '/') ? strrchr(path, '/') + 1 : path, pf.record) == 0;
	}
	engine_free(e);
	for (size_t i = 0; same && i < n_stale && r == 0; i++) {
		log_info("%s: %s is no attachment the runtime keeps: collected", container,
			 stale[i]);
		r = run(POD_DEL, pf.netns, container, stale[i], nc, c, err);
	}
	if (setns(host, CLONE_NEWNET) < 0)
		return fail(err, CNI_ERR_IO, "cannot return to the node's network namespace",
			    strerror(errno));
	if (!same)
		drop_gone(container);
	return r;
}

int pod_gc(const struct cni_netconf *nc, const char *text, const char *lock_path,
	   struct cni_error *err)
{
	char (*names)[NAME_MAX + 1] = NULL;
	struct json *valid = NULL;
	struct ibh_config *c = NULL;
	size_t n = 0, cap = 0, at = 0;
	int host = -1, lock = -1, r = 0;
	const char *end;
	struct dirent *de;
	char *list;
	DIR *d;

	/* no list, or a network whose name ib-hook does not keep: nothing is known stale */
	if (!nc->has_valid || !nc->name[0])
		return 0;
	list = strndup(text + nc->valid_start, nc->valid_end - nc->valid_start);
	if (!list || json_parse(list, &end, &at, &valid) < 0) {
		free(list);
		return fail(err, CNI_ERR_DECODE, "cannot read \"cni.dev/valid-attachments\"", NULL);
	}
	free(list);
	c = malloc(sizeof(*c));
	host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (!c || host < 0) {
		r = fail(err, CNI_ERR_IO, "cannot open the node's network namespace",
			 strerror(c ? errno : ENOMEM));
		goto cleanup;
	}
	lock = lock_take(lock_path, LOCK_WAIT_SEC);
	if (lock < 0) {
		r = fail(err, lock == -ETIMEDOUT ? CNI_ERR_APPLY : CNI_ERR_IO,
			 "cannot take ib-hook's run lock", strerror(-lock));
		goto cleanup;
	}
	/* the names first: collecting deletes files of the directory */
	d = opendir(kernel->state_dir);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "cni-", 4) != 0 || !container_id_valid(de->d_name + 4))
			continue;
		if (n == cap) {
			void *more = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*names));

			if (!more)
				break;
			names = more;
		}
		snprintf(names[n++], sizeof(names[0]), "%s", de->d_name + 4);
	}
	if (d)
		closedir(d);
	/* every container, whatever one of them says: the error is the first one's */
	for (size_t i = 0; i < n; i++) {
		struct cni_error later;

		if (gc_container(names[i], nc, valid, host, c, r < 0 ? &later : err) < 0)
			r = -1;
	}
cleanup:
	if (lock >= 0)
		close(lock);
	if (host >= 0)
		close(host);
	free(names);
	free(c);
	json_free(valid);
	return r;
}
