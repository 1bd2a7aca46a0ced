// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a dispatcher asks for, from its environment alone. Addresses never come
 * from here (ADDR and IP_ADDRS lack prefix lengths and may be stale): they
 * are read over netlink.
 */
#include <errno.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hookenv.h"

static bool eq(const char *a, const char *b)
{
	return a && strcmp(a, b) == 0;
}

static enum ibh_action networkd_action(const struct ibh_hook_env *env, const char **iface)
{
	const char *state = env->state;

	(void)iface;
	/* routable can fire before networkd set the last address: configured follows */
	if (eq(state, "routable") || eq(state, "configured"))
		return IBH_ACTION_APPLY;
	if (eq(state, "off") || eq(state, "no-carrier"))
		return IBH_ACTION_REMOVE;
	return IBH_ACTION_NONE;
}

static enum ibh_action ifupdown_action(const struct ibh_hook_env *env, const char **iface)
{
	(void)iface;
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

static bool nonempty(const char *s)
{
	return s && s[0] != '\0';
}

/* NetworkManager's own dispatcher: arguments, or its variables without IFACE */
static bool nm_native(const struct ibh_hook_env *env)
{
	return env->nm_arg_iface || env->nm_arg_action || (env->nm_action && !env->iface);
}

static enum ibh_action networkmanager_action(const struct ibh_hook_env *env, const char **iface)
{
	const char *action = env->nm_arg_action ? env->nm_arg_action : env->nm_action;

	if (!nm_native(env))
		return ifupdown_action(env, iface);
	/* NetworkManager passes the IP interface as argument 1; the variables back it up */
	if (nonempty(env->nm_arg_iface))
		*iface = env->nm_arg_iface;
	else if (nonempty(env->device_ip_iface))
		*iface = env->device_ip_iface;
	else if (nonempty(env->device_iface))
		*iface = env->device_iface;
	else
		*iface = "";
	/* a hostile argument is nobody's link */
	return ifname_valid(*iface) ? nm_action(action) : IBH_ACTION_NONE;
}

/*
 * Arguments only come from NetworkManager's own dispatcher; its variables
 * without IFACE too. Its 01-ifupdown bridge (bookworm) sets IFACE and MODE
 * (and METHOD) for run-parts, which passes no argument.
 */
static bool networkmanager_claims(const struct ibh_hook_env *env)
{
	return nm_native(env) || (!env->state && (env->mode || env->addrfam || env->phase) &&
				  eq(env->method, "NetworkManager"));
}

static bool networkd_claims(const struct ibh_hook_env *env)
{
	return env->state != NULL;
}

static bool ifupdown_claims(const struct ibh_hook_env *env)
{
	return env->mode || env->addrfam || env->phase;
}

static bool by_hand_claims(const struct ibh_hook_env *env)
{
	(void)env;
	return true;
}

static enum ibh_action by_hand_action(const struct ibh_hook_env *env, const char **iface)
{
	(void)env, (void)iface;
	return IBH_ACTION_APPLY;
}

/* in the order their claims are heard: the first family that claims a call has it */
static const struct {
	enum ibh_hook_family family;
	struct ibh_hook_family_info info;
} families[] = {
	{ IBH_HOOK_NETWORKMANAGER,
	  { "NetworkManager", "NetworkManager", networkmanager_claims, networkmanager_action } },
	{ IBH_HOOK_NETWORKD,
	  { "networkd-dispatcher", "Networkd", networkd_claims, networkd_action } },
	{ IBH_HOOK_IFUPDOWN, { "ifupdown", "Ifupdown", ifupdown_claims, ifupdown_action } },
	{ IBH_HOOK_BY_HAND, { "environment", NULL, by_hand_claims, by_hand_action } },
};

const struct ibh_hook_family_info *hook_family(enum ibh_hook_family f)
{
	size_t i = 0;

	while (families[i].family != f && families[i].family != IBH_HOOK_BY_HAND)
		i++;
	return &families[i].info;
}

int hookenv_parse(const struct ibh_hook_env *env, struct ibh_hook *ret)
{
	struct ibh_hook h = { .iface = env->iface };
	size_t i = 0;

	/* only NetworkManager may call without an interface (hostname, connectivity-change) */
	if (!nm_native(env) && (!env->iface || env->iface[0] == '\0'))
		return -EINVAL;
	while (!families[i].info.claims(env))
		i++;
	h.family = families[i].family;
	h.source = families[i].info.name;
	h.action = families[i].info.action(env, &h.iface);
	*ret = h;
	if (h.iface && strchr(h.iface, ':')) {
		/* the kernel forbids ':' in a link name: "ib1:0" is an alias of ib1 */
		size_t n = strcspn(h.iface, ":");

		snprintf(ret->link, sizeof(ret->link), "%.*s", (int)(n < IF_NAMESIZE ? n : 0),
			 h.iface);
		ret->iface = ret->link;
		if (!ifname_valid(ret->link))
			ret->action = IBH_ACTION_NONE;
		else if (ret->action == IBH_ACTION_REMOVE)
			ret->action = IBH_ACTION_APPLY;
	}
	if (eq(ret->iface, "lo"))
		ret->action = IBH_ACTION_NONE;
	return 0;
}

void hookenv_read(struct ibh_hook_env *ret)
{
	static const struct {
		const char *name;
		size_t offset;
	} vars[] = {
		{ "IFACE", offsetof(struct ibh_hook_env, iface) },
		{ "STATE", offsetof(struct ibh_hook_env, state) },
		{ "MODE", offsetof(struct ibh_hook_env, mode) },
		{ "PHASE", offsetof(struct ibh_hook_env, phase) },
		{ "ADDRFAM", offsetof(struct ibh_hook_env, addrfam) },
		{ "METHOD", offsetof(struct ibh_hook_env, method) },
		{ "NM_DISPATCHER_ACTION", offsetof(struct ibh_hook_env, nm_action) },
		{ "DEVICE_IFACE", offsetof(struct ibh_hook_env, device_iface) },
		{ "DEVICE_IP_IFACE", offsetof(struct ibh_hook_env, device_ip_iface) },
	};

	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		*(const char **)((char *)ret + vars[i].offset) = getenv(vars[i].name);
}
