// SPDX-License-Identifier: GPL-2.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <errno.h>
#include <cmocka.h>

#include "config.h"
#include "sysctl.h"

static int parse(struct ibh_config *c, const char *text, struct ibh_config_error *err)
{
	memset(err, 0, sizeof(*err));
	return config_parse(c, text, strlen(text), err);
}

static void test_defaults(void **state)
{
	struct ibh_config c;
	struct ibh_config_error err;

	assert_int_equal(parse(&c, "", &err), 0);
	assert_int_equal(c.n_globs, 0);
	assert_int_equal(c.table_base, 1000);
	assert_int_equal(c.priority, 1000);
	assert_int_equal(c.main_route, IBH_MAIN_KEEP);
	assert_true(c.ipv6);
	assert_int_equal(c.n_tables, 0);
	assert_int_equal(c.sysctl[IBH_SYSCTL_ARP_IGNORE], 2);
	assert_int_equal(c.sysctl[IBH_SYSCTL_ARP_ANNOUNCE], 2);
	assert_int_equal(c.sysctl[IBH_SYSCTL_RP_FILTER], IBH_SYSCTL_KEEP);
	assert_int_equal(c.sysctl[IBH_SYSCTL_ACCEPT_LOCAL], IBH_SYSCTL_KEEP);
}

static void test_every_key(void **state)
{
	static const char text[] = "# comment\n"
				   "; another comment\n"
				   "[Match]\n"
				   "Name=ib* ibs*\n"
				   "Name = ibp4s0d1\t\n"
				   "\n"
				   "[Routing]\n"
				   "TableBase=2000\n"
				   "Priority = 500\n"
				   "MainRoute=delete\n"
				   "IPv6=no\n"
				   "GatewayRoutes=no\n"
				   "[Gateways]\n"
				   "ib1=peer\n"
				   "ib2 = 10.200.0.4 fe80::1\n"
				   "[Tables]\n"
				   "ib0=941\n"
				   "ib1 = 942\r\n"
				   "[Sysctl]\n"
				   "ArpIgnore=1\n"
				   "ArpAnnounce=keep\n"
				   "RpFilter=1\n"
				   "AcceptLocal=1\n";
	struct ibh_config c;
	struct ibh_config_error err;

	assert_int_equal(parse(&c, text, &err), 0);
	assert_int_equal(c.n_globs, 3);
	assert_string_equal(c.globs[0], "ib*");
	assert_string_equal(c.globs[1], "ibs*");
	assert_string_equal(c.globs[2], "ibp4s0d1");
	assert_int_equal(c.table_base, 2000);
	assert_int_equal(c.priority, 500);
	assert_int_equal(c.main_route, IBH_MAIN_DELETE);
	assert_false(c.ipv6);
	assert_false(c.gateway_routes);
	assert_int_equal(c.n_gateways, 2);
	assert_true(config_gateway_of(&c, "ib1")->peer);
	assert_int_equal(config_gateway_of(&c, "ib1")->n_gw, 0);
	assert_false(config_gateway_of(&c, "ib2")->peer);
	assert_int_equal(config_gateway_of(&c, "ib2")->n_gw, 2);
	assert_int_equal(config_gateway_of(&c, "ib2")->gw[1].family, AF_INET6);
	assert_null(config_gateway_of(&c, "ib0"));
	assert_int_equal(c.n_tables, 2);
	assert_int_equal(config_table_of(&c, "ib0"), 941);
	assert_int_equal(config_table_of(&c, "ib1"), 942);
	assert_int_equal(config_table_of(&c, "ib2"), 0);
	assert_int_equal(c.sysctl[IBH_SYSCTL_ARP_IGNORE], 1);
	assert_int_equal(c.sysctl[IBH_SYSCTL_ARP_ANNOUNCE], IBH_SYSCTL_KEEP);
	assert_int_equal(c.sysctl[IBH_SYSCTL_RP_FILTER], 1);
	assert_int_equal(c.sysctl[IBH_SYSCTL_ACCEPT_LOCAL], 1);
}

