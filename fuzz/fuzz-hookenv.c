// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for hookenv_parse(): the input is an environment block as
 * in /proc/PID/environ, NUL-separated VAR=VALUE strings; the first assignment
 * of a variable wins, as with getenv(3). Each value lives in a buffer of its
 * own so that AddressSanitizer sees any read past its end. Besides "no crash"
 * it checks what SPEC section 2 promises: lo and the `ifup -a` frame
 * (IFACE=--all, ADDRFAM=meta) are never acted on, and a successful parse names
 * the interface of the environment. ARG1 and ARG2 stand for NetworkManager's
 * positional arguments (INTERFACE ACTION): then only its actions act, only
 * on a name the kernel could give a link.
 */
#include <stdlib.h>
#include <string.h>

#include "hookenv.h"

enum var {
	VAR_IFACE,
	VAR_STATE,
	VAR_MODE,
	VAR_PHASE,
	VAR_ADDRFAM,
	VAR_METHOD,
	VAR_ARG1,
	VAR_ARG2,
	VAR_NM_ACTION,
	VAR_DEVICE_IFACE,
	VAR_DEVICE_IP_IFACE,
	VAR_MAX,
};

static const char *const var_names[VAR_MAX] = {
	[VAR_IFACE] = "IFACE",
	[VAR_STATE] = "STATE",
	[VAR_MODE] = "MODE",
	[VAR_PHASE] = "PHASE",
	[VAR_ADDRFAM] = "ADDRFAM",
	[VAR_METHOD] = "METHOD",
	[VAR_ARG1] = "ARG1",
	[VAR_ARG2] = "ARG2",
	[VAR_NM_ACTION] = "NM_DISPATCHER_ACTION",
	[VAR_DEVICE_IFACE] = "DEVICE_IFACE",
	[VAR_DEVICE_IP_IFACE] = "DEVICE_IP_IFACE",
};

static bool eq(const char *a, const char *b)
{
	return a && strcmp(a, b) == 0;
}

static bool nm_native(const struct ibh_hook_env *env)
{
	return env->nm_arg_iface || env->nm_arg_action || (env->nm_action && !env->iface);
}

/*
 * "ib1:0" names an alias stanza of ib1 (the kernel forbids ':' in a link
 * name): the hook then runs for h->link, the name before ':', or for nothing
 * when that is no valid name; a stop re-applies the link, it never removes.
 */
static bool alias_ok(const char *name, const struct ibh_hook *h)
{
	size_t n = strcspn(name, ":");

	if (h->iface != h->link)
		return false;
	if (n >= IF_NAMESIZE || n == 0)
		return h->link[0] == '\0' && h->action == IBH_ACTION_NONE;
	return strlen(h->link) == n && strncmp(h->link, name, n) == 0 &&
	       h->action != IBH_ACTION_REMOVE;
}

static void check_nm(const struct ibh_hook_env *env, const struct ibh_hook *h)
{
	const char *action = env->nm_arg_action ? env->nm_arg_action : env->nm_action;
	size_t n = strlen(h->iface);

	if (!h->source || strcmp(h->source, "NetworkManager") != 0)
		abort();
	if (h->iface == h->link) {
		if (!((env->nm_arg_iface && alias_ok(env->nm_arg_iface, h)) ||
		      (env->device_ip_iface && alias_ok(env->device_ip_iface, h)) ||
		      (env->device_iface && alias_ok(env->device_iface, h))))
			abort();
		return;
	}
	if (h->action == IBH_ACTION_NONE)
		return;
	if (n == 0 || n > 15 || strchr(h->iface, '/') || strchr(h->iface, '\n') ||
	    eq(h->iface, "lo") || eq(h->iface, ".") || eq(h->iface, ".."))
		abort();
	if (h->iface != env->nm_arg_iface && h->iface != env->device_ip_iface &&
	    h->iface != env->device_iface)
		abort();
	if (h->action == IBH_ACTION_APPLY && !(eq(action, "up") || eq(action, "dhcp4-change") ||
					       eq(action, "dhcp6-change") || eq(action, "reapply")))
		abort();
	if (h->action == IBH_ACTION_REMOVE && !(eq(action, "down") || eq(action, "pre-down")))
		abort();
	if (h->action != IBH_ACTION_APPLY && h->action != IBH_ACTION_REMOVE)
		abort();
}

