// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plugin's keys are section 5's keys of ib-hook.conf in CNI's camelCase.
 * They are written out as the lines of a configuration file and read by the
 * host's own reader (config.c), so that a value is checked by one rule and
 * a pod and a host can never disagree on what a key means; an error names
 * the JSON key it came from.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ip.h"
#include "json.h"
#include "netconf.h"

const char *const cni_versions[] = { "0.4.0", "1.0.0", "1.1.0", NULL };

/* the keys of the CNI specification's network configuration, and those runtimes add */
static const char *const standard_keys[] = {
	"cniVersion", "cniVersions", "name",	   "type",	    "args",	    "ipMasq",
	"ipam",	      "dns",	     "prevResult", "runtimeConfig", "capabilities", NULL,
};

/* sysctls' JSON keys, in the order of enum ibh_sysctl's [Sysctl] keys */
static const struct {
	const char *json, *ini;
} sysctl_keys[] = {
	{ "arpIgnore", "ArpIgnore" },
	{ "arpAnnounce", "ArpAnnounce" },
	{ "rpFilter", "RpFilter" },
	{ "acceptLocal", "AcceptLocal" },
};

#define MAX_LINES 256

/* the configuration file made of the keys, and which JSON key each line came from */
struct ini {
	char text[16384];
	size_t len;
	unsigned int lines;
	char origin[MAX_LINES][80];
	bool overflow;
};

bool cni_version_supported(const char *v)
{
	for (size_t i = 0; v && cni_versions[i]; i++)
		if (strcmp(v, cni_versions[i]) == 0)
			return true;
	return false;
}

static int fail(struct cni_error *err, enum cni_code code, const char *details, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));

static int fail(struct cni_error *err, enum cni_code code, const char *details, const char *fmt,
		...)
{
	va_list ap;

	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	snprintf(err->details, sizeof(err->details), "%s", details ? details : "");
	return -EINVAL;
}

__attribute__((format(printf, 3, 4))) static void line(struct ini *ini, const char *origin,
						       const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ini->lines >= MAX_LINES) {
		ini->overflow = true;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(ini->text + ini->len, sizeof(ini->text) - ini->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + 1 >= sizeof(ini->text) - ini->len) {
		ini->overflow = true;
		return;
	}
	ini->len += (size_t)n;
	ini->text[ini->len++] = '\n';
	ini->text[ini->len] = '\0';
	snprintf(ini->origin[ini->lines++], sizeof(ini->origin[0]), "%s", origin);
}

/*
 * A word that goes into a line of the file as it is: printable, no blank, and
 * nothing the file's syntax reads (=, comments, sections)
 */
static bool word_ok(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f || strchr("=#;[]", *p))
			return false;
	return true;
}

/* a JSON number as the file writes it: whole numbers without a fraction, others as they are */
static void number_text(double n, char *buf, size_t size)
{
	if (n == floor(n) && fabs(n) < 1e15)
		snprintf(buf, size, "%.0f", n);
	else
		snprintf(buf, size, "%g", n);
}

/*
 * A value as an error shows it beside its key (error 2 must name both): a
 * string in quotes and cut short, an object or array only as such
 */
static void value_text(const struct json *v, char *buf, size_t size)
{
	switch (v->type) {
	case JSON_NUMBER:
		number_text(v->n, buf, size);
		break;
	case JSON_STRING:
		snprintf(buf, size, "\"%.64s%s\"", v->s, strlen(v->s) > 64 ? "..." : "");
		break;
	case JSON_BOOL:
		snprintf(buf, size, "%s", v->b ? "true" : "false");
		break;
	case JSON_OBJECT:
		snprintf(buf, size, "{...}");
		break;
	case JSON_ARRAY:
		snprintf(buf, size, "[...]");
		break;
	default:
		snprintf(buf, size, "null");
	}
}

