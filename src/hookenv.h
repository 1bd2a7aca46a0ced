/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan.h"

/* the variables the dispatchers set (NULL: unset) */
struct ibh_hook_env {
	const char *iface;
	const char *state; /* networkd-dispatcher */
	const char *mode;  /* ifupdown, NetworkManager's 01-ifupdown */
	const char *phase;
	const char *addrfam;
	const char *method;
};

struct ibh_hook {
	enum ibh_action action;
	const char *iface;
	const char *source; /* "networkd-dispatcher", "ifupdown", "NetworkManager" */
};

/* -EINVAL when there is no IFACE at all: not a hook run */
int hookenv_parse(const struct ibh_hook_env *env, struct ibh_hook *ret);
