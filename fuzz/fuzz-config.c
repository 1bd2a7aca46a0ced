// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for config_parse(): the input is the text of an
 * ib-hook.conf. Beyond "no crash, no leak" it checks what the rest of ib-hook
 * relies on: a parsed configuration never names a reserved table or a rule
 * priority outside 1..32765, a failure leaves the caller's configuration alone
 * and says why, and a parsed configuration written back as text parses to the
 * same configuration. The same text read again as a drop-in over it
 * (config_parse_over) either fails leaving it alone or gives a valid one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "sysctl.h"

static const int sysctl_max[IBH_SYSCTL_MAX] = {
	[IBH_SYSCTL_ARP_IGNORE] = 8,
	[IBH_SYSCTL_ARP_ANNOUNCE] = 2,
	[IBH_SYSCTL_RP_FILTER] = 2,
	[IBH_SYSCTL_ACCEPT_LOCAL] = 1,
};

static const char *const sysctl_key[IBH_SYSCTL_MAX] = {
	[IBH_SYSCTL_ARP_IGNORE] = "ArpIgnore",
	[IBH_SYSCTL_ARP_ANNOUNCE] = "ArpAnnounce",
	[IBH_SYSCTL_RP_FILTER] = "RpFilter",
	[IBH_SYSCTL_ACCEPT_LOCAL] = "AcceptLocal",
};

static bool terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/* field by field: struct assignment need not copy padding */
static bool config_equal(const struct ibh_config *a, const struct ibh_config *b)
{
	if (a->n_globs != b->n_globs || a->table_base != b->table_base ||
	    a->priority != b->priority || a->main_route != b->main_route || a->ipv6 != b->ipv6 ||
	    a->n_tables != b->n_tables)
		return false;
	for (int k = 0; k < IBH_HOOK_MAX; k++)
		if (a->hooks[k] != b->hooks[k])
			return false;
	if (a->ipoib_mode != b->ipoib_mode || a->ipoib_mtu != b->ipoib_mtu)
		return false;
	for (size_t i = 0; i < a->n_globs; i++)
		if (strcmp(a->globs[i], b->globs[i]) != 0)
			return false;
	for (size_t i = 0; i < a->n_tables; i++)
		if (strcmp(a->tables[i].ifname, b->tables[i].ifname) != 0 ||
		    a->tables[i].table != b->tables[i].table)
			return false;
	for (int k = 0; k < IBH_SYSCTL_MAX; k++)
		if (a->sysctl[k] != b->sysctl[k])
			return false;
	return true;
}

static void check_valid(const struct ibh_config *c)
{
	static const int ifindexes[] = { 1, 2, 255, INT32_MAX };

	if (c->priority < 1 || c->priority > 32765)
		abort();
	if (c->table_base > INT32_MAX)
		abort();
	if (c->main_route != IBH_MAIN_KEEP && c->main_route != IBH_MAIN_DELETE)
		abort();
	if (c->ipoib_mode > IBH_IPOIB_CONNECTED ||
	    (c->ipoib_mtu && (c->ipoib_mtu < 68 || c->ipoib_mtu > 65520)))
		abort();
	if (c->n_globs > IBH_MAX_GLOBS || c->n_tables > IBH_MAX_TABLES)
		abort();
	for (size_t i = 0; i < c->n_globs; i++) {
		const char *g = c->globs[i];

		if (!terminated(g, IBH_MAX_GLOB_LEN) || g[0] == '\0')
			abort();
		/* the kernel refuses such bytes in a name: a glob with them never matches */
		for (const char *p = g; *p; p++)
			if ((unsigned char)*p < 0x21 || *p == 0x7f) {
				fprintf(stderr, "Name= glob %zu holds byte 0x%02x\n", i,
					(unsigned char)*p);
				abort();
			}
	}
	for (size_t i = 0; i < c->n_tables; i++) {
		const struct ibh_table_entry *t = &c->tables[i];

		if (!terminated(t->ifname, IF_NAMESIZE) || t->ifname[0] == '\0' ||
		    strchr(t->ifname, '/') || strcmp(t->ifname, ".") == 0 ||
		    strcmp(t->ifname, "..") == 0)
			abort();
		if (table_is_reserved(t->table))
			abort();
		/* names may share a table (one file for a lab), but not have two */
		for (size_t j = 0; j < i; j++)
			if (strcmp(c->tables[j].ifname, t->ifname) == 0)
				abort();
		if (c->n_tables_earlier > c->n_tables)
			abort();
		if (config_table_of(c, t->ifname) != t->table ||
		    !config_table_is_listed(c, t->table) ||
		    config_table(c, t->ifname, 1) != t->table)
			abort();
	}
	/* a computed table is either usable or 0, never a reserved one */
	for (size_t i = 0; i < sizeof(ifindexes) / sizeof(ifindexes[0]); i++) {
		uint32_t t = config_table(c, "fuzz-unlisted", ifindexes[i]);

		if (t != 0 && table_is_reserved(t))
			abort();
	}
	for (int k = 0; k < IBH_SYSCTL_MAX; k++)
		if (c->sysctl[k] != IBH_SYSCTL_KEEP &&
		    (c->sysctl[k] < 0 || c->sysctl[k] > sysctl_max[k]))
			abort();
}

