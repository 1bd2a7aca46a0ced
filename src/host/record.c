// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ib-hook owns exactly what it recorded here before it installed it. The
 * record is written ahead of every add (a crash then leaves an entry for an
 * object that is not there, which the next run forgets) and after every
 * delete, always by rename(2) over the old file, under the run lock. It
 * also names the links ib-hook has planned for: a link it does not name yet
 * (the first run since boot, or an upgrade from 0.1.0, which kept no record)
 * has what apply would install adopted, and nothing else (plan.c).
 *
 * Without the netns cookie (before Linux 5.14) the file is named by the
 * inode of the namespace, which a later namespace gets once this one is
 * gone. There the record also lists witnesses: the addresses of lo and of
 * the links it names, each with the time the kernel added it (IFA_CACHEINFO,
 * 1/100 s since boot). A record is this namespace's only if one of them is
 * still here, the same link, address and time: a later namespace with the
 * inode was made after this one died, after the record was last written, so
 * every address it holds is younger than every witness (observe.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "ip.h"
#include "kernel.h"
#include "record.h"

#define HEADER "# ib-hook record 1: what ib-hook installed in this network namespace\n"

bool rec_same_object(const struct ibh_rec *a, const struct ibh_rec *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == IBH_REC_LINK)
		return a->ifindex == b->ifindex && strcmp(a->ifname, b->ifname) == 0;
	if (a->kind == IBH_REC_RULE)
		return rule_same_key(&a->rule, &b->rule);
	return route_same_key(&a->route, &b->route, a->kind == IBH_REC_MAIN);
}

/*
 * The entries by the fields that name them: a record holds an entry per copy
 * of main's routes, and a host that routes may have tens of thousands, which
 * every plan asks about one by one. A hash of those fields, with a chain per
 * bucket through next[]: made when first asked, kept by record_add() and
 * record_forget(), made again when the entries changed otherwise (a count
 * or an array that is not the one indexed).
 */
#define NONE ((size_t)-1)

struct ibh_record_index {
	const struct ibh_rec *recs;
	size_t n;
	size_t *head, mask;
	size_t *next, cap;
};

/* what rec_same_object() compares first, hashed: the same object hashes alike */
static uint32_t rec_hash(const struct ibh_rec *rec)
{
	uint32_t h = 2166136261u ^ (uint32_t)rec->kind;

	switch (rec->kind) {
	case IBH_REC_LINK:
		return (h ^ (uint32_t)rec->ifindex) * 16777619u;
	case IBH_REC_RULE:
		h = ip_hash(&rec->rule.src, h);
		return ((h ^ rec->rule.table) * 16777619u ^ rec->rule.priority) * 16777619u;
	default:
		h = ip_hash(&rec->route.dst, h);
		return ((h ^ rec->route.table) * 16777619u ^ (uint32_t)rec->route.oif) * 16777619u;
	}
}

static void index_free(struct ibh_record_index *x)
{
	if (!x)
		return;
	free(x->head);
	free(x->next);
	free(x);
}

void record_clear(struct ibh_record *r)
{
	free(r->recs);
	free(r->wits);
	index_free(r->index);
	memset(r, 0, sizeof(*r));
}

static bool index_current(const struct ibh_record *r)
{
	return r->index && r->index->recs == r->recs && r->index->n == r->n;
}

static void index_link(struct ibh_record_index *x, size_t i)
{
	size_t b = rec_hash(&x->recs[i]) & x->mask;

	x->next[i] = x->head[b];
	x->head[b] = i;
}

static void index_unlink(struct ibh_record_index *x, size_t i)
{
	size_t *p = &x->head[rec_hash(&x->recs[i]) & x->mask];

	while (*p != NONE && *p != i)
		p = &x->next[*p];
	if (*p == i)
		*p = x->next[i];
}

/* the index of r's entries as they are now: 0, or -ENOMEM (and no index) */
static int index_make(struct ibh_record *r)
{
	struct ibh_record_index *x = r->index;
	size_t buckets = 64;

	while (buckets < 2 * r->n)
		buckets *= 2;
	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x)
			return -ENOMEM;
		r->index = x;
	}
	if (x->mask + 1 != buckets || !x->head) {
		free(x->head);
		x->head = malloc(buckets * sizeof(*x->head));
		x->mask = buckets - 1;
	}
	if (x->cap < r->cap || !x->next) {
		free(x->next);
		x->cap = r->cap > 16 ? r->cap : 16;
		x->next = malloc(x->cap * sizeof(*x->next));
	}
	if (!x->head || !x->next) {
		index_free(x);
		r->index = NULL;
		return -ENOMEM;
	}
	for (size_t b = 0; b < buckets; b++)
		x->head[b] = NONE;
	x->recs = r->recs;
	x->n = r->n;
	for (size_t i = 0; i < r->n; i++)
		index_link(x, i);
	return 0;
}