/* a value that is a number, or (when words) a word such as "keep" */
static int scalar(const struct json *v, bool words, const char *key, char *buf, size_t size,
		  struct cni_error *err)
{
	if (v->type == JSON_NUMBER) {
		number_text(v->n, buf, size);
		return 0;
	}
	if (words && v->type == JSON_STRING && word_ok(v->s) && strlen(v->s) < size) {
		snprintf(buf, size, "%s", v->s);
		return 0;
	}
	return fail(err, CNI_ERR_CONFIG, key, "\"%s\" is %s", key,
		    words ? "a number or a word such as \"keep\"" : "a number");
}

static int boolean(const struct json *v, const char *key, struct ini *ini, const char *ini_key,
		   struct cni_error *err)
{
	if (v->type != JSON_BOOL)
		return fail(err, CNI_ERR_CONFIG, key, "\"%s\" is true or false", key);
	line(ini, key, "%s=%s", ini_key, v->b ? "yes" : "no");
	return 0;
}

/* "tables": {"net1": 941}, "gateways": {"net1": "10.0.0.1" | "peer" | [...]}, "sysctls": {...} */
static int object_keys(const struct json *o, const char *key, struct cni_error *err)
{
	if (o->type != JSON_OBJECT)
		return fail(err, CNI_ERR_CONFIG, key, "\"%s\" is an object", key);
	return 0;
}

static int gateway_words(const struct json *v, const char *key, char *buf, size_t size,
			 struct cni_error *err)
{
	size_t n = v->type == JSON_ARRAY ? v->n_items : 1;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct json *w = v->type == JSON_ARRAY ? v->items[i] : v;
		size_t len = strlen(buf);

		if (w->type != JSON_STRING || !word_ok(w->s) || len + strlen(w->s) + 2 > size)
			return fail(err, CNI_ERR_CONFIG, key,
				    "\"%s\" gives an interface \"peer\", an address, or a list "
				    "of them",
				    key);
		snprintf(buf + len, size - len, "%s%s", len ? " " : "", w->s);
	}
	return 0;
}

/* the ib-hook keys of the network configuration as lines of a configuration file */
static int ib_hook_keys(const struct json *conf, struct ini *ini, struct cni_error *err)
{
	const struct json *v;
	char buf[256];
	int r;

	line(ini, "", "[Routing]");
	if ((v = json_get(conf, "tableBase"))) {
		if ((r = scalar(v, false, "tableBase", buf, sizeof(buf), err)) < 0)
			return r;
		line(ini, "tableBase", "TableBase=%s", buf);
	}
	if ((v = json_get(conf, "priority"))) {
		if ((r = scalar(v, false, "priority", buf, sizeof(buf), err)) < 0)
			return r;
		line(ini, "priority", "Priority=%s", buf);
	}
	if ((v = json_get(conf, "mainRoute"))) {
		if (v->type != JSON_STRING || !word_ok(v->s))
			return fail(err, CNI_ERR_CONFIG, "mainRoute",
				    "\"mainRoute\" is \"keep\" or \"delete\"");
		line(ini, "mainRoute", "MainRoute=%s", v->s);
	}
	if ((v = json_get(conf, "ipv6")) && (r = boolean(v, "ipv6", ini, "IPv6", err)) < 0)
		return r;
	if ((v = json_get(conf, "gatewayRoutes")) &&
	    (r = boolean(v, "gatewayRoutes", ini, "GatewayRoutes", err)) < 0)
		return r;
	if ((v = json_get(conf, "sysctls"))) {
		if ((r = object_keys(v, "sysctls", err)) < 0)
			return r;
		line(ini, "", "[Sysctl]");
		for (size_t i = 0; i < v->n_items; i++) {
			size_t k;

			for (k = 0; k < sizeof(sysctl_keys) / sizeof(sysctl_keys[0]); k++)
				if (strcmp(v->keys[i], sysctl_keys[k].json) == 0)
					break;
			if (k == sizeof(sysctl_keys) / sizeof(sysctl_keys[0])) {
				value_text(v->items[i], buf, sizeof(buf));
				return fail(err, CNI_ERR_FIELD, "sysctls",
					    "unknown key \"%s\": %s in \"sysctls\" (arpIgnore, "
					    "arpAnnounce, rpFilter, acceptLocal)",
					    v->keys[i], buf);
			}
			if ((r = scalar(v->items[i], true, "sysctls", buf, sizeof(buf), err)) < 0)
				return r;
			line(ini, "sysctls", "%s=%s", sysctl_keys[k].ini, buf);
		}
	}
	if (ini->overflow)
		return fail(err, CNI_ERR_CONFIG, NULL, "the ib-hook keys are too long");
	return 0;
}

