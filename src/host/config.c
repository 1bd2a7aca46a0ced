// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /etc/ib-hook.conf: INI style like systemd's .network files. Pure parsing
 * (config_parse) is kept apart from file access (config_load_all) so that the unit
 * tests and the fuzzer reach every branch without a file system.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "config.h"

#define IBH_CONFIG_MAX_SIZE (1024 * 1024)

/* config key and the largest value the kernel accepts for it */
static const struct {
	const char *key;
	int max;
} sysctl_keys[IBH_SYSCTL_MAX] = {
	[IBH_SYSCTL_ARP_IGNORE] = { "ArpIgnore", 8 },
	[IBH_SYSCTL_ARP_ANNOUNCE] = { "ArpAnnounce", 2 },
	[IBH_SYSCTL_RP_FILTER] = { "RpFilter", 2 },
	[IBH_SYSCTL_ACCEPT_LOCAL] = { "AcceptLocal", 1 },
};

void config_defaults(struct ibh_config *c)
{
	memset(c, 0, sizeof(*c));
	c->table_base = 1000;
	c->priority = 1000;
	c->main_route = IBH_MAIN_KEEP;
	c->ipv6 = true;
	c->gateway_routes = true;
	c->fleet_probers = 1;
	c->fleet_arp_rate = 2000;
	c->sysctl[IBH_SYSCTL_ARP_IGNORE] = 2;
	c->sysctl[IBH_SYSCTL_ARP_ANNOUNCE] = 2;
	c->sysctl[IBH_SYSCTL_RP_FILTER] = IBH_SYSCTL_KEEP;
	c->sysctl[IBH_SYSCTL_ACCEPT_LOCAL] = IBH_SYSCTL_KEEP;
	for (int i = 0; i < IBH_HOOK_MAX; i++)
		c->hooks[i] = true;
}