struct ibh_rec *record_find(const struct ibh_record *r, const struct ibh_rec *rec)
{
	/* the index is a cache of the entries: kept beside them, not part of their value */
	struct ibh_record *m = (struct ibh_record *)r;

	if (!index_current(r) && index_make(m) < 0) {
		for (size_t i = 0; i < r->n; i++)
			if (rec_same_object(&r->recs[i], rec))
				return &r->recs[i];
		return NULL;
	}
	for (size_t i = r->index->head[rec_hash(rec) & r->index->mask]; i != NONE;
	     i = r->index->next[i])
		if (rec_same_object(&r->recs[i], rec))
			return &r->recs[i];
	return NULL;
}

int record_add(struct ibh_record *r, const struct ibh_rec *rec)
{
	struct ibh_rec *have = record_find(r, rec);
	bool indexed = index_current(r);

	if (have) {
		*have = *rec;
		return 0;
	}
	if (array_grow(&r->recs, &r->cap, r->n, sizeof(*rec), 16) < 0)
		return -ENOMEM;
	r->recs[r->n++] = *rec;
	/* the index follows, unless it must grow: then it is made again when asked */
	if (indexed && r->n <= r->index->cap && 2 * r->n <= r->index->mask + 1) {
		r->index->recs = r->recs;
		r->index->n = r->n;
		index_link(r->index, r->n - 1);
	}
	return 0;
}

void record_forget(struct ibh_record *r, const struct ibh_rec *rec)
{
	struct ibh_rec *have = record_find(r, rec);
	size_t i, last;

	if (!have)
		return;
	i = (size_t)(have - r->recs);
	last = r->n - 1;
	if (index_current(r)) {
		index_unlink(r->index, i);
		if (last != i)
			index_unlink(r->index, last);
	}
	*have = r->recs[last];
	r->n--;
	if (r->index && r->index->recs == r->recs && r->index->n == r->n + 1) {
		r->index->n = r->n;
		if (last != i)
			index_link(r->index, i);
	}
}

/* the links that vouch: lo (ifindex 1, in every namespace) and those the record names */
static bool vouches(const int *links, size_t n, int ifindex)
{
	for (size_t i = 0; i < n; i++)
		if (links[i] == ifindex)
			return true;
	return false;
}

int record_witness(struct ibh_record *r, const struct ibh_addr_entry *addrs, size_t n)
{
	int *links = NULL;
	size_t n_links = 0, cap = 0;
	int e = 0;

	r->n_wits = 0;
	for (size_t i = 0; i <= r->n && e == 0; i++) {
		int ifindex = i < r->n ? r->recs[i].ifindex : 1;

		if (ifindex <= 0 || vouches(links, n_links, ifindex))
			continue;
		e = array_grow(&links, &cap, n_links, sizeof(*links), 8);
		if (e == 0)
			links[n_links++] = ifindex;
	}
	for (size_t i = 0; i < n && e == 0; i++) {
		/* a kernel without IFA_CACHEINFO says nothing that tells two addresses apart */
		if (!addrs[i].addr.created || !vouches(links, n_links, addrs[i].ifindex))
			continue;
		e = array_grow(&r->wits, &r->cap_wits, r->n_wits, sizeof(*r->wits), 8);
		if (e == 0)
			r->wits[r->n_wits++] = (struct ibh_witness){
				.ifindex = addrs[i].ifindex,
				.ip = addrs[i].addr.ip,
				.created = addrs[i].addr.created,
			};
	}
	free(links);
	return e < 0 ? -ENOMEM : 0;
}

static int cmp_created(const void *a, const void *b)
{
	uint32_t x = ((const struct ibh_addr_entry *)a)->addr.created,
		 y = ((const struct ibh_addr_entry *)b)->addr.created;

	return x < y ? -1 : x > y;
}