/*
 * "tables" and "gateways", keyed by interface names: straight into the
 * configuration through the reader's own rule for each entry, not as lines
 * of a file, whose syntax has no room for names the kernel accepts such as
 * "rail#1", "r=1" or "rail[1]"
 */
static int interface_keys(const struct json *conf, struct ibh_config *c, struct cni_error *err)
{
	static const struct {
		const char *json, *section;
	} keyed[] = { { "tables", "Tables" }, { "gateways", "Gateways" } };
	struct ibh_config_error cerr = {};
	char buf[256];
	int r;

	for (size_t k = 0; k < sizeof(keyed) / sizeof(keyed[0]); k++) {
		const struct json *v = json_get(conf, keyed[k].json);

		if (!v)
			continue;
		if ((r = object_keys(v, keyed[k].json, err)) < 0)
			return r;
		for (size_t i = 0; i < v->n_items; i++) {
			if (k == 0)
				r = scalar(v->items[i], false, keyed[k].json, buf, sizeof(buf),
					   err);
			else
				r = gateway_words(v->items[i], keyed[k].json, buf, sizeof(buf),
						  err);
			if (r < 0)
				return r;
			if (config_parse_entry(c, keyed[k].section, v->keys[i], buf, &cerr) < 0)
				return fail(err, CNI_ERR_CONFIG, keyed[k].json, "\"%s\": %s",
					    keyed[k].json, cerr.message);
		}
	}
	return 0;
}

static bool known_key(const char *key)
{
	static const char *const ours[] = {
		"tableBase", "priority", "mainRoute", "ipv6", "gatewayRoutes",
		"tables",    "gateways", "sysctls",   NULL,
	};

	/* the runtime's own keys (GC's cni.dev/valid-attachments) */
	if (strncmp(key, "cni.dev/", 8) == 0)
		return true;
	for (size_t i = 0; standard_keys[i]; i++)
		if (strcmp(key, standard_keys[i]) == 0)
			return true;
	for (size_t i = 0; ours[i]; i++)
		if (strcmp(key, ours[i]) == 0)
			return true;
	return false;
}

/*
 * prevResult's gateways of ifname's addresses (the interface in the pod, not
 * its host side): where main routes nothing through the interface, T(X) gets
 * a default through them, as [Gateways] gives it on a host
 */
static int prev_gateways(const struct json *prev, const char *ifname, char *buf, size_t size)
{
	const struct json *ifs = json_get(prev, "interfaces"), *ips = json_get(prev, "ips");
	bool have[2] = { false, false };
	ssize_t at = -1;

	buf[0] = '\0';
	for (size_t i = 0; ifs && ifs->type == JSON_ARRAY && i < ifs->n_items; i++) {
		const char *name = json_get_string(ifs->items[i], "name");
		const char *sandbox = json_get_string(ifs->items[i], "sandbox");

		if (name && strcmp(name, ifname) == 0 && sandbox && *sandbox)
			at = (ssize_t)i;
	}
	for (size_t i = 0; at >= 0 && ips && ips->type == JSON_ARRAY && i < ips->n_items; i++) {
		const char *gw = json_get_string(ips->items[i], "gateway");
		struct ibh_ip a = {};
		size_t len = strlen(buf);

		if (json_get_number(ips->items[i], "interface", -1) != (double)at || !gw)
			continue;
		a.family = strchr(gw, ':') ? AF_INET6 : AF_INET;
		if (inet_pton(a.family, gw, a.a) != 1 || have[a.family == AF_INET6])
			continue;
		have[a.family == AF_INET6] = true;
		snprintf(buf + len, size - len, "%s%s", len ? " " : "", gw);
	}
	return 0;
}

