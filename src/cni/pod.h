/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One attachment of a pod: the host engine run inside the pod's network
 * namespace for CNI_IFNAME, with the record of that namespace.
 */
#pragma once

#include <stdbool.h>

#include "netconf.h"

enum pod_command {
	POD_ADD,
	POD_DEL,
	POD_CHECK,
};

/*
 * Enter netns (a path: /var/run/netns/NAME, /proc/PID/ns/net) and run the
 * command for ifname there under the run lock at lock_path. 0, or -1 with err
 * filled. DEL succeeds when the namespace or the interface is gone; the
 * container's ID (CNI_CONTAINERID, valid as container_id_valid says) links it
 * to the namespace's record, which a DEL after the namespace went takes.
 */
int pod_run(enum pod_command cmd, const char *netns, const char *container, const char *ifname,
	    const struct cni_netconf *nc, const char *lock_path, struct cni_error *err);
/*
 * GC (CNI 1.1): the attachments of network nc->name that ib-hook added and
 * that nc's "cni.dev/valid-attachments" (in text, the whole input) does not
 * list are DELeted; the records of namespaces that are gone go. 0, or -1
 * with err filled.
 */
int pod_gc(const struct cni_netconf *nc, const char *text, const char *lock_path,
	   struct cni_error *err);
/*
 * CNI's container ID: a letter or digit, then letters, digits, '_', '.' and
 * '-'; at most 240 of them here (it names a file)
 */
bool container_id_valid(const char *s);
