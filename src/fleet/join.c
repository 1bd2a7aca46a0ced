// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "join.h"
#include "log.h"

/* the joined inventory of a large fleet is a few MB; more is not one */
#define FILE_MAX (256u << 20)

int join_read_file(const char *path, char **ret)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		if (n + 1 >= cap) {
			char *grown;

			cap = cap ? cap * 2 : 65536;
			grown = cap <= FILE_MAX ? realloc(buf, cap) : NULL;
			if (!grown) {
				r = cap <= FILE_MAX ? -ENOMEM : -EFBIG;
				break;
			}
			buf = grown;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) {
			r = ferror(f) ? -EIO : 0;
			break;
		}
	}
	if (f != stdin)
		fclose(f);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[n] = '\0';
	if (strlen(buf) != n) {
		free(buf);
		return -EINVAL;
	}
	*ret = buf;
	return 0;
}

static int read_into(struct fleet *f, const char *path,
		     int (*read)(struct fleet *, FILE *, size_t *), const char *what)
{
	FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	size_t at = 0;
	int r;

	if (!in)
		return log_error_errno(-errno, "cannot read '%s': %m", path);
	r = read(f, in, &at);
	if (r >= 0 && ferror(in))
		r = log_error_errno(-EIO, "cannot read '%s': %m", path);
	else if (r == -EEXIST)
		log_error("'%s': a host twice in %s, near byte %zu", path, what, at);
	else if (r == -ENOMEM)
		log_error("'%s': out of memory, near byte %zu", path, at);
	else if (r < 0)
		log_error("'%s' is no %s (ib-hook(8)), near byte %zu", path, what, at);
	if (in != stdin)
		fclose(in);
	return r;
}

int join_run(const char *inventory, const char *const *answers, size_t n_answers,
	     enum fleet_format format, const struct fleet_options *o, FILE *out)
{
	struct fleet f = {};
	int r;

	r = read_into(&f, inventory, fleet_read_inventory, "joined inventory");
	if (r >= 0)
		r = fleet_sort(&f);
	for (size_t i = 0; r >= 0 && i < (n_answers ? n_answers : 1); i++)
		r = read_into(&f, n_answers ? answers[i] : "-", fleet_read_answers,
			      "answer of --check --fleet");
	if (r >= 0) {
		r = fleet_print_with(&f, format, o, out);
		if (r == -ENOENT)
			log_error("--host %s: no such host in '%s'", o->host, inventory);
	}
	fleet_free(&f);
	return r;
}
