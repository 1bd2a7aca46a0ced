// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ib-hook owns exactly what it recorded here before it installed it. The
 * record is written ahead of every add (a crash then leaves an entry for an
 * object that is not there, which the next run forgets) and after every
 * delete, always by rename(2) over the old file, under the run lock. It
 * also names the links ib-hook has planned for: a link it does not name yet
 * (the first run since boot, or an upgrade from 0.1.0, which kept no record)
 * has what apply would install adopted, and nothing else (plan.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan.h"
#include "record.h"

#define HEADER "# ib-hook record 1: what ib-hook installed in this network namespace\n"

void record_clear(struct ibh_record *r)
{
	free(r->recs);
	memset(r, 0, sizeof(*r));
}

bool rec_same_object(const struct ibh_rec *a, const struct ibh_rec *b)
{
	const struct ibh_route *x = &a->route, *y = &b->route;

	if (a->kind != b->kind)
		return false;
	if (a->kind == IBH_REC_LINK)
		return a->ifindex == b->ifindex && strcmp(a->ifname, b->ifname) == 0;
	if (a->kind == IBH_REC_RULE)
		return ip_equal(&a->rule.src, &b->rule.src) && a->rule.table == b->rule.table &&
		       a->rule.priority == b->rule.priority;
	if (!ip_equal(&x->dst, &y->dst) || x->oif != y->oif || x->table != y->table ||
	    x->src.family != y->src.family || (x->src.family && !ip_same_address(&x->src, &y->src)))
		return false;
	return a->kind == IBH_REC_MAIN || (x->metric == y->metric && x->scope == y->scope &&
					   x->protocol == y->protocol && x->type == y->type);
}

struct ibh_rec *record_find(const struct ibh_record *r, const struct ibh_rec *rec)
{
	for (size_t i = 0; i < r->n; i++)
		if (rec_same_object(&r->recs[i], rec))
			return &r->recs[i];
	return NULL;
}

int record_add(struct ibh_record *r, const struct ibh_rec *rec)
{
	struct ibh_rec *have = record_find(r, rec);

	if (have) {
		*have = *rec;
		return 0;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct ibh_rec *recs = realloc(r->recs, cap * sizeof(*recs));

		if (!recs)
			return -ENOMEM;
		r->recs = recs;
		r->cap = cap;
	}
	r->recs[r->n++] = *rec;
	return 0;
}

void record_forget(struct ibh_record *r, const struct ibh_rec *rec)
{
	struct ibh_rec *have = record_find(r, rec);

	if (!have)
		return;
	*have = r->recs[--r->n];
}

static const char *text(const struct ibh_ip *ip, char *buf, size_t size, bool with_len)
{
	if (!ip->family)
		return "-";
	return ip_to_string(ip, buf, size, with_len);
}

void rec_format(char *buf, size_t size, const struct ibh_rec *rec)
{
	const struct ibh_route *rt = &rec->route;
	char a[64], b[64];

	switch (rec->kind) {
	case IBH_REC_RULE:
		snprintf(buf, size, "rule %s %d %s %u %u", rec->ifname, rec->ifindex,
			 text(&rec->rule.src, a, sizeof(a), true), rec->rule.table,
			 rec->rule.priority);
		break;
	case IBH_REC_ROUTE:
		snprintf(buf, size, "route %s %d %s %d %u %s %u %u %u %u", rec->ifname,
			 rec->ifindex, text(&rt->dst, a, sizeof(a), true), rt->oif, rt->table,
			 text(&rt->src, b, sizeof(b), false), rt->metric, rt->scope, rt->protocol,
			 rt->type);
		break;
	case IBH_REC_LINK:
		snprintf(buf, size, "link %s %d", rec->ifname, rec->ifindex);
		break;
	case IBH_REC_MAIN:
		snprintf(buf, size, "main %s %d %s %d %s %u", rec->ifname, rec->ifindex,
			 text(&rt->dst, a, sizeof(a), true), rt->oif,
			 text(&rt->src, b, sizeof(b), false), rt->metric);
		break;
	}
}

static int parse_ip(const char *s, struct ibh_ip *ret, bool with_len)
{
	char tmp[64], *slash;
	unsigned long len;

	memset(ret, 0, sizeof(*ret));
	if (strcmp(s, "-") == 0)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s", s);
	slash = strchr(tmp, '/');
	if (!!slash != with_len)
		return -EINVAL;
	if (slash)
		*slash++ = '\0';
	ret->family = strchr(tmp, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(ret->family, tmp, ret->a) != 1)
		return -EINVAL;
	len = ret->family == AF_INET ? 32 : 128;
	if (slash) {
		char *end;
		unsigned long l = strtoul(slash, &end, 10);

		if (*end || !*slash || l > len)
			return -EINVAL;
		len = l;
	}
	ret->len = (uint8_t)len;
	return 0;
}

int rec_parse(const char *line, struct ibh_rec *ret)
{
	char kind[8], ifname[IF_NAMESIZE + 1], a[64], b[64];
	unsigned int table, prio, metric, scope, proto, type;
	struct ibh_rec rec = {};
	int ifindex, oif, end = -1;

	if (sscanf(line, "%7s %16s %d", kind, ifname, &ifindex) != 3 ||
	    strlen(ifname) >= IF_NAMESIZE)
		return -EINVAL;
	snprintf(rec.ifname, sizeof(rec.ifname), "%s", ifname);
	rec.ifindex = ifindex;
	if (strcmp(kind, "rule") == 0) {
		rec.kind = IBH_REC_RULE;
		if (sscanf(line, "%*s %*s %*d %63s %u %u %n", a, &table, &prio, &end) != 3 ||
		    parse_ip(a, &rec.rule.src, true) < 0 || !rec.rule.src.family)
			return -EINVAL;
		rec.rule.table = table;
		rec.rule.priority = prio;
		rec.rule.protocol = RTPROT_KERNEL;
		rec.rule.action = FR_ACT_TO_TBL;
		rec.rule.exact = true;
	} else if (strcmp(kind, "route") == 0) {
		rec.kind = IBH_REC_ROUTE;
		if (sscanf(line, "%*s %*s %*d %63s %d %u %63s %u %u %u %u %n", a, &oif, &table, b,
			   &metric, &scope, &proto, &type, &end) != 8 ||
		    scope > 255 || proto > 255 || type > 255)
			return -EINVAL;
		rec.route.scope = (uint8_t)scope;
		rec.route.protocol = (uint8_t)proto;
		rec.route.type = (uint8_t)type;
	} else if (strcmp(kind, "link") == 0) {
		rec.kind = IBH_REC_LINK;
		if (sscanf(line, "%*s %*s %*d %n", &end) != 0)
			return -EINVAL;
		*ret = rec;
		return end >= 0 && line[end] == '\0' ? 0 : -EINVAL;
	} else if (strcmp(kind, "main") == 0) {
		rec.kind = IBH_REC_MAIN;
		table = 254;
		if (sscanf(line, "%*s %*s %*d %63s %d %63s %u %n", a, &oif, b, &metric, &end) != 4)
			return -EINVAL;
	} else
		return -EINVAL;
	if (rec.kind != IBH_REC_RULE) {
		if (parse_ip(a, &rec.route.dst, true) < 0 || !rec.route.dst.family ||
		    parse_ip(b, &rec.route.src, false) < 0)
			return -EINVAL;
		rec.route.oif = oif;
		rec.route.table = table;
		rec.route.metric = metric;
	}
	/* what ib-hook takes out of main and gives back is the kernel's prefix route */
	if (rec.kind == IBH_REC_MAIN) {
		rec.route.protocol = RTPROT_KERNEL;
		rec.route.type = RTN_UNICAST;
		rec.route.scope =
			rec.route.dst.family == AF_INET ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	}
	if (end < 0 || line[end] != '\0')
		return -EINVAL;
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
		e = strlen(line) == (size_t)len ? rec_parse(line, &rec) : -EINVAL;
		if (e == -EINVAL)
			snprintf(why, size, "has a line that is no record entry (line %u)", n);
		if (e == 0)
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
	char line[512], **lines = calloc(r->n ? r->n : 1, sizeof(*lines)), *text = NULL;
	size_t len = strlen(HEADER) + 1;

	if (!lines)
		return NULL;
	for (size_t i = 0; i < r->n; i++) {
		rec_format(line, sizeof(line), &r->recs[i]);
		lines[i] = strdup(line);
		if (!lines[i])
			goto out;
		len += strlen(line) + 1;
	}
	/* one text per set of entries, whatever order they were learnt in */
	qsort(lines, r->n, sizeof(*lines), cmp_line);
	text = malloc(len);
	if (text) {
		char *p = stpcpy(text, HEADER);

		for (size_t i = 0; i < r->n; i++) {
			p = stpcpy(p, lines[i]);
			*p++ = '\n';
		}
		*p = '\0';
	}
out:
	for (size_t i = 0; i < r->n; i++)
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
