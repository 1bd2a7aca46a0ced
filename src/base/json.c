// SPDX-License-Identifier: GPL-2.0-or-later
/* A recursive descent over RFC 8259, depth-bounded: input comes from other hosts */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "json.h"

#define DEPTH_MAX 32

struct parser {
	const char *p, *start;
	int depth;
};

static void blanks(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

void json_free(struct json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n_items; i++) {
		json_free(j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->s);
	free(j);
}

static int hex4(const char *p, unsigned int *ret)
{
	unsigned int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return -EINVAL;
	}
	*ret = v;
	return 0;
}

/* code point u as UTF-8 at out; U+DC80..U+DCFF (surrogateescape) as the byte it stands for */
static size_t utf8(unsigned int u, char *out)
{
	if (u >= 0xdc80 && u <= 0xdcff) {
		out[0] = (char)(u - 0xdc00);
		return 1;
	}
	if (u < 0x80) {
		out[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		out[0] = (char)(0xc0 | (u >> 6));
		out[1] = (char)(0x80 | (u & 0x3f));
		return 2;
	}
	if (u < 0x10000) {
		out[0] = (char)(0xe0 | (u >> 12));
		out[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		out[2] = (char)(0x80 | (u & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (u >> 18));
	out[1] = (char)(0x80 | ((u >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((u >> 6) & 0x3f));
	out[3] = (char)(0x80 | (u & 0x3f));
	return 4;
}

/* a string after its opening quote: never longer decoded than written */
static int string(struct parser *ps, char **ret)
{
	const char *q = ps->p;
	char *s, *o;

	while (*q && *q != '"')
		q += *q == '\\' && q[1] ? 2 : 1;
	if (*q != '"')
		return -EINVAL;
	s = o = malloc((size_t)(q - ps->p) + 1);
	if (!s)
		return -ENOMEM;
	while (ps->p < q) {
		unsigned int u, lo;
		char c = *ps->p++;

		if ((unsigned char)c < 0x20)
			goto invalid;
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		c = *ps->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			*o++ = c;
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			if (q - ps->p < 4 || hex4(ps->p, &u) < 0)
				goto invalid;
			ps->p += 4;
			if (u >= 0xd800 && u < 0xdc00 && q - ps->p >= 6 && ps->p[0] == '\\' &&
			    ps->p[1] == 'u' && hex4(ps->p + 2, &lo) == 0 && lo >= 0xdc00 &&
			    lo < 0xe000) {
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				ps->p += 6;
			}
			o += utf8(u, o);
			break;
		default:
			goto invalid;
		}
	}
	*o = '\0';
	ps->p = q + 1;
	*ret = s;
	return 0;
invalid:
	free(s);
	return -EINVAL;
}

static int value(struct parser *ps, struct json **ret);

/* the items of an array or an object, after its opening bracket */
static int items(struct parser *ps, struct json *j, char close)
{
	size_t cap = 0, kcap = 0;
	int r;

	blanks(ps);
	if (*ps->p == close) {
		ps->p++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		struct json *v = NULL;

		blanks(ps);
		if (close == '}') {
			if (*ps->p != '"')
				return -EINVAL;
			ps->p++;
			r = string(ps, &key);
			if (r < 0)
				return r;
			blanks(ps);
			if (*ps->p != ':') {
				free(key);
				return -EINVAL;
			}
			ps->p++;
		}
		r = value(ps, &v);
		if (r >= 0 && array_grow(&j->items, &cap, j->n_items, sizeof(*j->items), 8) < 0)
			r = -ENOMEM;
		if (r >= 0 && close == '}' &&
		    array_grow(&j->keys, &kcap, j->n_items, sizeof(*j->keys), 8) < 0)
			r = -ENOMEM;
		if (r < 0) {
			free(key);
			json_free(v);
			return r;
		}
		if (close == '}')
			j->keys[j->n_items] = key;
		j->items[j->n_items++] = v;
		blanks(ps);
		if (*ps->p == close) {
			ps->p++;
			return 0;
		}
		if (*ps->p != ',')
			return -EINVAL;
		ps->p++;
	}
}

static int value(struct parser *ps, struct json **ret)
{
	struct json *j;
	char *end;
	int r = 0;

	blanks(ps);
	if (ps->depth >= DEPTH_MAX)
		return -EINVAL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->start = (size_t)(ps->p - ps->start);
	switch (*ps->p) {
	case '{':
	case '[':
		j->type = *ps->p == '{' ? JSON_OBJECT : JSON_ARRAY;
		ps->p++;
		ps->depth++;
		r = items(ps, j, j->type == JSON_OBJECT ? '}' : ']');
		ps->depth--;
		break;
	case '"':
		j->type = JSON_STRING;
		ps->p++;
		r = string(ps, &j->s);
		break;
	case 't':
	case 'f':
	case 'n':
		if (strncmp(ps->p, "true", 4) == 0)
			j->type = JSON_BOOL, j->b = true, ps->p += 4;
		else if (strncmp(ps->p, "false", 5) == 0)
			j->type = JSON_BOOL, ps->p += 5;
		else if (strncmp(ps->p, "null", 4) == 0)
			ps->p += 4;
		else
			r = -EINVAL;
		break;
	default:
		if (*ps->p != '-' && (*ps->p < '0' || *ps->p > '9')) {
			r = -EINVAL;
			break;
		}
		j->type = JSON_NUMBER;
		j->n = strtod(ps->p, &end);
		ps->p = end;
	}
	if (r < 0) {
		json_free(j);
		return r;
	}
	j->end = (size_t)(ps->p - ps->start);
	*ret = j;
	return 0;
}

int json_parse(const char *text, const char **ret_end, size_t *ret_error, struct json **ret)
{
	struct parser ps = { .p = text, .start = text };
	struct json *j;
	int r;

	blanks(&ps);
	if (!*ps.p)
		return -ENODATA;
	r = value(&ps, &j);
	if (r == -EINVAL && ret_error)
		*ret_error = (size_t)(ps.p - ps.start);
	if (r < 0)
		return r;
	*ret_end = ps.p;
	*ret = j;
	return 0;
}

const struct json *json_get(const struct json *o, const char *key)
{
	if (!o || o->type != JSON_OBJECT)
		return NULL;
	/* a key twice: the last one counts, as in most parsers */
	for (size_t i = o->n_items; i-- > 0;)
		if (strcmp(o->keys[i], key) == 0)
			return o->items[i];
	return NULL;
}

const char *json_get_string(const struct json *o, const char *key)
{
	const struct json *v = json_get(o, key);

	return v && v->type == JSON_STRING ? v->s : NULL;
}

double json_get_number(const struct json *o, const char *key, double fallback)
{
	const struct json *v = json_get(o, key);

	return v && v->type == JSON_NUMBER ? v->n : fallback;
}

bool json_get_bool(const struct json *o, const char *key, bool fallback)
{
	const struct json *v = json_get(o, key);

	return v && v->type == JSON_BOOL ? v->b : fallback;
}
