// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a dispatcher asks for, from its environment alone. Addresses never come
 * from here (ADDR and IP_ADDRS lack prefix lengths and may be stale): they
 * are read over netlink.
 */
#include <errno.h>
#include <net/if.h>
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

static enum ibh_action nm_action(const char *action)
{
	if (eq(action, "up") || eq(action, "dhcp4-change") || eq(action, "dhcp6-change") ||
	    eq(action, "reapply"))
		return IBH_ACTION_APPLY;
	if (eq(action, "down") || eq(action, "pre-down"))
		return IBH_ACTION_REMOVE;
	return IBH_ACTION_NONE;
}

/* what the kernel could name a link: a hostile argument is nobody's link */
static bool ifname_valid(const char *s)
{
	size_t n = strnlen(s, IFNAMSIZ);

	if (n == 0 || n >= IFNAMSIZ || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || (unsigned char)*s < 0x21 || *s == 0x7f)
			return false;
	return true;
}

static bool nonempty(const char *s)
{
	return s && s[0] != '\0';
}

static void networkmanager(const struct ibh_hook_env *env, struct ibh_hook *h)
{
	const char *action = env->nm_arg_action ? env->nm_arg_action : env->nm_action;

	/* NetworkManager passes the IP interface as argument 1; the variables back it up */
	if (nonempty(env->nm_arg_iface))
		h->iface = env->nm_arg_iface;
	else if (nonempty(env->device_ip_iface))
		h->iface = env->device_ip_iface;
	else if (nonempty(env->device_iface))
		h->iface = env->device_iface;
	else
		h->iface = "";
	h->source = "NetworkManager";
	h->action = ifname_valid(h->iface) ? nm_action(action) : IBH_ACTION_NONE;
}

int hookenv_parse(const struct ibh_hook_env *env, struct ibh_hook *ret)
{
	struct ibh_hook h = { .iface = env->iface };

	/*
	 * Arguments only come from NetworkManager's own dispatcher; its variables
	 * without IFACE too. Its 01-ifupdown bridge (bookworm) sets IFACE and MODE
	 * for run-parts, which passes no argument: that is the ifupdown case.
	 */
	if (env->nm_arg_iface || env->nm_arg_action || (env->nm_action && !env->iface)) {
		networkmanager(env, &h);
		if (eq(h.iface, "lo"))
			h.action = IBH_ACTION_NONE;
		*ret = h;
		return 0;
	}
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
