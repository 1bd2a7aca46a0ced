/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CNI plugin's input: the network configuration on stdin (its ib-hook
 * keys become the configuration a host reads from /etc/ib-hook.conf) and
 * what the plugin before it reported for the attachment (prevResult).
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* the error codes of the CNI specification, and ib-hook's own from 100 */
enum cni_code {
	CNI_ERR_VERSION = 1,	  /* incompatible CNI version */
	CNI_ERR_FIELD = 2,	  /* unsupported field in the network configuration */
	CNI_ERR_CONTAINER = 3,	  /* container unknown or does not exist */
	CNI_ERR_ENV = 4,	  /* invalid necessary environment variables */
	CNI_ERR_IO = 5,		  /* I/O failure */
	CNI_ERR_DECODE = 6,	  /* failed to decode content */
	CNI_ERR_CONFIG = 7,	  /* invalid network configuration */
	CNI_ERR_UNAVAILABLE = 50, /* STATUS: the plugin is not available */
	CNI_ERR_APPLY = 100,	  /* ib-hook could not apply or remove (the message says why) */
	CNI_ERR_DRIFT = 101,	  /* CHECK: an owned rule, route or sysctl is missing or changed */
};

struct cni_error {
	enum cni_code code;
	char msg[512];
	char details[4096];
};

struct cni_netconf {
	char version[16]; /* cniVersion */
	struct ibh_config config;
	/* prevResult, as the previous plugin wrote it: byte offsets into the input */
	bool has_prev;
	size_t prev_start, prev_end;
	/* the network's "name", when it is a word (no blank); GC's attachments are the network's */
	char name[64];
	/* GC: "cni.dev/valid-attachments", an array: byte offsets into the input */
	bool has_valid;
	size_t valid_start, valid_end;
};

/* "0.4.0", "1.0.0", "1.1.0": the versions spoken, as VERSION lists them */
extern const char *const cni_versions[];
bool cni_version_supported(const char *v);

/*
 * text (the whole stdin) into ret, for the attachment ifname: the ib-hook keys
 * (tableBase, priority, mainRoute, ipv6, gatewayRoutes, tables, gateways,
 * sysctls) over the defaults, and the gateways prevResult gives ifname's
 * addresses where the keys name none. -EINVAL with err filled on bad input.
 */
int netconf_parse(const char *text, const char *ifname, struct cni_netconf *ret,
		  struct cni_error *err);