static void test_empty_name_resets(void **state)
{
	struct ibh_config c;
	struct ibh_config_error err;

	assert_int_equal(parse(&c, "[Match]\nName=ib*\nName=\nName=eth1\n", &err), 0);
	assert_int_equal(c.n_globs, 1);
	assert_string_equal(c.globs[0], "eth1");
}

static void test_utf8_interface_name(void **state)
{
	struct ibh_config c;
	struct ibh_config_error err;

	/* the kernel allows any byte but '/', ':' and blanks in a name */
	assert_int_equal(parse(&c, "[Tables]\nib\xc3\xa9=941\n", &err), 0);
	assert_int_equal(config_table_of(&c, "ib\xc3\xa9"), 941);
}

static void test_booleans(void **state)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	struct ibh_config c;
	struct ibh_config_error err;
	char text[64];

	for (size_t i = 0; i < 4; i++) {
		snprintf(text, sizeof(text), "[Routing]\nIPv6=%s\n", yes[i]);
		assert_int_equal(parse(&c, text, &err), 0);
		assert_true(c.ipv6);
		snprintf(text, sizeof(text), "[Routing]\nIPv6=%s\n", no[i]);
		assert_int_equal(parse(&c, text, &err), 0);
		assert_false(c.ipv6);
	}
}

struct bad_case {
	const char *text;
	unsigned int line;
	const char *key;
	const char *message; /* a part of it */
};

static void test_errors(void **state)
{
	static const struct bad_case cases[] = {
		{ "[Routing]\nFoo=1\n", 2, "Foo", "unknown key 'Foo' in section [Routing]" },
		{ "[Match]\nname=ib*\n", 2, "name", "unknown key 'name'" },
		{ "[Sysctl]\nArpFilter=1\n", 2, "ArpFilter", "unknown key" },
		{ "[Bogus]\nA=1\n", 1, "", "unknown section [Bogus]" },
		{ "[Routing\n", 1, "", "lacks ']'" },
		{ "TableBase=1\n", 1, "TableBase", "outside of any section" },
		{ "[Routing]\njust words\n", 2, "", "expected 'Key=Value'" },
		{ "[Routing]\n=5\n", 2, "", "without a key" },
		{ "[Routing]\n\n\nPriority=0\n", 4, "Priority", "from 1 to 32765" },
		{ "[Routing]\nPriority=32766\n", 2, "Priority", "from 1 to 32765" },
		{ "[Routing]\nPriority=-1\n", 2, "Priority", "not a number" },
		{ "[Routing]\nPriority=1e3\n", 2, "Priority", "not a number" },
		{ "[Routing]\nPriority=\n", 2, "Priority", "not a number" },
		{ "[Routing]\nTableBase=99999999999\n", 2, "TableBase", "not a number" },
		{ "[Routing]\nMainRoute=remove\n", 2, "MainRoute", "neither 'keep' nor 'delete'" },
		{ "[Routing]\nIPv6=maybe\n", 2, "IPv6", "neither 'yes' nor 'no'" },
		{ "[Routing]\nGatewayRoutes=copy\n", 2, "GatewayRoutes", "neither 'yes' nor 'no'" },
		{ "[Gateways]\nib1=gw\n", 2, "ib1",
		  "gateway 'gw' is neither 'peer' nor an address" },
		{ "[Gateways]\nib1=10.0.0.1 10.0.0.2\n", 2, "ib1", "two IPv4 gateways" },
		{ "[Gateways]\nib1=\n", 2, "ib1", "no gateway for 'ib1'" },
		{ "[Gateways]\nib1=peer\nib1=10.0.0.1\n", 3, "ib1", "already has a gateway" },
		{ "[Gateways]\nib/1=peer\n", 2, "ib/1", "not a valid interface name" },
		{ "[Tables]\nib0=254\n", 2, "ib0", "other than 253, 254, 255" },
		{ "[Tables]\nib0=0\n", 2, "ib0", "from 1 to" },
		{ "[Tables]\nib0=4294967296\n", 2, "ib0", "from 1 to" },
		{ "[Tables]\nib0=main\n", 2, "ib0", "from 1 to" },
		{ "[Tables]\nib0=941\nib0=942\n", 3, "ib0", "already has table 941" },
		{ "[Tables]\nib/0=941\n", 2, "ib/0", "not a valid interface name" },
		{ "[Tables]\naveryveryverylongname=941\n", 2, "averyveryverylongname",
		  "not a valid" },
		{ "[Match]\nName=ib0\vib1\n", 2, "Name", "control character" },
		{ "[Sysctl]\nArpIgnore=9\n", 2, "ArpIgnore", "from 0 to 8" },
		{ "[Sysctl]\nArpAnnounce=3\n", 2, "ArpAnnounce", "from 0 to 2" },
		{ "[Sysctl]\nRpFilter=strict\n", 2, "RpFilter", "neither 'keep'" },
		{ "[Sysctl]\nAcceptLocal=2\n", 2, "AcceptLocal", "from 0 to 1" },
	};
	struct ibh_config c;
	struct ibh_config_error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		config_defaults(&c);
		c.priority = 4242;
		print_message("case %zu: %s", i, cases[i].text);
		assert_int_equal(parse(&c, cases[i].text, &err), -EINVAL);
		assert_int_equal(err.line, cases[i].line);
		assert_string_equal(err.key, cases[i].key);
		assert_non_null(strstr(err.message, cases[i].message));
		/* a failed parse leaves the caller's config alone */
		assert_int_equal(c.priority, 4242);
	}
}

