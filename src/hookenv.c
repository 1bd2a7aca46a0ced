// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a dispatcher asks for, from its environment alone. Addresses never come
 * from here (ADDR and IP_ADDRS lack prefix lengths and may be stale): they
 * are read over netlink.
 */
#include <errno.h>
#include <string.h>

#include "hookenv.h"

static bool eq(const char *a, const char *b)
{
	return a && strcmp(a, b) == 0;
}

static enum ibh_action networkd_action(const char *state)
{
	/* routable can fire before networkd set the last address: configured follows */
	if (eq(state, "routable") || eq(state, "configured"))
		return IBH_ACTION_APPLY;
	if (eq(state, "off") || eq(state, "no-carrier"))
		return IBH_ACTION_REMOVE;
	return IBH_ACTION_NONE;
}

static enum ibh_action ifupdown_action(const struct ibh_hook_env *env)
{
	/* the per-interface calls follow; meta and --all frame `ifup -a` */
	if (eq(env->addrfam, "meta") || eq(env->iface, "--all"))
		return IBH_ACTION_NONE;
	if (eq(env->mode, "start"))
		return !env->phase || eq(env->phase, "post-up") ? IBH_ACTION_APPLY
								: IBH_ACTION_NONE;
	if (eq(env->mode, "stop"))
		return !env->phase || eq(env->phase, "post-down") || eq(env->phase, "pre-down")
			       ? IBH_ACTION_REMOVE
			       : IBH_ACTION_NONE;
	return IBH_ACTION_NONE;
}

int hookenv_parse(const struct ibh_hook_env *env, struct ibh_hook *ret)
{
	struct ibh_hook h = { .iface = env->iface };

	if (!env->iface || env->iface[0] == '\0')
		return -EINVAL;
	if (env->state) {
		h.source = "networkd-dispatcher";
		h.action = networkd_action(env->state);
	} else if (env->mode || env->addrfam || env->phase) {
		h.source = eq(env->method, "NetworkManager") ? "NetworkManager" : "ifupdown";
		h.action = ifupdown_action(env);
	} else {
		/* IFACE alone: somebody replaying a hook by hand */
		h.source = "environment";
		h.action = IBH_ACTION_APPLY;
	}
	if (eq(env->iface, "lo"))
		h.action = IBH_ACTION_NONE;
	*ret = h;
	return 0;
}