uint64_t config_fingerprint(const struct ibh_config *c)
{
	const unsigned char *b = (const unsigned char *)c;
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (size_t i = 0; i < sizeof(*c); i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

bool table_is_reserved(uint64_t table)
{
	return table == 0 || (table >= 253 && table <= 255) || table > UINT32_MAX;
}

uint32_t config_table_of(const struct ibh_config *c, const char *ifname)
{
	for (size_t i = 0; i < c->n_tables; i++)
		if (strcmp(c->tables[i].ifname, ifname) == 0)
			return c->tables[i].table;
	return 0;
}

const struct ibh_gateway_entry *config_gateway_of(const struct ibh_config *c, const char *ifname)
{
	for (size_t i = 0; i < c->n_gateways; i++)
		if (strcmp(c->gateways[i].ifname, ifname) == 0)
			return &c->gateways[i];
	return NULL;
}

bool config_table_is_listed(const struct ibh_config *c, uint32_t table)
{
	for (size_t i = 0; i < c->n_tables; i++)
		if (c->tables[i].table == table)
			return true;
	return false;
}

uint32_t config_table(const struct ibh_config *c, const char *ifname, int ifindex)
{
	uint32_t t = config_table_of(c, ifname);
	uint64_t computed;

	if (t)
		return t;
	computed = (uint64_t)c->table_base + (uint64_t)ifindex;
	return table_is_reserved(computed) ? 0 : (uint32_t)computed;
}

static int fail(struct ibh_config_error *err, unsigned int line, const char *key, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));

static int fail(struct ibh_config_error *err, unsigned int line, const char *key, const char *fmt,
		...)
{
	va_list ap;

	if (err) {
		err->line = line;
		snprintf(err->key, sizeof(err->key), "%s", key ? key : "");
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static char *strip(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	*end = '\0';
	return s;
}

/* decimal only, no sign, no leading junk: "1e3" or "-1" are mistakes, not numbers */
static int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *ret)
{
	unsigned long long v = 0;

	if (*s == '\0')
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long long)(*s - '0');
		if (v > max)
			return -ERANGE;
	}
	if (v < min)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

static int parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(s, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcmp(s, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_match(struct ibh_config *c, unsigned int line, const char *key, char *value,
		       struct ibh_config_error *err)
{
	char *save = NULL;

	if (strcmp(key, "Name") != 0)
		return fail(err, line, key, "unknown key '%s' in section [Match]", key);
	/* like systemd: an empty assignment resets the list, others append */
	if (*value == '\0') {
		c->n_globs = 0;
		return 0;
	}
	for (char *g = strtok_r(value, " \t", &save); g; g = strtok_r(NULL, " \t", &save)) {
		if (c->n_globs >= IBH_MAX_GLOBS)
			return fail(err, line, key, "too many names (at most %d)", IBH_MAX_GLOBS);
		if (strlen(g) >= IBH_MAX_GLOB_LEN)
			return fail(err, line, key, "name pattern '%.20s...' is too long", g);
		/* only space and tab separate names: a CR or VT would stay in a glob that never matches */
		for (const char *p = g; *p; p++)
			if ((unsigned char)*p < 0x21 || *p == 0x7f)
				return fail(err, line, key,
					    "a name pattern holds a control character");
		snprintf(c->globs[c->n_globs++], IBH_MAX_GLOB_LEN, "%s", g);
	}
	return 0;
}

static int parse_routing(struct ibh_config *c, unsigned int line, const char *key, char *value,
			 struct ibh_config_error *err)
{
	uint32_t v;

	if (strcmp(key, "TableBase") == 0) {
		if (parse_u32(value, 0, INT32_MAX, &v) < 0)
			return fail(err, line, key, "TableBase '%s' is not a number from 0 to %d",
				    value, INT32_MAX);
		c->table_base = v;
	} else if (strcmp(key, "Priority") == 0) {
		/* 0 is the local table's rule and 32766 main's: ib-hook must sit between */
		if (parse_u32(value, 1, 32765, &v) < 0)
			return fail(err, line, key, "Priority '%s' is not a number from 1 to 32765",
				    value);
		c->priority = v;
	} else if (strcmp(key, "MainRoute") == 0) {
		if (strcmp(value, "keep") == 0)
			c->main_route = IBH_MAIN_KEEP;
		else if (strcmp(value, "delete") == 0)
			c->main_route = IBH_MAIN_DELETE;
		else
			return fail(err, line, key, "MainRoute '%s' is neither 'keep' nor 'delete'",
				    value);
	} else if (strcmp(key, "IPv6") == 0) {
		if (parse_bool(value, &c->ipv6) < 0)
			return fail(err, line, key, "IPv6 '%s' is neither 'yes' nor 'no'", value);
	} else if (strcmp(key, "GatewayRoutes") == 0) {
		if (parse_bool(value, &c->gateway_routes) < 0)
			return fail(err, line, key, "GatewayRoutes '%s' is neither 'yes' nor 'no'",
				    value);
	} else
		return fail(err, line, key, "unknown key '%s' in section [Routing]", key);
	return 0;
}

static int parse_tables(struct ibh_config *c, unsigned int line, const char *key, char *value,
			struct ibh_config_error *err)
{
	uint32_t t;

	/*
	 * Two names may share a table: one file serves a lab whose hosts name
	 * their ports differently. Where both exist, the engine refuses both.
	 */
	if (!ifname_valid(key))
		return fail(err, line, key, "'%s' is not a valid interface name", key);
	if (parse_u32(value, 1, UINT32_MAX, &t) < 0 || table_is_reserved(t))
		return fail(
			err, line, key,
			"table '%s' is not a number from 1 to 4294967295 other than 253, 254, 255",
			value);
	/* a drop-in gives an interface of an earlier file another table */
	for (size_t i = 0; i < c->n_tables_earlier; i++)
		if (strcmp(c->tables[i].ifname, key) == 0) {
			memmove(&c->tables[i], &c->tables[i + 1],
				(c->n_tables - i - 1) * sizeof(c->tables[0]));
			c->n_tables--;
			c->n_tables_earlier--;
			break;
		}
	for (size_t i = 0; i < c->n_tables; i++) {
		if (strcmp(c->tables[i].ifname, key) == 0)
			return fail(err, line, key, "interface '%s' already has table %u", key,
				    c->tables[i].table);
	}
	if (c->n_tables >= IBH_MAX_TABLES)
		return fail(err, line, key, "too many tables (at most %d)", IBH_MAX_TABLES);
	snprintf(c->tables[c->n_tables].ifname, IF_NAMESIZE, "%s", key);
	c->tables[c->n_tables++].table = t;
	return 0;
}

static int parse_gateways(struct ibh_config *c, unsigned int line, const char *key, char *value,
			  struct ibh_config_error *err)
{
	struct ibh_gateway_entry g = {};
	char *save = NULL;

	if (!ifname_valid(key))
		return fail(err, line, key, "'%s' is not a valid interface name", key);
	snprintf(g.ifname, sizeof(g.ifname), "%s", key);
	for (char *w = strtok_r(value, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		struct ibh_ip a = {};

		if (strcmp(w, "peer") == 0) {
			g.peer = true;
			continue;
		}
		a.family = strchr(w, ':') ? AF_INET6 : AF_INET;
		a.len = (uint8_t)ip_bits(a.family);
		if (inet_pton(a.family, w, a.a) != 1)
			return fail(err, line, key, "gateway '%s' is neither 'peer' nor an address",
				    w);
		for (size_t i = 0; i < g.n_gw; i++)
			if (g.gw[i].family == a.family)
				return fail(err, line, key, "two IPv%c gateways for '%s'",
					    a.family == AF_INET ? '4' : '6', key);
		g.gw[g.n_gw++] = a;
	}
	if (!g.peer && !g.n_gw)
		return fail(err, line, key, "no gateway for '%s': 'peer' or an address", key);
	/* a drop-in gives an interface of an earlier file another gateway */
	for (size_t i = 0; i < c->n_gateways; i++) {
		if (strcmp(c->gateways[i].ifname, key) != 0)
			continue;
		if (i >= c->n_gateways_earlier)
			return fail(err, line, key, "interface '%s' already has a gateway", key);
		c->gateways[i] = g;
		return 0;
	}
	if (c->n_gateways >= IBH_MAX_TABLES)
		return fail(err, line, key, "too many gateways (at most %d)", IBH_MAX_TABLES);
	c->gateways[c->n_gateways++] = g;
	return 0;
}

static int parse_sysctl(struct ibh_config *c, unsigned int line, const char *key, char *value,
			struct ibh_config_error *err)
{
	for (int i = 0; i < IBH_SYSCTL_MAX; i++) {
		uint32_t v;

		if (strcmp(key, sysctl_keys[i].key) != 0)
			continue;
		if (strcmp(value, "keep") == 0)
			c->sysctl[i] = IBH_SYSCTL_KEEP;
		else if (parse_u32(value, 0, (uint32_t)sysctl_keys[i].max, &v) == 0)
			c->sysctl[i] = (int)v;
		else
			return fail(err, line, key,
				    "%s '%s' is neither 'keep' nor a number from 0 to %d", key,
				    value, sysctl_keys[i].max);
		return 0;
	}
	return fail(err, line, key, "unknown key '%s' in section [Sysctl]", key);
}

static int parse_hooks(struct ibh_config *c, unsigned int line, const char *key, char *value,
		       struct ibh_config_error *err)
{
	for (int i = 0; i < IBH_HOOK_MAX; i++) {
		if (strcmp(key, hook_family((enum ibh_hook_family)i)->key) != 0)
			continue;
		if (parse_bool(value, &c->hooks[i]) < 0)
			return fail(err, line, key, "%s '%s' is neither 'yes' nor 'no'", key,
				    value);
		return 0;
	}
	return fail(err, line, key, "unknown key '%s' in section [Hooks]", key);
}

static int parse_ipoib(struct ibh_config *c, unsigned int line, const char *key, char *value,
		       struct ibh_config_error *err)
{
	if (strcmp(key, "Mode") == 0) {
		if (strcmp(value, "keep") == 0)
			c->ipoib_mode = IBH_IPOIB_KEEP;
		else if (strcmp(value, "connected") == 0)
			c->ipoib_mode = IBH_IPOIB_CONNECTED;
		else if (strcmp(value, "datagram") == 0)
			c->ipoib_mode = IBH_IPOIB_DATAGRAM;
		else
			return fail(err, line, key,
				    "Mode '%s' is neither 'keep', 'connected' nor 'datagram'",
				    value);
	} else if (strcmp(key, "MTU") == 0) {
		/* IPoIB: 2044 or 4092 in datagram mode, up to 65520 in connected mode */
		if (strcmp(value, "keep") == 0)
			c->ipoib_mtu = 0;
		else if (parse_u32(value, 68, 65520, &c->ipoib_mtu) < 0)
			return fail(err, line, key,
				    "MTU '%s' is neither 'keep' nor a number from 68 to 65520",
				    value);
	} else
		return fail(err, line, key, "unknown key '%s' in section [IPoIB]", key);
	return 0;
}

static int parse_fleet(struct ibh_config *c, unsigned int line, const char *key, char *value,
		       struct ibh_config_error *err)
{
	uint32_t v;

	if (strcmp(key, "FleetProbers") == 0) {
		if (parse_u32(value, 1, 3, &v) < 0)
			return fail(err, line, key, "FleetProbers '%s' is not a number from 1 to 3",
				    value);
		c->fleet_probers = v;
	} else if (strcmp(key, "FleetArpRate") == 0) {
		if (parse_u32(value, 10, 1000000, &v) < 0)
			return fail(err, line, key,
				    "FleetArpRate '%s' is not a number from 10 to 1000000", value);
		c->fleet_arp_rate = v;
	} else
		return fail(err, line, key, "unknown key '%s' in section [Fleet]", key);
	return 0;
}

typedef int (*section_parser)(struct ibh_config *c, unsigned int line, const char *key, char *value,
			      struct ibh_config_error *err);

/* the sections of the file, and who parses each one's keys; NULL: before any section */
static int parse_section(const char *name, section_parser *ret)
{
	static const struct {
		const char *name;
		section_parser parse;
	} sections[] = {
		{ "Match", parse_match },	{ "Routing", parse_routing },
		{ "Tables", parse_tables },	{ "Sysctl", parse_sysctl },
		{ "Hooks", parse_hooks },	{ "IPoIB", parse_ipoib },
		{ "Gateways", parse_gateways }, { "Fleet", parse_fleet },
	};

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (strcmp(name, sections[i].name) == 0) {
			*ret = sections[i].parse;
			return 0;
		}
	return -EINVAL;
}

static int parse_line(struct ibh_config *c, section_parser *section, unsigned int line, char *s,
		      struct ibh_config_error *err)
{
	char *eq, *key, *value;

	s = strip(s);
	if (*s == '\0' || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		size_t n = strlen(s);

		if (s[n - 1] != ']')
			return fail(err, line, NULL, "section header '%.40s' lacks ']'", s);
		s[n - 1] = '\0';
		if (parse_section(s + 1, section) < 0)
			return fail(err, line, NULL, "unknown section [%.40s]", s + 1);
		return 0;
	}
	eq = strchr(s, '=');
	if (!eq)
		return fail(err, line, NULL, "expected 'Key=Value' or '[Section]', got '%.40s'", s);
	*eq = '\0';
	key = strip(s);
	value = strip(eq + 1);
	if (*key == '\0')
		return fail(err, line, NULL, "assignment without a key");

	if (*section)
		return (*section)(c, line, key, value, err);
	return fail(err, line, key, "key '%s' outside of any section", key);
}

int config_parse_entry(struct ibh_config *c, const char *section, const char *key,
		       const char *value, struct ibh_config_error *err)
{
	struct ibh_config parsed = *c;
	section_parser parse;
	char buf[1024];
	int r;

	if (parse_section(section, &parse) < 0)
		return fail(err, 0, NULL, "unknown section [%.40s]", section);
	if (strlen(value) >= sizeof(buf))
		return fail(err, 0, key, "value longer than %zu characters", sizeof(buf) - 1);
	snprintf(buf, sizeof(buf), "%s", value);
	r = parse(&parsed, 0, key, buf, err);
	if (r < 0)
		return r;
	*c = parsed;
	return 0;
}

int config_parse(struct ibh_config *c, const char *text, size_t size, struct ibh_config_error *err)
{
	struct ibh_config parsed;
	int r;

	config_defaults(&parsed);
	r = config_parse_over(&parsed, text, size, err);
	if (r < 0)
		return r;
	*c = parsed;
	return 0;
}

int config_parse_over(struct ibh_config *c, const char *text, size_t size,
		      struct ibh_config_error *err)
{
	section_parser section = NULL;
	struct ibh_config parsed = *c;
	unsigned int line = 0;
	char buf[1024];
	size_t pos = 0;

	parsed.n_tables_earlier = parsed.n_tables;
	parsed.n_gateways_earlier = parsed.n_gateways;
	while (pos < size) {
		const char *nl = memchr(text + pos, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : size - pos;
		int r;

		line++;
		if (memchr(text + pos, '\0', n))
			return fail(err, line, NULL, "NUL byte in line");
		if (n >= sizeof(buf))
			return fail(err, line, NULL, "line longer than %zu characters",
				    sizeof(buf) - 1);
		memcpy(buf, text + pos, n);
		buf[n] = '\0';
		r = parse_line(&parsed, &section, line, buf, err);
		if (r < 0)
			return r;
		pos += n + 1;
	}
	*c = parsed;
	return 0;
}

/* one file over c; a missing file is fine when missing_ok (*found says whether it was read) */
static int load_one(struct ibh_config *c, const char *path, bool missing_ok, bool *found,
		    struct ibh_config_error *err)
{
	struct stat st;
	char *text = NULL;
	ssize_t n;
	int fd, r;

	/* O_NONBLOCK: opening a FIFO must not hang a dispatcher; fstat() then refuses it */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT && missing_ok) {
			*found = false;
			return 0;
		}
		r = -errno;
		return fail(err, 0, NULL, "cannot open: %s", strerror(-r));
	}
	if (fstat(fd, &st) < 0) {
		r = fail(err, 0, NULL, "cannot stat: %s", strerror(errno));
		goto cleanup;
	}
	/* a link to /dev/null masks a file, as with systemd's drop-ins */
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		*found = false;
		r = 0;
		goto cleanup;
	}
	if (!S_ISREG(st.st_mode)) {
		r = fail(err, 0, NULL, "not a regular file");
		goto cleanup;
	}
	/* ib-hook runs as root from dispatchers: whoever may write its config owns the host */
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		r = fail(err, 0, NULL,
			 "refusing a configuration file writable by others than root (owner %u, "
			 "mode %04o)",
			 (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
		goto cleanup;
	}
	if (st.st_size > IBH_CONFIG_MAX_SIZE) {
		r = fail(err, 0, NULL, "larger than %d bytes", IBH_CONFIG_MAX_SIZE);
		goto cleanup;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		r = -ENOMEM;
		goto cleanup;
	}
	n = read(fd, text, (size_t)st.st_size + 1);
	if (n < 0) {
		r = fail(err, 0, NULL, "cannot read: %s", strerror(errno));
		goto cleanup;
	}
	r = config_parse_over(c, text, (size_t)n, err);
	*found = r == 0;
cleanup:
	free(text);
	close(fd);
	return r;
}

static int conf_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	/* like systemd's drop-ins: NAME.conf, hidden files and editors' leftovers ignored */
	return d->d_name[0] != '.' && n > 5 && strcmp(d->d_name + n - 5, ".conf") == 0;
}

static void add_name(char *files, size_t size, const char *path)
{
	size_t used = strlen(files);

	snprintf(files + used, size - used, "%s%s", used ? "\n" : "", path);
}

int config_load_all(struct ibh_config *c, const char *path, const char *dropin_dir,
		    struct ibh_config_error *err, char *files, size_t size)
{
	struct dirent **names = NULL;
	struct ibh_config next;
	bool found = false;
	int n, r;

	config_defaults(&next);
	files[0] = '\0';
	snprintf(err->path, sizeof(err->path), "%s", path);
	r = load_one(&next, path, dropin_dir != NULL, &found, err);
	if (r < 0)
		return r;
	if (found)
		add_name(files, size, path);
	if (!dropin_dir)
		goto done;
	n = scandir(dropin_dir, &names, conf_name, alphasort);
	if (n < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			goto done;
		snprintf(err->path, sizeof(err->path), "%s", dropin_dir);
		return fail(err, 0, NULL, "cannot read the directory: %s", strerror(errno));
	}
	for (int i = 0; i < n; i++) {
		char one[PATH_MAX];

		snprintf(one, sizeof(one), "%s/%s", dropin_dir, names[i]->d_name);
		if (r == 0) {
			snprintf(err->path, sizeof(err->path), "%s", one);
			/* a dangling link is a drop-in switched off, as with systemd's units */
			r = load_one(&next, one, true, &found, err);
			if (r == 0 && found)
				add_name(files, size, one);
		}
		free(names[i]);
	}
	free(names);
	if (r < 0)
		return r;
done:
	*c = next;
	return 0;
}

void config_error_format(const struct ibh_config_error *err, int r, char *buf, size_t size)
{
	if (err->line)
		snprintf(buf, size, "%s:%u: %s", err->path, err->line, err->message);
	else
		snprintf(buf, size, "%s: %s", err->path,
			 err->message[0] ? err->message : strerror(r < 0 ? -r : r));
}