int record_witnessed(const struct ibh_record *r, const struct ibh_addr_entry *addrs, size_t n)
{
	struct ibh_addr_entry *by_time;
	bool found = false;

	if (r->n_wits == 0 || n == 0)
		return 0;
	/* sorted by time: a record's witnesses and a namespace's addresses may be thousands */
	by_time = malloc(n * sizeof(*by_time));
	if (!by_time)
		return -ENOMEM;
	memcpy(by_time, addrs, n * sizeof(*by_time));
	qsort(by_time, n, sizeof(*by_time), cmp_created);
	for (size_t i = 0; i < r->n_wits && !found; i++) {
		const struct ibh_witness *w = &r->wits[i];
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (by_time[mid].addr.created < w->created)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && by_time[lo].addr.created == w->created && !found; lo++)
			found = by_time[lo].ifindex == w->ifindex &&
				ip_equal(&by_time[lo].addr.ip, &w->ip);
	}
	free(by_time);
	return found;
}

/* "witness IFINDEX ADDRESS/LEN CREATED" */
static void witness_format(char *buf, size_t size, const struct ibh_witness *w)
{
	char ip[64];

	snprintf(buf, size, "witness %d %s %" PRIu32, w->ifindex,
		 ip_to_record(&w->ip, ip, sizeof(ip), true), w->created);
}

static int witness_parse(const char *line, struct ibh_witness *ret)
{
	char ip[64];
	struct ibh_witness w = {};
	int end = -1;

	if (sscanf(line, "witness %d %63s %" SCNu32 "%n", &w.ifindex, ip, &w.created, &end) != 3 ||
	    end < 0 || line[end] != '\0' || w.ifindex <= 0 || w.created == 0 ||
	    ip_from_record(ip, &w.ip, true) < 0 || w.ip.family == 0)
		return -EINVAL;
	*ret = w;
	return 0;
}

static const char *const kind_names[] = {
	[IBH_REC_RULE] = "rule",
	[IBH_REC_ROUTE] = "route",
	[IBH_REC_MAIN] = "main",
	[IBH_REC_LINK] = "link",
};

void rec_format(char *buf, size_t size, const struct ibh_rec *rec)
{
	char fields[1024] = "";

	if (rec->kind == IBH_REC_RULE)
		rule_to_record(fields, sizeof(fields), &rec->rule);
	else if (rec->kind != IBH_REC_LINK)
		route_to_record(fields, sizeof(fields), &rec->route, rec->kind == IBH_REC_MAIN);
	snprintf(buf, size, "%s %s %d%s%s", kind_names[rec->kind], rec->ifname, rec->ifindex,
		 fields[0] ? " " : "", fields);
}

int rec_parse(const char *line, struct ibh_rec *ret)
{
	char kind[8], ifname[IF_NAMESIZE + 1];
	struct ibh_rec rec = {};
	int ifindex, rest = -1, r;
	size_t k;

	if (sscanf(line, "%7s %16s %d %n", kind, ifname, &ifindex, &rest) != 3 ||
	    strlen(ifname) >= IF_NAMESIZE || rest < 0)
		return -EINVAL;
	for (k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (strcmp(kind, kind_names[k]) == 0)
			break;
	if (k == sizeof(kind_names) / sizeof(kind_names[0]))
		return -EINVAL;
	rec.kind = (enum ibh_rec_kind)k;
	snprintf(rec.ifname, sizeof(rec.ifname), "%s", ifname);
	rec.ifindex = ifindex;
	if (rec.kind == IBH_REC_RULE)
		r = rule_from_record(line + rest, &rec.rule);
	else if (rec.kind == IBH_REC_LINK)
		r = line[rest] == '\0' ? 0 : -EINVAL;
	else
		r = route_from_record(line + rest, &rec.route, rec.kind == IBH_REC_MAIN);
	if (r < 0)
		return r;
	*ret = rec;
	return 0;
}

/* what a file that is not a regular one is, for the message */
static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "is a directory";
	case S_IFIFO:
		return "is a FIFO";
	case S_IFLNK:
		return "is a symbolic link";
	case S_IFCHR:
		return "is a character device";
	case S_IFBLK:
		return "is a block device";
	case S_IFSOCK:
		return "is a socket";
	}
	return "is not a regular file";
}

/*
 * Opened so that nothing can block or be followed (a FIFO, a link to
 * /dev/zero): apply holds the host-wide lock while it reads. Anything but a
 * regular file of at most RECORD_MAX_BYTES is damaged, and why says what.
 */