int netconf_parse(const char *text, const char *ifname, struct cni_netconf *ret,
		  struct cni_error *err)
{
	struct ini *ini = calloc(1, sizeof(*ini));
	struct ibh_config_error cerr = {};
	const struct json *prev, *v;
	struct json *conf = NULL;
	const char *end;
	size_t at = 0;
	char gws[128];
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!ini)
		return fail(err, CNI_ERR_IO, NULL, "out of memory");
	r = json_parse(text, &end, &at, &conf);
	while (r >= 0 && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
		end++;
	if (r == -ENODATA) {
		r = fail(err, CNI_ERR_DECODE, NULL, "no network configuration on stdin");
		goto cleanup;
	}
	if (r < 0 || *end != '\0' || conf->type != JSON_OBJECT) {
		char details[64];

		snprintf(details, sizeof(details), "near byte %zu",
			 r < 0 ? at : (size_t)(end - text));
		r = fail(err, CNI_ERR_DECODE, details,
			 "the network configuration on stdin is not one JSON object");
		goto cleanup;
	}
	v = json_get(conf, "cniVersion");
	if (!v || v->type != JSON_STRING || strlen(v->s) >= sizeof(ret->version)) {
		r = fail(err, CNI_ERR_CONFIG, "cniVersion",
			 "the network configuration has no \"cniVersion\"");
		goto cleanup;
	}
	snprintf(ret->version, sizeof(ret->version), "%s", v->s);
	v = json_get(conf, "name");
	if (v && v->type == JSON_STRING && strlen(v->s) < sizeof(ret->name) && word_ok(v->s))
		snprintf(ret->name, sizeof(ret->name), "%s", v->s);
	v = json_get(conf, "cni.dev/valid-attachments");
	if (v && v->type != JSON_ARRAY) {
		r = fail(err, CNI_ERR_DECODE, "cni.dev/valid-attachments",
			 "\"cni.dev/valid-attachments\" is not an array");
		goto cleanup;
	}
	if (v) {
		ret->has_valid = true;
		ret->valid_start = v->start;
		ret->valid_end = v->end;
	}
	for (size_t i = 0; i < conf->n_items; i++)
		if (!known_key(conf->keys[i])) {
			char value[80];

			value_text(conf->items[i], value, sizeof(value));
			r = fail(err, CNI_ERR_FIELD, conf->keys[i],
				 "unknown key \"%s\": %s in ib-hook's network configuration "
				 "(ib-hook(8))",
				 conf->keys[i], value);
			goto cleanup;
		}
	r = ib_hook_keys(conf, ini, err);
	if (r < 0)
		goto cleanup;
	prev = json_get(conf, "prevResult");
	if (prev && prev->type != JSON_OBJECT && prev->type != JSON_NULL) {
		r = fail(err, CNI_ERR_DECODE, "prevResult", "\"prevResult\" is not an object");
		goto cleanup;
	}
	if (prev && prev->type == JSON_OBJECT) {
		ret->has_prev = true;
		ret->prev_start = prev->start;
		ret->prev_end = prev->end;
	}
	r = config_parse(&ret->config, ini->text, ini->len, &cerr);
	if (r < 0) {
		const char *origin =
			cerr.line > 0 && cerr.line <= ini->lines ? ini->origin[cerr.line - 1] : "";

		r = fail(err, CNI_ERR_CONFIG, origin, "\"%s\": %s", origin, cerr.message);
		goto cleanup;
	}
	r = interface_keys(conf, &ret->config, err);
	if (r < 0)
		goto cleanup;
	/* a gateway the keys give the interface wins over prevResult's */
	if (ret->has_prev && ifname && !config_gateway_of(&ret->config, ifname)) {
		prev_gateways(prev, ifname, gws, sizeof(gws));
		if (gws[0] && config_parse_entry(&ret->config, "Gateways", ifname, gws, &cerr) < 0)
			r = fail(err, CNI_ERR_CONFIG, "prevResult", "\"prevResult\": %s",
				 cerr.message);
	}
cleanup:
	json_free(conf);
	free(ini);
	return r < 0 ? -EINVAL : 0;
}
