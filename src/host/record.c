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
 * The routes installed for a link, which with copies of main's routes may
 * be hundreds of thousands, are a file of their own, a part: PATH.routes-
 * IFINDEX. The record's file lists each part with what its entries are
 * about (their link's name, tables and families), so that a run for ib1
 * neither reads nor writes ib0's part unless one of its entries may be a
 * leftover or lies in a table the run plans. Parts are written before the
 * record's file (a part that gained an entry before one that lost it), each
 * by rename(2): a crash between leaves the record's file listing what the
 * parts held before, which the write ahead of any add had covered, or an
 * entry in two parts, which reads as one. A part the file does not list
 * (the rest of a namespace that is gone) is never read. The record of 0.2.0
 * and older, every entry in the one file, is read as it is and written in
 * parts at the next change.
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

#define HEADER	    "# ib-hook record 2: what ib-hook installed in this network namespace\n"
#define PART_HEADER "# ib-hook record 2: routes ib-hook installed for one link\n"

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
	for (size_t k = 0; k < r->n_parts; k++)
		free(r->parts[k].keys);
	free(r->parts);
	index_free(r->index);
	memset(r, 0, sizeof(*r));
}

static bool in_part(const struct ibh_rec *rec)
{
	return rec->kind == IBH_REC_ROUTE;
}

/* the index in r->parts of the part of link ifindex, or -1 */
static ssize_t part_of(const struct ibh_record *r, int ifindex)
{
	for (size_t k = 0; k < r->n_parts; k++)
		if (r->parts[k].ifindex == ifindex)
			return (ssize_t)k;
	return -1;
}

/* the part of ifindex, made (with its entries all in memory: none yet) when there is none */
static struct ibh_record_part *part_get(struct ibh_record *r, int ifindex)
{
	ssize_t k = part_of(r, ifindex);

	if (k >= 0)
		return &r->parts[k];
	if (array_grow(&r->parts, &r->cap_parts, r->n_parts, sizeof(*r->parts), 4) < 0)
		return NULL;
	r->parts[r->n_parts] = (struct ibh_record_part){ .ifindex = ifindex, .loaded = true };
	return &r->parts[r->n_parts++];
}

/* rec's part: an entry came or changed there (grew), or went */
static void part_touch(struct ibh_record *r, const struct ibh_rec *rec, bool grew)
{
	ssize_t k = in_part(rec) ? part_of(r, rec->ifindex) : -1;

	if (k < 0)
		return;
	r->parts[k].touched = true;
	r->parts[k].grew |= grew;
}

/* the same link, kind, table and family: what a part's key says of its entries */
static bool same_key(const struct ibh_rec *a, const struct ibh_rec *b)
{
	return a->ifindex == b->ifindex && a->route.table == b->route.table &&
	       a->route.dst.family == b->route.dst.family && strcmp(a->ifname, b->ifname) == 0;
}