static void test_nul_and_long_lines(void **state)
{
	static const char nul[] = "[Routing]\nPriority=1\0\n";
	struct ibh_config c;
	struct ibh_config_error err;
	char *longline = malloc(2048);

	assert_int_equal(config_parse(&c, nul, sizeof(nul) - 1, &err), -EINVAL);
	assert_int_equal(err.line, 2);
	memset(longline, 'a', 2047);
	longline[2047] = '\0';
	assert_int_equal(parse(&c, longline, &err), -EINVAL);
	assert_int_equal(err.line, 1);
	free(longline);
}

static void test_table_computation(void **state)
{
	struct ibh_config c;
	struct ibh_config_error err;

	assert_int_equal(parse(&c, "[Tables]\nib1=942\n", &err), 0);
	assert_int_equal(config_table(&c, "ib0", 3), 1003);
	assert_int_equal(config_table(&c, "ib1", 4), 942);
	/* base + ifindex landing on main, default, local or 0 is refused */
	c.table_base = 250;
	assert_int_equal(config_table(&c, "ib0", 3), 0);
	assert_int_equal(config_table(&c, "ib0", 4), 0);
	assert_int_equal(config_table(&c, "ib0", 6), 256);
	c.table_base = 0;
	assert_int_equal(config_table(&c, "ib0", 7), 7);
	assert_true(table_is_reserved(0));
	assert_true(table_is_reserved(253));
	assert_true(table_is_reserved(255));
	assert_true(table_is_reserved(1ULL << 32));
	assert_false(table_is_reserved(252));
	assert_false(table_is_reserved(256));
	assert_true(config_table_is_listed(&c, 942));
	assert_false(config_table_is_listed(&c, 941));
}

