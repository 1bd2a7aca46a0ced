/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "model.h"

/* the variables the dispatchers set (NULL: unset) */
struct ibh_hook_env {
	const char *iface;
	const char *state; /* networkd-dispatcher */
	const char *mode;  /* ifupdown, NetworkManager's 01-ifupdown */
	const char *phase;
	const char *addrfam;
	const char *method;
	/* NetworkManager's dispatcher: ENTRY INTERFACE ACTION and its variables */
	const char *nm_arg_iface;
	const char *nm_arg_action;
	const char *nm_action; /* NM_DISPATCHER_ACTION */
	const char *device_iface;
	const char *device_ip_iface;
};

/* the dispatcher families whose runs ib-hook acts on ([Hooks]) */
enum ibh_hook_family {
	IBH_HOOK_NETWORKD,	 /* networkd-dispatcher */
	IBH_HOOK_IFUPDOWN,	 /* ifupdown's if-up.d / if-post-down.d */
	IBH_HOOK_NETWORKMANAGER, /* NetworkManager's dispatcher, native or through 01-ifupdown */
	IBH_HOOK_MAX,
	IBH_HOOK_BY_HAND = IBH_HOOK_MAX, /* IFACE alone: a hook replayed by hand */
};

/* one row per dispatcher family: a new dispatcher is a row here and its test */
struct ibh_hook_family_info {
	const char *name; /* in messages: "networkd-dispatcher" */
	const char *key;  /* its switch in [Hooks] */
	/* whether the environment is this family's call, and what it asks for */
	bool (*claims)(const struct ibh_hook_env *env);
	enum ibh_action (*action)(const struct ibh_hook_env *env, const char **iface);
};

/* the row of f; IBH_HOOK_BY_HAND has a name and no key */
const struct ibh_hook_family_info *hook_family(enum ibh_hook_family f);

struct ibh_hook {
	enum ibh_action action;
	const char *iface; /* the link: a name of env's, or this struct's link[] */
	char link[IF_NAMESIZE];
	enum ibh_hook_family family;
	const char *source; /* the family's name */
};

/* the variables every family sets, from the process's environment (arguments: NULL) */
void hookenv_read(struct ibh_hook_env *ret);

/*
 * -EINVAL when there is no interface at all: not a hook run. An ifupdown
 * alias stanza (IFACE=ib1:0) names its link before the colon, which no link
 * name holds: the run is about that link's addresses, and its stop applies
 * too (the link stays up, only the alias's address went). NetworkManager's
 * calling convention (positional arguments or NM_DISPATCHER_ACTION without
 * IFACE) may name no interface (hostname, connectivity-change): that is a
 * run with nothing to do, iface "" and IBH_ACTION_NONE.
 */
int hookenv_parse(const struct ibh_hook_env *env, struct ibh_hook *ret);