/* c as an ib-hook.conf: one Name= per glob, so that no line grows too long */
static char *config_format(const struct ibh_config *c, size_t *ret_size)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		abort();
	fprintf(f, "[Match]\n");
	for (size_t i = 0; i < c->n_globs; i++)
		fprintf(f, "Name=%s\n", c->globs[i]);
	fprintf(f, "[Routing]\nTableBase=%u\nPriority=%u\nMainRoute=%s\nIPv6=%s\n[Tables]\n",
		c->table_base, c->priority, c->main_route == IBH_MAIN_DELETE ? "delete" : "keep",
		c->ipv6 ? "yes" : "no");
	for (size_t i = 0; i < c->n_tables; i++)
		fprintf(f, "%s=%u\n", c->tables[i].ifname, c->tables[i].table);
	fprintf(f, "[Sysctl]\n");
	for (int k = 0; k < IBH_SYSCTL_MAX; k++) {
		if (c->sysctl[k] == IBH_SYSCTL_KEEP)
			fprintf(f, "%s=keep\n", sysctl_key[k]);
		else
			fprintf(f, "%s=%d\n", sysctl_key[k], c->sysctl[k]);
	}
	fprintf(f, "[Hooks]\n");
	for (int k = 0; k < IBH_HOOK_MAX; k++)
		fprintf(f, "%s=%s\n", hook_family((enum ibh_hook_family)k)->key,
			c->hooks[k] ? "yes" : "no");
	fprintf(f, "[IPoIB]\nMode=%s\n", ipoib_mode_name(c->ipoib_mode));
	if (c->ipoib_mtu)
		fprintf(f, "MTU=%u\n", c->ipoib_mtu);
	else
		fprintf(f, "MTU=keep\n");
	if (fclose(f) != 0)
		abort();
	*ret_size = size;
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibh_config c, canary, again, over;
	struct ibh_config_error err;
	size_t text_size;
	char *text;
	int r;

	memset(&c, 0x5a, sizeof(c));
	memcpy(&canary, &c, sizeof(c));
	memset(&err, 0, sizeof(err));
	r = config_parse(&c, (const char *)data, size, &err);
	if (r < 0) {
		/* ret-parameters are written only on success; the error says why */
		if (memcmp(&c, &canary, sizeof(c)) != 0 || err.message[0] == '\0' ||
		    !terminated(err.message, sizeof(err.message)) ||
		    !terminated(err.key, sizeof(err.key)))
			abort();
		return 0;
	}
	if (r != 0)
		abort();
	check_valid(&c);

	text = config_format(&c, &text_size);
	memset(&err, 0, sizeof(err));
	if (config_parse(&again, text, text_size, &err) < 0) {
		fprintf(stderr, "re-parse failed at line %u: %s\n%s", err.line, err.message, text);
		abort();
	}
	if (!config_equal(&c, &again)) {
		fprintf(stderr, "re-parse differs:\n%s", text);
		abort();
	}
	free(text);

	/* the same text as a drop-in over what it gave */
	memcpy(&over, &c, sizeof(over));
	memset(&err, 0, sizeof(err));
	r = config_parse_over(&over, (const char *)data, size, &err);
	if (r < 0) {
		if (memcmp(&over, &c, sizeof(c)) != 0 || err.message[0] == '\0')
			abort();
	} else {
		check_valid(&over);
	}
	return 0;
}