static void test_load(void **state)
{
	char path[] = "/tmp/ib-hook-test-conf.XXXXXX";
	struct ibh_config c;
	struct ibh_config_error err = {};
	char files[512];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "[Routing]\nPriority=77\n", 22), 22);
	close(fd);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(config_load_all(&c, path, NULL, &err, files, sizeof(files)), 0);
	assert_int_equal(c.priority, 77);
	/* a file others may write is refused: ib-hook runs as root */
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(config_load_all(&c, path, NULL, &err, files, sizeof(files)), -EINVAL);
	assert_non_null(strstr(err.message, "writable by others"));
	unlink(path);
	/* a missing default file means defaults; a missing named one is an error */
	assert_int_equal(config_load_all(&c, path, "/nonexistent", &err, files, sizeof(files)), 0);
	assert_int_equal(c.priority, 1000);
	assert_true(config_load_all(&c, path, NULL, &err, files, sizeof(files)) < 0);
	assert_non_null(strstr(err.message, "cannot open"));
}

static void test_hooks(void **state)
{
	struct ibh_config c;
	struct ibh_config_error err;

	assert_int_equal(parse(&c, "", &err), 0);
	for (int i = 0; i < IBH_HOOK_MAX; i++)
		assert_true(c.hooks[i]);
	assert_int_equal(parse(&c, "[Hooks]\nNetworkd=no\nNetworkManager=off\n", &err), 0);
	assert_false(c.hooks[IBH_HOOK_NETWORKD]);
	assert_true(c.hooks[IBH_HOOK_IFUPDOWN]);
	assert_false(c.hooks[IBH_HOOK_NETWORKMANAGER]);
	assert_int_equal(parse(&c, "[Hooks]\nIfupdown=maybe\n", &err), -EINVAL);
	assert_int_equal(err.line, 2);
	assert_string_equal(err.key, "Ifupdown");
	assert_int_equal(parse(&c, "[Hooks]\nWatcher=no\n", &err), -EINVAL);
	assert_non_null(strstr(err.message, "unknown key 'Watcher' in section [Hooks]"));
}

static void test_ipoib_keys(void **state)
{
	struct ibh_config c;
	struct ibh_config_error err;

	assert_int_equal(parse(&c, "", &err), 0);
	assert_int_equal(c.ipoib_mode, IBH_IPOIB_KEEP);
	assert_int_equal(c.ipoib_mtu, 0);
	assert_int_equal(parse(&c, "[IPoIB]\nMode=connected\nMTU=65520\n", &err), 0);
	assert_int_equal(c.ipoib_mode, IBH_IPOIB_CONNECTED);
	assert_int_equal(c.ipoib_mtu, 65520);
	assert_int_equal(parse(&c, "[IPoIB]\nMode=datagram\nMTU=keep\n", &err), 0);
	assert_int_equal(c.ipoib_mode, IBH_IPOIB_DATAGRAM);
	assert_int_equal(c.ipoib_mtu, 0);
	assert_int_equal(parse(&c, "[IPoIB]\nMode=enhanced\n", &err), -EINVAL);
	assert_string_equal(err.message,
			    "Mode 'enhanced' is neither 'keep', 'connected' nor 'datagram'");
	assert_int_equal(parse(&c, "[IPoIB]\nMTU=65521\n", &err), -EINVAL);
	assert_int_equal(err.line, 2);
	assert_int_equal(parse(&c, "[IPoIB]\nMTU=67\n", &err), -EINVAL);
	assert_int_equal(parse(&c, "[IPoIB]\nUmcast=yes\n", &err), -EINVAL);
	assert_non_null(strstr(err.message, "unknown key 'Umcast' in section [IPoIB]"));
	assert_string_equal(ipoib_mode_name(IBH_IPOIB_CONNECTED), "connected");
}