static int part_key_add(struct ibh_record_part *p, const struct ibh_rec *rec)
{
	struct ibh_rec key = { .kind = IBH_REC_ROUTE, .ifindex = rec->ifindex };

	for (size_t i = 0; i < p->n_keys; i++)
		if (same_key(&p->keys[i], rec))
			return 0;
	if (array_grow(&p->keys, &p->cap_keys, p->n_keys, sizeof(*p->keys), 2) < 0)
		return -ENOMEM;
	snprintf(key.ifname, sizeof(key.ifname), "%s", rec->ifname);
	key.route.table = rec->route.table;
	key.route.dst.family = rec->route.dst.family;
	p->keys[p->n_keys++] = key;
	return 0;
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

/*
 * rec into the record; touch: a change to be written (not an entry read).
 * An entry read that the record holds already (one in two parts, after a
 * crash) stays as it is
 */
static int add_entry(struct ibh_record *r, const struct ibh_rec *rec, bool touch)
{
	struct ibh_rec *have = record_find(r, rec);
	bool indexed = index_current(r);

	if (have && !touch)
		return 0;
	if (touch && in_part(rec) && !part_get(r, rec->ifindex))
		return -ENOMEM;
	if (have) {
		part_touch(r, have, false);
		*have = *rec;
		part_touch(r, rec, true);
		return 0;
	}
	if (array_grow(&r->recs, &r->cap, r->n, sizeof(*rec), 16) < 0)
		return -ENOMEM;
	if (touch)
		part_touch(r, rec, true);
	r->recs[r->n++] = *rec;
	/* the index follows, unless it must grow: then it is made again when asked */
	if (indexed && r->n <= r->index->cap && 2 * r->n <= r->index->mask + 1) {
		r->index->recs = r->recs;
		r->index->n = r->n;
		index_link(r->index, r->n - 1);
	}
	return 0;
}

int record_add(struct ibh_record *r, const struct ibh_rec *rec)
{
	return add_entry(r, rec, true);
}

void record_forget(struct ibh_record *r, const struct ibh_rec *rec)
{
	struct ibh_rec *have = record_find(r, rec);
	size_t i, last;

	if (!have)
		return;
	part_touch(r, have, false);
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
	for (size_t i = 0; i <= r->n + r->n_parts && e == 0; i++) {
		int ifindex = i < r->n		      ? r->recs[i].ifindex
			      : i < r->n + r->n_parts ? r->parts[i - r->n].ifindex
						      : 1;

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

/* FNV-1a, 64 bits, continued from h: whether a part's text changed */
static uint64_t text_hash(uint64_t h, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h;
}

#define HASH_START 14695981039346656037ull
/* no text of a part hashes to it but once in 2^64 */
#define DAMAGED_HASH 1ull

void record_part_path(char *buf, size_t size, const char *path, int ifindex)
{
	snprintf(buf, size, "%s.routes-%d", path, ifindex);
}

/* "part IFINDEX IFNAME TABLE inet|inet6": a part and what one kind of its entries is about */
static void part_line(char *buf, size_t size, const struct ibh_rec *key)
{
	snprintf(buf, size, "part %d %s %u %s", key->ifindex, key->ifname, key->route.table,
		 key->route.dst.family == AF_INET6 ? "inet6" : "inet");
}

static int part_line_parse(struct ibh_record *r, const char *line)
{
	char ifname[IF_NAMESIZE + 1], family[8];
	struct ibh_rec key = { .kind = IBH_REC_ROUTE };
	struct ibh_record_part *p;
	ssize_t k;
	int end = -1;

	if (sscanf(line, "part %d %16s %" SCNu32 " %7s%n", &key.ifindex, ifname, &key.route.table,
		   family, &end) != 4 ||
	    end < 0 || line[end] != '\0' || key.ifindex <= 0 || strlen(ifname) >= IF_NAMESIZE)
		return -EINVAL;
	if (strcmp(family, "inet") == 0)
		key.route.dst.family = AF_INET;
	else if (strcmp(family, "inet6") == 0)
		key.route.dst.family = AF_INET6;
	else
		return -EINVAL;
	snprintf(key.ifname, sizeof(key.ifname), "%s", ifname);
	k = part_of(r, key.ifindex);
	if (k >= 0) {
		p = &r->parts[k];
	} else {
		p = part_get(r, key.ifindex);
		if (!p)
			return -ENOMEM;
		p->loaded = false;
	}
	/* the entries of a part read with the record's file (the old format) speak for themselves */
	return p->loaded ? 0 : part_key_add(p, &key);
}

/*
 * Each line of the file at path to one(), which says whether it is an entry
 * of the file; *hash: the file's text hashed. A missing file is -ENOENT.
 */
static int read_lines(const char *path, char *why, size_t size, uint64_t *hash,
		      int (*one)(const char *line, void *data), void *data)
{
	char *line = NULL;
	size_t cap = 0, total = 0;
	unsigned int n = 0;
	uint64_t h = HASH_START;
	ssize_t len;
	FILE *f = NULL;
	int e;

	e = open_record(path, &f, why, size);
	if (e < 0)
		return e;
	while (e == 0 && (len = getline(&line, &cap, f)) > 0) {
		n++;
		total += (size_t)len;
		/* it grew since fstat() */
		if (total > RECORD_MAX_BYTES) {
			snprintf(why, size, "is larger than %d bytes", RECORD_MAX_BYTES);
			e = -EINVAL;
			break;
		}
		h = text_hash(h, line, (size_t)len);
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (line[0] == '#' || len == 0)
			continue;
		/* a NUL byte ends the text a parser sees: such a line is no entry either */
		e = strlen(line) != (size_t)len ? -EINVAL : one(line, data);
		if (e == -EINVAL)
			snprintf(why, size, "has a line that is no record entry (line %u)", n);
	}
	if (e == 0 && ferror(f))
		e = -EIO;
	free(line);
	fclose(f);
	*hash = h;
	return e;
}

static int record_line(const char *line, void *data)
{
	struct ibh_record *r = data;
	struct ibh_witness wit;
	struct ibh_rec rec;
	int e;

	if (strncmp(line, "witness ", 8) == 0) {
		e = witness_parse(line, &wit);
		if (e == 0)
			e = array_grow(&r->wits, &r->cap_wits, r->n_wits, sizeof(wit), 8);
		if (e == 0)
			r->wits[r->n_wits++] = wit;
		return e;
	}
	if (strncmp(line, "part ", 5) == 0)
		return part_line_parse(r, line);
	e = rec_parse(line, &rec);
	if (e < 0)
		return e;
	/* the old format: the routes are here, and go to their parts at the next write */
	r->one_file |= in_part(&rec);
	return add_entry(r, &rec, in_part(&rec));
}

int record_load(const char *path, struct ibh_record *ret, char *why, size_t size)
{
	struct ibh_record r = { .present = true };
	uint64_t hash;
	int e = read_lines(path, why, size, &hash, record_line, &r);

	if (e == -ENOENT) {
		record_clear(&r);
		*ret = (struct ibh_record){};
		return 0;
	}
	if (e < 0) {
		record_clear(&r);
		return e;
	}
	*ret = r;
	return 0;
}

struct part_read {
	struct ibh_record *r;
	int ifindex;
};

static int part_entry(const char *line, void *data)
{
	struct part_read *p = data;
	struct ibh_rec rec;
	int e = rec_parse(line, &rec);

	if (e < 0)
		return e;
	if (!in_part(&rec) || rec.ifindex != p->ifindex)
		return -EINVAL;
	return add_entry(p->r, &rec, false);
}

int record_load_part(const char *path, struct ibh_record *r, size_t k, char *why, size_t size)
{
	struct part_read read = { .r = r, .ifindex = r->parts[k].ifindex };
	struct ibh_record_part *part = &r->parts[k];
	size_t n = r->n;
	char file[PATH_MAX];
	uint64_t hash = 0;
	int e;

	if (part->loaded)
		return 0;
	record_part_path(file, sizeof(file), path, part->ifindex);
	e = read_lines(file, why, size, &hash, part_entry, &read);
	/* listed but not there: emptied, and a crash came before the list was written */
	if (e == -ENOENT) {
		e = 0;
		hash = 0;
	}
	/*
	 * All or nothing: a damaged part is read as empty, and written again at
	 * the next change. Its entries read so far were appended (none of them
	 * replaced one): they go, and the index is made again when next asked
	 */
	if (e < 0)
		r->n = n;
	/* a file is there, of no text a part has: whatever the part holds next is written */
	if (e == -EINVAL) {
		part->touched = true;
		hash = DAMAGED_HASH;
	}
	if (e < 0 && e != -EINVAL)
		return e;
	part->loaded = true;
	part->hash = hash;
	free(part->keys);
	part->keys = NULL;
	part->n_keys = part->cap_keys = 0;
	return e;
}

int record_load_all(const char *path, struct ibh_record *ret, char *why, size_t size)
{
	int e = record_load(path, ret, why, size);

	for (size_t k = 0; e == 0 && k < ret->n_parts; k++)
		e = record_load_part(path, ret, k, why, size);
	if (e < 0)
		record_clear(ret);
	return e;
}

int record_remove(const char *path)
{
	struct ibh_record r;
	char why[128], file[PATH_MAX];
	int e = record_load(path, &r, why, sizeof(why));

	for (size_t k = 0; e == 0 && k < r.n_parts; k++) {
		record_part_path(file, sizeof(file), path, r.parts[k].ifindex);
		(void)unlink(file);
	}
	if (e == 0)
		record_clear(&r);
	return unlink(path) < 0 ? -errno : 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* header and the lines, sorted: one text per set of entries, whatever order they were learnt in */
static char *join_lines(const char *header, char **lines, size_t n)
{
	size_t len = strlen(header) + 1;
	char *text, *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(lines[i]) + 1;
	/* no lines: lines may be NULL, which qsort may not be given */
	if (n > 1)
		qsort(lines, n, sizeof(*lines), cmp_line);
	text = malloc(len);
	if (!text)
		return NULL;
	p = stpcpy(text, header);
	for (size_t i = 0; i < n; i++) {
		p = stpcpy(p, lines[i]);
		*p++ = '\n';
	}
	*p = '\0';
	return text;
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* lines[*n] = a copy of line */
static int push_line(char ***lines, size_t *n, size_t *cap, const char *line)
{
	char *copy = strdup(line);

	if (!copy || array_grow(lines, cap, *n, sizeof(**lines), 64) < 0) {
		free(copy);
		return -ENOMEM;
	}
	(*lines)[(*n)++] = copy;
	return 0;
}

/* what the parts' entries are about: from the entries of a part read, else as the file listed */
static int part_lines(const struct ibh_record *r, char ***lines, size_t *n, size_t *cap)
{
	struct ibh_record_part *keys = calloc(r->n_parts ? r->n_parts : 1, sizeof(*keys));
	char line[128];
	int e = keys ? 0 : -ENOMEM;

	for (size_t i = 0; e == 0 && i < r->n; i++) {
		ssize_t k = in_part(&r->recs[i]) ? part_of(r, r->recs[i].ifindex) : -1;

		if (k >= 0 && r->parts[k].loaded)
			e = part_key_add(&keys[k], &r->recs[i]);
	}
	for (size_t k = 0; e == 0 && k < r->n_parts; k++) {
		const struct ibh_record_part *p = r->parts[k].loaded ? &keys[k] : &r->parts[k];

		for (size_t j = 0; e == 0 && j < p->n_keys; j++) {
			part_line(line, sizeof(line), &p->keys[j]);
			e = push_line(lines, n, cap, line);
		}
	}
	for (size_t k = 0; keys && k < r->n_parts; k++)
		free(keys[k].keys);
	free(keys);
	return e;
}

char *record_text(const struct ibh_record *r)
{
	char line[1100], **lines = NULL, *text = NULL;
	size_t n = 0, cap = 0;
	int e = 0;

	for (size_t i = 0; e == 0 && i < r->n; i++) {
		if (in_part(&r->recs[i]))
			continue;
		rec_format(line, sizeof(line), &r->recs[i]);
		e = push_line(&lines, &n, &cap, line);
	}
	for (size_t i = 0; e == 0 && i < r->n_wits; i++) {
		witness_format(line, sizeof(line), &r->wits[i]);
		e = push_line(&lines, &n, &cap, line);
	}
	if (e == 0)
		e = part_lines(r, &lines, &n, &cap);
	if (e == 0)
		text = join_lines(HEADER, lines, n);
	free_lines(lines, n);
	return text;
}

char *record_part_text(const struct ibh_record *r, size_t k, size_t *n_entries)
{
	char line[1100], **lines = NULL, *text = NULL;
	size_t n = 0, cap = 0;
	int e = 0;

	for (size_t i = 0; e == 0 && i < r->n; i++) {
		if (!in_part(&r->recs[i]) || r->recs[i].ifindex != r->parts[k].ifindex)
			continue;
		rec_format(line, sizeof(line), &r->recs[i]);
		e = push_line(&lines, &n, &cap, line);
	}
	if (e == 0)
		text = join_lines(PART_HEADER, lines, n);
	free_lines(lines, n);
	*n_entries = n;
	return text;
}

/* one part's file as its entries are: written, or deleted when it has none */
static int write_part(const char *path, struct ibh_record *r, size_t k)
{
	char file[PATH_MAX], why[128];
	size_t n;
	char *text;
	uint64_t hash;
	int e = 0;

	/* never a part written with only the entries of it that were read: all of them first */
	if (!r->parts[k].loaded && (e = record_load_part(path, r, k, why, sizeof(why))) < 0 &&
	    e != -EINVAL)
		return e;
	text = record_part_text(r, k, &n);
	if (!text)
		return -ENOMEM;
	hash = n ? text_hash(HASH_START, text, strlen(text)) : 0;
	record_part_path(file, sizeof(file), path, r->parts[k].ifindex);
	if (hash != r->parts[k].hash)
		e = n ? record_write(file, text) : unlink(file) < 0 && errno != ENOENT ? -errno : 0;
	free(text);
	if (e < 0)
		return e;
	r->parts[k].hash = hash;
	r->parts[k].touched = r->parts[k].grew = false;
	return 0;
}

int record_write_parts(const char *path, struct ibh_record *r)
{
	size_t kept = 0;
	int e = 0;

	/* a part that gained an entry first: an entry moving between parts is never in none */
	for (int grew = 1; grew >= 0; grew--)
		for (size_t k = 0; e == 0 && k < r->n_parts; k++)
			if (r->parts[k].touched && r->parts[k].grew == grew)
				e = write_part(path, r, k);
	if (e < 0)
		return e;
	/* a part without a file is no part: the record's file does not list it */
	for (size_t k = 0; k < r->n_parts; k++) {
		if (r->parts[k].loaded && !r->parts[k].hash) {
			free(r->parts[k].keys);
			continue;
		}
		r->parts[kept++] = r->parts[k];
	}
	r->n_parts = kept;
	r->one_file = false;
	return 0;
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
