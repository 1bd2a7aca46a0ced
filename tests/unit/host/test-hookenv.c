// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "hookenv.h"

static enum ibh_action action(struct ibh_hook_env env)
{
	struct ibh_hook h;

	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_string_equal(h.iface, env.iface);
	return h.action;
}

static void test_networkd_dispatcher(void **state)
{
	assert_int_equal(action((struct ibh_hook_env){ .iface = "ib1", .state = "routable" }),
			 IBH_ACTION_APPLY);
	assert_int_equal(action((struct ibh_hook_env){ .iface = "ib1", .state = "configured" }),
			 IBH_ACTION_APPLY);
	assert_int_equal(action((struct ibh_hook_env){ .iface = "ib1", .state = "off" }),
			 IBH_ACTION_REMOVE);
	assert_int_equal(action((struct ibh_hook_env){ .iface = "ib1", .state = "no-carrier" }),
			 IBH_ACTION_REMOVE);
	assert_int_equal(action((struct ibh_hook_env){ .iface = "ib1", .state = "degraded" }),
			 IBH_ACTION_NONE);
	assert_int_equal(action((struct ibh_hook_env){ .iface = "ib1", .state = "carrier" }),
			 IBH_ACTION_NONE);
	assert_int_equal(action((struct ibh_hook_env){ .iface = "ib1", .state = "" }),
			 IBH_ACTION_NONE);
}

static void test_ifupdown(void **state)
{
	assert_int_equal(
		action((struct ibh_hook_env){
			.iface = "ib1", .mode = "start", .phase = "post-up", .addrfam = "inet" }),
		IBH_ACTION_APPLY);
	assert_int_equal(
		action((struct ibh_hook_env){
			.iface = "ib1", .mode = "start", .phase = "post-up", .addrfam = "inet6" }),
		IBH_ACTION_APPLY);
	assert_int_equal(
		action((struct ibh_hook_env){
			.iface = "ib1", .mode = "start", .phase = "pre-up", .addrfam = "inet" }),
		IBH_ACTION_NONE);
	assert_int_equal(
		action((struct ibh_hook_env){
			.iface = "ib1", .mode = "stop", .phase = "post-down", .addrfam = "inet" }),
		IBH_ACTION_REMOVE);
	assert_int_equal(
		action((struct ibh_hook_env){
			.iface = "--all", .mode = "start", .phase = "post-up", .addrfam = "meta" }),
		IBH_ACTION_NONE);
	assert_int_equal(
		action((struct ibh_hook_env){
			.iface = "ib1", .mode = "start", .phase = "post-up", .addrfam = "meta" }),
		IBH_ACTION_NONE);
	assert_int_equal(
		action((struct ibh_hook_env){
			.iface = "lo", .mode = "start", .phase = "post-up", .addrfam = "inet" }),
		IBH_ACTION_NONE);
}

static void test_networkmanager(void **state)
{
	struct ibh_hook_env env = { .iface = "ib1",
				    .mode = "start",
				    .phase = "post-up",
				    .addrfam = "inet",
				    .method = "NetworkManager" };
	struct ibh_hook h;

	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_int_equal(h.action, IBH_ACTION_APPLY);
	assert_string_equal(h.source, "NetworkManager");
}

static struct ibh_hook nm(const char *iface, const char *action)
{
	struct ibh_hook_env env = { .nm_arg_iface = iface,
				    .nm_arg_action = action,
				    .nm_action = action,
				    .device_iface = iface,
				    .device_ip_iface = iface };
	struct ibh_hook h;

	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_string_equal(h.source, "NetworkManager");
	return h;
}