/* a drop-in over the main file: later values win, lists append, an empty Name= resets */
static void test_parse_over(void **state)
{
	static const char main_file[] = "[Match]\nName=ib*\n[Routing]\nPriority=900\n"
					"[Tables]\nib0=941\nib1=942\n";
	struct ibh_config c, before;
	struct ibh_config_error err = {};

	assert_int_equal(parse(&c, main_file, &err), 0);
	static const char dropin[] = "[Match]\nName=mlx*\n[Routing]\nPriority=901\n";
	assert_int_equal(config_parse_over(&c, dropin, strlen(dropin), &err), 0);
	assert_int_equal(c.n_globs, 2);
	assert_string_equal(c.globs[1], "mlx*");
	assert_int_equal(c.priority, 901);
	assert_int_equal(c.table_base, 1000);

	/* an interface of an earlier file gets another table; its old one is free again */
	static const char tables[] = "[Tables]\nib1=941\nib0=943\n";
	assert_int_equal(config_parse_over(&c, tables, strlen(tables), &err), 0);
	assert_int_equal(config_table_of(&c, "ib0"), 943);
	assert_int_equal(config_table_of(&c, "ib1"), 941);
	assert_false(config_table_is_listed(&c, 942));

	/* two names may share a table (one file for a lab); the engine refuses both where both exist */
	static const char shared[] = "[Tables]\nibs5f0=943\n";
	assert_int_equal(config_parse_over(&c, shared, strlen(shared), &err), 0);
	assert_int_equal(config_table_of(&c, "ibs5f0"), 943);

	/* ... but one file may not name an interface twice; a failed drop-in leaves c alone */
	before = c;
	static const char twice[] = "[Tables]\nib2=950\nib2=951\n";
	assert_int_equal(config_parse_over(&c, twice, strlen(twice), &err), -EINVAL);
	assert_int_equal(err.line, 3);
	assert_memory_equal(&c, &before, sizeof(c));

	static const char reset[] = "[Match]\nName=\nName=ibs*\n";
	assert_int_equal(config_parse_over(&c, reset, strlen(reset), &err), 0);
	assert_int_equal(c.n_globs, 1);
	assert_string_equal(c.globs[0], "ibs*");
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_load_dropins(void **state)
{
	char dir[] = "/tmp/ib-hook-test-dropins.XXXXXX", main_path[512], d[512], p[600],
	     files[2048], expect[2048];
	struct ibh_config c, before;
	struct ibh_config_error err = {};

	assert_non_null(mkdtemp(dir));
	snprintf(main_path, sizeof(main_path), "%s/ib-hook.conf", dir);
	snprintf(d, sizeof(d), "%s/ib-hook.conf.d", dir);

	/* neither the file nor the directory: the defaults, no file named */
	assert_int_equal(config_load_all(&c, main_path, d, &err, files, sizeof(files)), 0);
	assert_string_equal(files, "");
	assert_int_equal(c.priority, 1000);

	/* drop-ins without a main file, read in lexical order; other names are ignored */
	assert_int_equal(mkdir(d, 0755), 0);
	snprintf(p, sizeof(p), "%s/20-b.conf", d);
	write_file(p, "[Routing]\nPriority=920\n", 0644);
	snprintf(p, sizeof(p), "%s/10-a.conf", d);
	write_file(p, "[Routing]\nPriority=910\nTableBase=2000\n", 0644);
	snprintf(p, sizeof(p), "%s/30-c.conf.dpkg-old", d);
	write_file(p, "[Routing]\nPriority=930\n", 0644);
	snprintf(p, sizeof(p), "%s/.40-hidden.conf", d);
	write_file(p, "[Routing]\nPriority=940\n", 0644);
	assert_int_equal(config_load_all(&c, main_path, d, &err, files, sizeof(files)), 0);
	assert_int_equal(c.priority, 920);
	assert_int_equal(c.table_base, 2000);
	snprintf(expect, sizeof(expect), "%s/10-a.conf\n%s/20-b.conf", d, d);
	assert_string_equal(files, expect);

	/* the main file first, drop-ins over it */
	write_file(main_path, "[Routing]\nPriority=800\nMainRoute=delete\n", 0644);
	assert_int_equal(config_load_all(&c, main_path, d, &err, files, sizeof(files)), 0);
	assert_int_equal(c.priority, 920);
	assert_int_equal(c.main_route, IBH_MAIN_DELETE);
	snprintf(expect, sizeof(expect), "%s\n%s/10-a.conf\n%s/20-b.conf", main_path, d, d);
	assert_string_equal(files, expect);

	/* --config: that file alone */
	assert_int_equal(config_load_all(&c, main_path, NULL, &err, files, sizeof(files)), 0);
	assert_int_equal(c.priority, 800);
	assert_string_equal(files, main_path);

	/* a bad drop-in: the error names it and its line, and nothing is taken */
	before = c;
	snprintf(p, sizeof(p), "%s/15-bad.conf", d);
	write_file(p, "[Routing]\n\nPriority=zero\n", 0644);
	assert_int_equal(config_load_all(&c, main_path, d, &err, files, sizeof(files)), -EINVAL);
	assert_string_equal(err.path, p);
	assert_int_equal(err.line, 3);
	assert_memory_equal(&c, &before, sizeof(c));
	char msg[5000];
	config_error_format(&err, -EINVAL, msg, sizeof(msg));
	snprintf(expect, sizeof(expect), "%s:3: ", p);
	assert_memory_equal(msg, expect, strlen(expect));

	/* a drop-in others may write is refused like the main file */
	write_file(p, "", 0666);
	assert_int_equal(config_load_all(&c, main_path, d, &err, files, sizeof(files)), -EINVAL);
	assert_string_equal(err.path, p);
	assert_non_null(strstr(err.message, "writable by others"));
	unlink(p);

	/* a link to /dev/null masks a drop-in, as with systemd; a dangling one is no file */
	snprintf(p, sizeof(p), "%s/20-b.conf", d);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("/dev/null", p), 0);
	snprintf(p, sizeof(p), "%s/25-gone.conf", d);
	assert_int_equal(symlink("/nonexistent/ib-hook.conf", p), 0);
	assert_int_equal(config_load_all(&c, main_path, d, &err, files, sizeof(files)), 0);
	assert_int_equal(c.priority, 910);
	snprintf(expect, sizeof(expect), "%s\n%s/10-a.conf", main_path, d);
	assert_string_equal(files, expect);

	assert_int_equal(system((snprintf(p, sizeof(p), "rm -rf '%s'", dir), p)), 0);
}