static void check(const struct ibh_hook_env *env, const struct ibh_hook *h)
{
	bool ifupdown = !env->state && (env->mode || env->addrfam || env->phase);

	if (!h->source || !env->iface)
		abort();
	if (strchr(env->iface, ':')) {
		if (!alias_ok(env->iface, h))
			abort();
		return;
	}
	if (h->iface != env->iface || h->iface[0] == '\0')
		abort();
	if (h->action != IBH_ACTION_NONE && h->action != IBH_ACTION_APPLY &&
	    h->action != IBH_ACTION_REMOVE)
		abort();
	if (eq(env->iface, "lo") && h->action != IBH_ACTION_NONE)
		abort();
	if (env->state) {
		enum ibh_action want = IBH_ACTION_NONE;

		if (eq(env->state, "routable") || eq(env->state, "configured"))
			want = IBH_ACTION_APPLY;
		else if (eq(env->state, "off") || eq(env->state, "no-carrier"))
			want = IBH_ACTION_REMOVE;
		if (eq(env->iface, "lo"))
			want = IBH_ACTION_NONE;
		if (h->action != want || strcmp(h->source, "networkd-dispatcher") != 0)
			abort();
	}
	if (ifupdown) {
		if (strcmp(h->source,
			   eq(env->method, "NetworkManager") ? "NetworkManager" : "ifupdown") != 0)
			abort();
		if ((eq(env->addrfam, "meta") || eq(env->iface, "--all")) &&
		    h->action != IBH_ACTION_NONE)
			abort();
		if (!eq(env->mode, "start") && !eq(env->mode, "stop") &&
		    h->action != IBH_ACTION_NONE)
			abort();
		if (eq(env->mode, "start") && h->action == IBH_ACTION_REMOVE)
			abort();
		if (eq(env->mode, "stop") && h->action == IBH_ACTION_APPLY)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *values[VAR_MAX] = {};
	const char **slots[VAR_MAX];
	struct ibh_hook_env env = {};
	struct ibh_hook h, canary;
	size_t pos = 0;
	int r;

	slots[VAR_IFACE] = &env.iface;
	slots[VAR_STATE] = &env.state;
	slots[VAR_MODE] = &env.mode;
	slots[VAR_PHASE] = &env.phase;
	slots[VAR_ADDRFAM] = &env.addrfam;
	slots[VAR_METHOD] = &env.method;
	slots[VAR_ARG1] = &env.nm_arg_iface;
	slots[VAR_ARG2] = &env.nm_arg_action;
	slots[VAR_NM_ACTION] = &env.nm_action;
	slots[VAR_DEVICE_IFACE] = &env.device_iface;
	slots[VAR_DEVICE_IP_IFACE] = &env.device_ip_iface;

	while (pos < size) {
		const char *s = (const char *)data + pos, *end = memchr(s, '\0', size - pos);
		size_t n = end ? (size_t)(end - s) : size - pos;
		const char *eqs = memchr(s, '=', n);

		pos += n + 1;
		if (!eqs)
			continue;
		for (int v = 0; v < VAR_MAX; v++) {
			size_t klen = strlen(var_names[v]);
			size_t vlen = n - (size_t)(eqs - s) - 1;

			if (values[v] || (size_t)(eqs - s) != klen ||
			    memcmp(s, var_names[v], klen) != 0)
				continue;
			values[v] = malloc(vlen + 1);
			if (!values[v])
				abort();
			memcpy(values[v], eqs + 1, vlen);
			values[v][vlen] = '\0';
			*slots[v] = values[v];
		}
	}

	memset(&h, 0x5a, sizeof(h));
	memcpy(&canary, &h, sizeof(h));
	r = hookenv_parse(&env, &h);
	if (nm_native(&env)) {
		if (r != 0)
			abort();
		check_nm(&env, &h);
	} else if (!env.iface || env.iface[0] == '\0') {
		/* not a hook run: -EINVAL, and nothing written */
		if (r >= 0 || memcmp(&h, &canary, sizeof(h)) != 0)
			abort();
	} else {
		if (r != 0)
			abort();
		check(&env, &h);
	}

	for (int v = 0; v < VAR_MAX; v++)
		free(values[v]);
	return 0;
}