static void test_networkmanager_native(void **state)
{
	static const char *const apply[] = { "up", "dhcp4-change", "dhcp6-change", "reapply" };
	static const char *const none[] = {
		"vpn-up", "vpn-down",	"hostname",	"connectivity-change",
		"pre-up", "vpn-pre-up", "vpn-pre-down", "UP",
		"",	  "up "
	};
	struct ibh_hook_env env = {};
	struct ibh_hook h;

	for (size_t i = 0; i < sizeof(apply) / sizeof(apply[0]); i++) {
		h = nm("ib1", apply[i]);
		assert_int_equal(h.action, IBH_ACTION_APPLY);
		assert_string_equal(h.iface, "ib1");
	}
	assert_int_equal(nm("ib1", "down").action, IBH_ACTION_REMOVE);
	assert_int_equal(nm("ib1", "pre-down").action, IBH_ACTION_REMOVE);
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		assert_int_equal(nm("ib1", none[i]).action, IBH_ACTION_NONE);

	/* hostname and connectivity-change name no interface: nothing to do */
	h = nm("", "up");
	assert_int_equal(h.action, IBH_ACTION_NONE);
	assert_string_equal(h.iface, "");
	assert_int_equal(nm("none", "hostname").action, IBH_ACTION_NONE);
	assert_int_equal(nm("lo", "up").action, IBH_ACTION_NONE);

	/* hostile names are nobody's link */
	assert_int_equal(nm("../../etc", "up").action, IBH_ACTION_NONE);
	assert_int_equal(nm("ib/1", "up").action, IBH_ACTION_NONE);
	assert_int_equal(nm("ib1\n", "down").action, IBH_ACTION_NONE);
	assert_int_equal(nm("ib 1", "up").action, IBH_ACTION_NONE);
	assert_int_equal(nm("..", "up").action, IBH_ACTION_NONE);
	assert_int_equal(nm("abcdefghijklmnop", "up").action, IBH_ACTION_NONE);
	assert_int_equal(nm("abcdefghijklmno", "up").action, IBH_ACTION_APPLY);
	/* the kernel's rule (dev_valid_name): its isspace() bytes are blanks, the rest names */
	assert_int_equal(nm("ib\t1", "up").action, IBH_ACTION_NONE);
	assert_int_equal(nm("ib\v1", "up").action, IBH_ACTION_NONE);
	assert_int_equal(nm("ib\r1", "up").action, IBH_ACTION_NONE);
	assert_int_equal(nm("ib\xa0", "up").action, IBH_ACTION_NONE);
	assert_int_equal(nm("ib:1", "up").action, IBH_ACTION_NONE);
	assert_int_equal(nm("\x01ib", "up").action, IBH_ACTION_APPLY);
	assert_int_equal(nm("ib\x1f", "up").action, IBH_ACTION_APPLY);
	assert_int_equal(nm("ib\x7f", "up").action, IBH_ACTION_APPLY);
	assert_int_equal(nm("ib\xff", "up").action, IBH_ACTION_APPLY);
	assert_int_equal(nm("ib\xc3\xa9", "up").action, IBH_ACTION_APPLY);

	/* the variables alone, as a script replayed by hand: IP interface first */
	env = (struct ibh_hook_env){ .nm_action = "up",
				     .device_iface = "ib1",
				     .device_ip_iface = "ib0" };
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_string_equal(h.iface, "ib0");
	assert_int_equal(h.action, IBH_ACTION_APPLY);
	env.device_ip_iface = NULL;
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_string_equal(h.iface, "ib1");
	/* the argument wins over the variables */
	env.nm_arg_iface = "ib0";
	env.nm_arg_action = "down";
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_string_equal(h.iface, "ib0");
	assert_int_equal(h.action, IBH_ACTION_REMOVE);

	/* bookworm's 01-ifupdown bridge: run-parts gives IFACE and no argument */
	env = (struct ibh_hook_env){ .iface = "ib1",
				     .mode = "stop",
				     .phase = "post-down",
				     .addrfam = "inet",
				     .method = "NetworkManager",
				     .nm_action = "up",
				     .device_iface = "ib1" };
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_int_equal(h.action, IBH_ACTION_REMOVE);
}