/* an entry whose key the file's syntax cannot hold: a name the kernel accepts */
static void test_parse_entry(void **state)
{
	struct ibh_config c, before;
	struct ibh_config_error err = {};
	const struct ibh_gateway_entry *g;

	(void)state;
	assert_int_equal(parse(&c, "[Tables]\nnet1=900\n", &err), 0);
	assert_int_equal(config_parse_entry(&c, "Tables", "rail#1", "742", &err), 0);
	assert_int_equal(config_table_of(&c, "rail#1"), 742);
	assert_int_equal(config_table_of(&c, "net1"), 900);
	assert_int_equal(config_parse_entry(&c, "Gateways", "r=1", "10.0.0.1 fd00::1", &err), 0);
	g = config_gateway_of(&c, "r=1");
	assert_non_null(g);
	assert_int_equal(g->n_gw, 2);
	/* the reader's own rules, and c unchanged on error */
	before = c;
	assert_int_equal(config_parse_entry(&c, "Tables", "rail[1]", "255", &err), -EINVAL);
	assert_int_equal(config_parse_entry(&c, "Tables", "rail#1", "743", &err), -EINVAL);
	assert_int_equal(config_parse_entry(&c, "Gateways", "a/b", "10.0.0.1", &err), -EINVAL);
	assert_int_equal(config_parse_entry(&c, "Nope", "x", "1", &err), -EINVAL);
	assert_memory_equal(&c, &before, sizeof(c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_empty_name_resets),
		cmocka_unit_test(test_utf8_interface_name),
		cmocka_unit_test(test_booleans),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nul_and_long_lines),
		cmocka_unit_test(test_table_computation),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_hooks),
		cmocka_unit_test(test_ipoib_keys),
		cmocka_unit_test(test_parse_over),
		cmocka_unit_test(test_load_dropins),
		cmocka_unit_test(test_parse_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
