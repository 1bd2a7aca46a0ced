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
	/* where the tree goes: its own allocations (NULL), or an arena (json_reader) */
	struct json_arena *arena;
};

/* memory handed out in order and taken back at once: a reader's records, one after another */
struct json_arena {
	char *chunk;
	size_t used, size;
	struct json_arena *older; /* chunks filled before, freed at the next reset */
};

static void *arena_alloc(struct json_arena *a, size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (a->used + n > a->size) {
		struct json_arena *old = malloc(sizeof(*old));
		size_t size = a->size * 2 > n ? a->size * 2 : n * 2;
		char *chunk = malloc(size);

		if (!old || !chunk) {
			free(old);
			free(chunk);
			return NULL;
		}
		*old = *a;
		a->older = a->chunk ? old : NULL;
		if (!a->chunk)
			free(old);
		a->chunk = chunk;
		a->size = size;
		a->used = 0;
	}
	p = a->chunk + a->used;
	a->used += n;
	return p;
}

/* everything handed out taken back: the largest chunk kept */
static void arena_reset(struct json_arena *a)
{
	while (a->older) {
		struct json_arena *o = a->older;

		a->older = o->older;
		free(o->chunk);
		free(o);
	}
	a->used = 0;
}

static void *ps_alloc(struct parser *ps, size_t n, bool zero)
{
	void *p;

	if (!ps->arena)
		return zero ? calloc(1, n) : malloc(n);
	p = arena_alloc(ps->arena, n);
	if (p && zero)
		memset(p, 0, n);
	return p;
}

static void ps_free(struct parser *ps, void *p)
{
	if (!ps->arena)
		free(p);
}

static void ps_json_free(struct parser *ps, struct json *j)
{
	if (!ps->arena)
		json_free(j);
}

/* *items (of size each) with room for n + 1, doubling *cap */
static int ps_grow(struct parser *ps, void *items, size_t *cap, size_t n, size_t size)
{
	void **p = items, *grown;
	size_t c = *cap ? *cap * 2 : 8;

	if (!ps->arena)
		return array_grow(items, cap, n, size, 8);
	if (n < *cap)
		return 0;
	grown = arena_alloc(ps->arena, c * size);
	if (!grown)
		return -ENOMEM;
	if (n)
		memcpy(grown, *p, n * size);
	*p = grown;
	*cap = c;
	return 0;
}

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
	s = o = ps_alloc(ps, (size_t)(q - ps->p) + 1, false);
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
	ps_free(ps, s);
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
				ps_free(ps, key);
				return -EINVAL;
			}
			ps->p++;
		}
		r = value(ps, &v);
		if (r >= 0 && ps_grow(ps, &j->items, &cap, j->n_items, sizeof(*j->items)) < 0)
			r = -ENOMEM;
		if (r >= 0 && close == '}' &&
		    ps_grow(ps, &j->keys, &kcap, j->n_items, sizeof(*j->keys)) < 0)
			r = -ENOMEM;
		if (r < 0) {
			ps_free(ps, key);
			ps_json_free(ps, v);
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
	j = ps_alloc(ps, sizeof(*j), true);
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
		ps_json_free(ps, j);
		return r;
	}
	j->end = (size_t)(ps->p - ps->start);
	*ret = j;
	return 0;
}