/* ifupdown's alias stanza `iface ib1:0 inet static`: IFACE and LOGICAL are ib1:0 */
static void test_ifupdown_alias(void **state)
{
	struct ibh_hook_env env = {
		.iface = "ib1:0", .mode = "start", .phase = "post-up", .addrfam = "inet"
	};
	struct ibh_hook h;

	(void)state;
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_string_equal(h.iface, "ib1");
	assert_int_equal(h.action, IBH_ACTION_APPLY);
	assert_int_equal(h.family, IBH_HOOK_IFUPDOWN);
	/* ifdown ib1:0 takes the alias's address, ib1 stays: its rules follow its addresses */
	env.mode = "stop";
	env.phase = "post-down";
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_string_equal(h.iface, "ib1");
	assert_int_equal(h.action, IBH_ACTION_APPLY);
	/* the phases that do nothing still do nothing */
	env.phase = "pre-down";
	env.mode = "start";
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_int_equal(h.action, IBH_ACTION_NONE);
	/* NetworkManager's bridge and a replay by hand name the alias the same way */
	env = (struct ibh_hook_env){ .iface = "ibs5f1:svc",
				     .mode = "start",
				     .phase = "post-up",
				     .addrfam = "inet",
				     .method = "NetworkManager" };
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_string_equal(h.iface, "ibs5f1");
	assert_int_equal(h.action, IBH_ACTION_APPLY);
	assert_int_equal(hookenv_parse(&(struct ibh_hook_env){ .iface = "ib0:1" }, &h), 0);
	assert_string_equal(h.iface, "ib0");
	/* nothing before the colon, or too long a name, or lo's alias: nobody's link */
	env = (struct ibh_hook_env){ .iface = ":0", .mode = "start", .phase = "post-up" };
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_int_equal(h.action, IBH_ACTION_NONE);
	env.iface = "abcdefghijklmnop:0";
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_int_equal(h.action, IBH_ACTION_NONE);
	env.iface = "lo:1";
	assert_int_equal(hookenv_parse(&env, &h), 0);
	assert_int_equal(h.action, IBH_ACTION_NONE);
}

static void test_no_iface(void **state)
{
	struct ibh_hook_env env = { .state = "routable" };
	struct ibh_hook h;

	assert_int_equal(hookenv_parse(&env, &h), -EINVAL);
	env.iface = "";
	assert_int_equal(hookenv_parse(&env, &h), -EINVAL);
}

/* each family's call names it, and its [Hooks] key switches exactly it off */
static void test_family_table(void **state)
{
	const struct ibh_hook_env calls[IBH_HOOK_MAX] = {
		[IBH_HOOK_NETWORKD] = { .iface = "ib1", .state = "routable" },
		[IBH_HOOK_IFUPDOWN] = { .iface = "ib1", .mode = "start", .phase = "post-up" },
		[IBH_HOOK_NETWORKMANAGER] = { .nm_arg_iface = "ib1", .nm_arg_action = "up" },
	};
	struct ibh_hook h;

	(void)state;
	for (int f = 0; f < IBH_HOOK_MAX; f++) {
		struct ibh_config c;
		char text[64];

		assert_int_equal(hookenv_parse(&calls[f], &h), 0);
		assert_int_equal(h.family, f);
		assert_string_equal(h.source, hook_family((enum ibh_hook_family)f)->name);
		snprintf(text, sizeof(text), "[Hooks]\n%s=no\n",
			 hook_family((enum ibh_hook_family)f)->key);
		config_defaults(&c);
		assert_int_equal(config_parse(&c, text, strlen(text), NULL), 0);
		for (int g = 0; g < IBH_HOOK_MAX; g++)
			assert_int_equal(c.hooks[g], g != f);
	}
	assert_int_equal(hookenv_parse(&(struct ibh_hook_env){ .iface = "ib1" }, &h), 0);
	assert_int_equal(h.family, IBH_HOOK_BY_HAND);
	assert_null(hook_family(IBH_HOOK_BY_HAND)->key);
}

/* the variables come from the environment by their dispatchers' names */
static void test_read_environment(void **state)
{
	struct ibh_hook_env env;

	(void)state;
	setenv("IFACE", "ib7", 1);
	setenv("STATE", "off", 1);
	setenv("DEVICE_IP_IFACE", "ib8", 1);
	unsetenv("MODE");
	hookenv_read(&env);
	assert_string_equal(env.iface, "ib7");
	assert_string_equal(env.state, "off");
	assert_string_equal(env.device_ip_iface, "ib8");
	assert_null(env.mode);
	assert_null(env.nm_arg_iface);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_networkd_dispatcher),
		cmocka_unit_test(test_ifupdown),
		cmocka_unit_test(test_networkmanager),
		cmocka_unit_test(test_networkmanager_native),
		cmocka_unit_test(test_ifupdown_alias),
		cmocka_unit_test(test_no_iface),
		cmocka_unit_test(test_family_table),
		cmocka_unit_test(test_read_environment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
