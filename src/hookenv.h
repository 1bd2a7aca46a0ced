/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

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

struct ibh_hook {
	enum ibh_action action;
	const char *iface;
	const char *source; /* "networkd-dispatcher", "ifupdown", "NetworkManager" */
};

/*
 * -EINVAL when there is no interface at all: not a hook run. NetworkManager's
 * calling convention (positional arguments or NM_DISPATCHER_ACTION without
 * IFACE) may name no interface (hostname, connectivity-change): that is a
 * run with nothing to do, iface "" and IBH_ACTION_NONE.
 */
int hookenv_parse(const struct ibh_hook_env *env, struct ibh_hook *ret);
