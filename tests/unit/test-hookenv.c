// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

static void test_no_iface(void **state)
{
	struct ibh_hook_env env = { .state = "routable" };
	struct ibh_hook h;

	assert_int_equal(hookenv_parse(&env, &h), -EINVAL);
	env.iface = "";
	assert_int_equal(hookenv_parse(&env, &h), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_networkd_dispatcher),
		cmocka_unit_test(test_ifupdown),
		cmocka_unit_test(test_networkmanager),
		cmocka_unit_test(test_no_iface),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