static int open_record(const char *path, FILE **ret, char *why, size_t size)
{
	struct stat st;
	FILE *f;
	int fd, e;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		/* ELOOP for a link, ENXIO for a socket: say what is there */
		if (e != -ENOENT && lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			snprintf(why, size, "%s", file_kind(st.st_mode));
			return -EINVAL;
		}
		return e;
	}
	if (fstat(fd, &st) < 0) {
		e = -errno;
		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > RECORD_MAX_BYTES) {
		close(fd);
		if (S_ISREG(st.st_mode))
			snprintf(why, size, "is larger than %d bytes", RECORD_MAX_BYTES);
		else
			snprintf(why, size, "%s", file_kind(st.st_mode));
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		e = -errno;
		close(fd);
		return e;
	}
	*ret = f;
	return 0;
}

int record_load(const char *path, struct ibh_record *ret, char *why, size_t size)
{
	struct ibh_record r = {};
	char *line = NULL;
	size_t cap = 0, total = 0;
	unsigned int n = 0;
	ssize_t len;
	FILE *f = NULL;
	int e;

	e = open_record(path, &f, why, size);
	if (e == -ENOENT) {
		*ret = r;
		return 0;
	}
	if (e < 0)
		return e;
	r.present = true;
	while (e == 0 && (len = getline(&line, &cap, f)) > 0) {
		struct ibh_witness wit;
		struct ibh_rec rec;

		n++;
		total += (size_t)len;
		/* it grew since fstat() */
		if (total > RECORD_MAX_BYTES) {
			snprintf(why, size, "is larger than %d bytes", RECORD_MAX_BYTES);
			e = -EINVAL;
			break;
		}
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (line[0] == '#' || len == 0)
			continue;
		/* a NUL byte ends the text rec_parse sees: such a line is no entry either */
		if (strlen(line) != (size_t)len)
			e = -EINVAL;
		else if (strncmp(line, "witness ", 8) == 0)
			e = witness_parse(line, &wit);
		else
			e = rec_parse(line, &rec);
		if (e == -EINVAL)
			snprintf(why, size, "has a line that is no record entry (line %u)", n);
		if (e == 0 && strncmp(line, "witness ", 8) == 0) {
			e = array_grow(&r.wits, &r.cap_wits, r.n_wits, sizeof(wit), 8);
			if (e == 0)
				r.wits[r.n_wits++] = wit;
		} else if (e == 0)
			e = record_add(&r, &rec);
	}
	if (e == 0 && ferror(f))
		e = -EIO;
	free(line);
	fclose(f);
	if (e < 0) {
		record_clear(&r);
		return e;
	}
	*ret = r;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *record_text(const struct ibh_record *r)
{
	size_t n = r->n + r->n_wits, len = strlen(HEADER) + 1;
	char line[1100], **lines = calloc(n ? n : 1, sizeof(*lines)), *text = NULL;

	if (!lines)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i < r->n)
			rec_format(line, sizeof(line), &r->recs[i]);
		else
			witness_format(line, sizeof(line), &r->wits[i - r->n]);
		lines[i] = strdup(line);
		if (!lines[i])
			goto out;
		len += strlen(line) + 1;
	}
	/* one text per set of entries, whatever order they were learnt in */
	qsort(lines, n, sizeof(*lines), cmp_line);
	text = malloc(len);
	if (text) {
		char *p = stpcpy(text, HEADER);

		for (size_t i = 0; i < n; i++) {
			p = stpcpy(p, lines[i]);
			*p++ = '\n';
		}
		*p = '\0';
	}
out:
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return text;
}

int record_write(const char *path, const char *text)
{
	char tmp[PATH_MAX], dir[PATH_MAX], *slash;
	size_t len = strlen(text);
	int fd, e = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (len > RECORD_MAX_BYTES)
		return -EFBIG;
	/*
	 * Whatever is left or planted under that name (a FIFO would block the
	 * open, a link would be followed) goes: only a new regular file is written.
	 */
	if (unlink(tmp) < 0 && errno != ENOENT)
		return -errno;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	for (size_t off = 0; off < len && e == 0;) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno != EINTR)
			e = -errno;
		else if (w > 0)
			off += (size_t)w;
	}
	if (close(fd) < 0 && e == 0)
		e = -errno;
	if (e == 0 && rename(tmp, path) < 0)
		e = -errno;
	if (e < 0)
		unlink(tmp);
	return e;
}
