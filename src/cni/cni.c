// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CNI protocol (spec 0.4.0, 1.0.0, 1.1.0): the command and the
 * attachment come from the environment, the network configuration from
 * stdin, the result or an error object goes to stdout, and the exit code
 * says which. Everything the input can get wrong is found before the plugin
 * enters the pod: bad input changes nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cni.h"
#include "ip.h"
#include "kernel.h"
#include "log.h"
#include "netconf.h"
#include "pod.h"
#include "report.h"

/* a network configuration is a few kilobytes; prevResult of many interfaces some more */
#define STDIN_MAX (1024 * 1024)

static const struct {
	const char *name;
	int pod; /* enum pod_command, or -1 */
	bool needs_netns, needs_prev;
} commands[] = {
	{ "ADD", POD_ADD, true, true },	    { "DEL", POD_DEL, false, false },
	{ "CHECK", POD_CHECK, true, true }, { "GC", -1, false, false },
	{ "STATUS", -1, false, false },	    { "VERSION", -1, false, false },
};

bool cni_called(int argc)
{
	const char *c = getenv("CNI_COMMAND");

	return argc == 1 && c && *c;
}

static int print_error(FILE *out, const char *version, const struct cni_error *err)
{
	fprintf(out, "{\"cniVersion\":");
	report_json_string(out, version);
	fprintf(out, ",\"code\":%d,\"msg\":", (int)err->code);
	report_json_string(out, err->msg);
	if (err->details[0]) {
		fprintf(out, ",\"details\":");
		report_json_string(out, err->details);
	}
	fprintf(out, "}\n");
	fflush(out);
	return 1;
}

static int error(FILE *out, const char *version, enum cni_code code, const char *msg,
		 const char *details)
{
	struct cni_error err = { .code = code };

	snprintf(err.msg, sizeof(err.msg), "%s", msg);
	snprintf(err.details, sizeof(err.details), "%s", details ? details : "");
	return print_error(out, version, &err);
}

static int version(FILE *out)
{
	fprintf(out, "{\"cniVersion\":\"1.1.0\",\"supportedVersions\":[");
	for (size_t i = 0; cni_versions[i]; i++)
		fprintf(out, "%s\"%s\"", i ? "," : "", cni_versions[i]);
	fprintf(out, "]}\n");
	return fflush(out) == 0 ? 0 : 1;
}

/* stdin whole, NUL-terminated; NULL when it is too long or unreadable */
static char *read_all(FILE *in, size_t *ret_len)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);

	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, in);

		len += n;
		if (n == 0)
			break;
		if (len + 1 == cap) {
			char *more = cap >= STDIN_MAX ? NULL : realloc(buf, cap * 2);

			if (!more) {
				free(buf);
				return NULL;
			}
			buf = more;
			cap *= 2;
		}
	}
	if (!buf || ferror(in)) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	*ret_len = len;
	return buf;
}

/*
 * STATUS (1.1): ib-hook is ready when it can keep records (the state
 * directory, or /run to make it); it needs no daemon and no network
 */
static int status(FILE *out, const char *v)
{
	const char *dir = kernel->state_dir;
	char parent[256];
	char *slash;

	if (access(dir, W_OK) == 0)
		return 0;
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	if (errno == ENOENT && access(parent, W_OK) == 0)
		return 0;
	return error(out, v, CNI_ERR_UNAVAILABLE, "ib-hook cannot write its records",
		     strerror(errno));
}

int cni_main(FILE *in, FILE *out, const char *lock_path)
{
	const char *cmd = getenv("CNI_COMMAND"), *ifname = getenv("CNI_IFNAME");
	const char *netns = getenv("CNI_NETNS"), *container = getenv("CNI_CONTAINERID");
	struct cni_netconf *nc = NULL;
	struct cni_error err = {};
	const char *v = "1.1.0";
	char *text = NULL;
	size_t k, len = 0;
	int r;

	for (k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (strcmp(cmd, commands[k].name) == 0)
			break;
	if (k == sizeof(commands) / sizeof(commands[0]))
		return error(out, v, CNI_ERR_ENV, "unknown CNI_COMMAND",
			     "ADD, DEL, CHECK, GC, STATUS or VERSION");
	if (strcmp(cmd, "VERSION") == 0)
		return version(out);

	text = read_all(in, &len);
	if (!text)
		return error(out, v, CNI_ERR_IO, "cannot read the network configuration on stdin",
			     "unreadable, or larger than 1 MiB");
	if (strlen(text) != len) {
		r = error(out, v, CNI_ERR_DECODE, "the network configuration holds a NUL byte",
			  NULL);
		goto cleanup;
	}
	nc = malloc(sizeof(*nc));
	if (!nc) {
		r = error(out, v, CNI_ERR_IO, "out of memory", NULL);
		goto cleanup;
	}
	if (netconf_parse(text, ifname, nc, &err) < 0) {
		r = print_error(out, nc->version[0] ? nc->version : v, &err);
		goto cleanup;
	}
	v = nc->version;
	if (!cni_version_supported(v)) {
		r = error(out, "1.1.0", CNI_ERR_VERSION, "incompatible CNI version",
			  "ib-hook speaks 0.4.0, 1.0.0 and 1.1.0");
		goto cleanup;
	}
	if (strcmp(cmd, "GC") == 0) {
		r = pod_gc(nc, text, lock_path, &err) < 0 ? print_error(out, v, &err) : 0;
		goto cleanup;
	}
	if (commands[k].pod < 0) {
		r = status(out, v);
		goto cleanup;
	}
	if (!container || !*container) {
		r = error(out, v, CNI_ERR_ENV, "CNI_CONTAINERID is not set", NULL);
		goto cleanup;
	}
	if (!container_id_valid(container)) {
		r = error(out, v, CNI_ERR_ENV, "CNI_CONTAINERID is no container ID",
			  "a letter or digit, then letters, digits, '_', '.' and '-' (at most 240)");
		goto cleanup;
	}
	if (!ifname || !ifname_valid(ifname)) {
		r = error(out, v, CNI_ERR_ENV, "CNI_IFNAME is no interface name",
			  ifname ? ifname : "not set");
		goto cleanup;
	}
	if (commands[k].needs_netns && (!netns || !*netns)) {
		r = error(out, v, CNI_ERR_ENV, "CNI_NETNS is not set", NULL);
		goto cleanup;
	}
	if (commands[k].needs_prev && !nc->has_prev) {
		r = error(out, v, CNI_ERR_CONFIG,
			  "ib-hook is a chained plugin: it needs the prevResult of the plugin "
			  "that made the interface",
			  "put ib-hook after that plugin in the conflist");
		goto cleanup;
	}
	if (pod_run((enum pod_command)commands[k].pod, netns, container, ifname, nc, lock_path,
		    &err) < 0) {
		r = print_error(out, v, &err);
		goto cleanup;
	}
	r = 0;
	/* ADD passes the result on unchanged: ib-hook's tables are not the pod's main */
	if (commands[k].pod == POD_ADD) {
		fwrite(text + nc->prev_start, 1, nc->prev_end - nc->prev_start, out);
		fputc('\n', out);
	}
	if (fflush(out) != 0)
		r = 1;
cleanup:
	free(nc);
	free(text);
	return r;
}