static int parse(const char *text, const char **ret_end, size_t *ret_error, struct json **ret,
		 struct json_arena *arena)
{
	struct parser ps = { .p = text, .start = text, .arena = arena };
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

int json_parse(const char *text, const char **ret_end, size_t *ret_error, struct json **ret)
{
	return parse(text, ret_end, ret_error, ret, NULL);
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

void json_reader_init(struct json_reader *r, FILE *in)
{
	memset(r, 0, sizeof(*r));
	r->in = in;
}

void json_reader_free(struct json_reader *r)
{
	if (r->arena) {
		arena_reset(r->arena);
		free(r->arena->chunk);
		free(r->arena);
	}
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

size_t json_reader_offset(const struct json_reader *r)
{
	return r->offset + r->at;
}

/* the byte i bytes after the next one not taken, reading more as needed: -1 at the end, -2 on ENOMEM */
static int reader_fill(struct json_reader *r, size_t i)
{
	while (r->at + i >= r->len) {
		size_t got;

		if (r->at > 0 && r->at >= r->len / 2) {
			memmove(r->buf, r->buf + r->at, r->len - r->at);
			r->offset += r->at;
			r->len -= r->at;
			r->at = 0;
			r->buf[r->len] = '\0';
		}
		if (r->len + 65536 > r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 1 << 17;
			char *grown = realloc(r->buf, cap);

			if (!grown)
				return -2;
			r->buf = grown;
			r->cap = cap;
		}
		got = fread(r->buf + r->len, 1, r->cap - r->len - 1, r->in);
		if (got == 0)
			return -1;
		r->len += got;
		/* json_parse reads up to a NUL: the end of what was read */
		r->buf[r->len] = '\0';
	}
	return (unsigned char)r->buf[r->at + i];
}

static inline int reader_byte(struct json_reader *r, size_t i)
{
	return r->at + i < r->len ? (unsigned char)r->buf[r->at + i] : reader_fill(r, i);
}

/* the next byte that is not blank, not taken: -1 at the end */
static int reader_peek(struct json_reader *r)
{
	for (;;) {
		int c = reader_byte(r, 0);

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return c;
		r->at++;
	}
}

/* c, after blanks, taken */
static int reader_take(struct json_reader *r, char c)
{
	if (reader_peek(r) != (unsigned char)c)
		return -EINVAL;
	r->at++;
	return 0;
}

/* how many bytes the next value has (after blanks): -EINVAL, -ENODATA at the end */
static long reader_extent(struct json_reader *r)
{
	size_t n = 0, depth = 0;
	int c = reader_peek(r);

	if (c == -1)
		return -ENODATA;
	if (c == -2)
		return -ENOMEM;
	for (;;) {
		c = reader_byte(r, n);
		if (c == -2)
			return -ENOMEM;
		if (c == -1 || c == 0) {
			/* a number at the very end of the stream ends there */
			return c == -1 && depth == 0 && n > 0 ? (long)n : -EINVAL;
		}
		if (c == '"') {
			for (n++;; n++) {
				c = reader_byte(r, n);
				if (c < 0 || c == 0)
					return c == -2 ? -ENOMEM : -EINVAL;
				if (c == '\\')
					n++;
				else if (c == '"')
					break;
			}
			n++;
		} else if (c == '{' || c == '[') {
			depth++;
			n++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return n ? (long)n : -EINVAL;
			depth--;
			n++;
		} else if (depth == 0 &&
			   (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
			return n ? (long)n : -EINVAL;
		} else
			n++;
		if (depth == 0 && (c == '"' || c == '}' || c == ']'))
			return (long)n;
	}
}

static int reader_comma(struct json_reader *r)
{
	if (r->fresh) {
		r->fresh = false;
		return 0;
	}
	return reader_take(r, ',');
}

int json_reader_object(struct json_reader *r)
{
	int c = reader_peek(r);

	if (c == -1)
		return -ENODATA;
	if (c != '{')
		return c == -2 ? -ENOMEM : -EINVAL;
	r->at++;
	r->fresh = true;
	return 0;
}

int json_reader_array(struct json_reader *r)
{
	if (reader_take(r, '[') < 0)
		return -EINVAL;
	r->fresh = true;
	return 0;
}

int json_reader_item(struct json_reader *r)
{
	if (reader_peek(r) == ']') {
		r->at++;
		r->fresh = false;
		return 0;
	}
	return reader_comma(r) < 0 ? -EINVAL : 1;
}

/*
 * Parsed in place, from the buffer: with at least want bytes read ahead
 * (or the end of the stream), and again with twice as many when the value
 * runs into the end of what was read
 */
int json_reader_value(struct json_reader *r, struct json **ret)
{
	for (size_t want = 1 << 16;; want *= 2) {
		int c = reader_byte(r, want - 1), k;
		size_t at = 0, avail;
		const char *end;

		if (c == -2)
			return -ENOMEM;
		if (!r->buf)
			return -ENODATA;
		avail = r->len - r->at;
		if (!r->arena && !(r->arena = calloc(1, sizeof(*r->arena))))
			return -ENOMEM;
		arena_reset(r->arena);
		k = parse(r->buf + r->at, &end, &at, ret, r->arena);
		if (k == 0 && (c == -1 || (size_t)(end - (r->buf + r->at)) < avail)) {
			r->at = (size_t)(end - r->buf);
			r->fresh = false;
			return 0;
		}
		if (k != 0 && (c == -1 || (k == -EINVAL && at < avail) || k == -ENOMEM))
			return k;
	}
}

int json_reader_skip(struct json_reader *r)
{
	long n = reader_extent(r);

	if (n < 0)
		return (int)n;
	r->at += (size_t)n;
	r->fresh = false;
	return 0;
}

int json_reader_key(struct json_reader *r, char *key, size_t size)
{
	struct json *k;
	int c = reader_peek(r);

	if (c == '}') {
		r->at++;
		r->fresh = false;
		return 0;
	}
	if (reader_comma(r) < 0 || reader_peek(r) != '"' || json_reader_value(r, &k) < 0)
		return -EINVAL;
	c = k->type == JSON_STRING && strlen(k->s) < size;
	if (c)
		memcpy(key, k->s, strlen(k->s) + 1);
	if (!c || reader_take(r, ':') < 0)
		return -EINVAL;
	return 1;
}
