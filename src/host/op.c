// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>

#include "config.h"
#include "op.h"
#include "sysctl.h"

#define OBJECT(verb_, done_, adds_)                                                                \
	{                                                                                          \
		.adds = (adds_), .takes_back = !(adds_), .routing = true, .drift = true,           \
		.verb = (verb_), .done = (done_)                                                   \
	}
#define RECORD(done_, adds_)                                                                       \
	{                                                                                          \
		.adds = (adds_), .takes_back = !(adds_), .record_only = true, .done = (done_)      \
	}
#define SETTING                                                                                    \
	{                                                                                          \
		.drift = true, .link_setting = true                                                \
	}

static const struct ibh_op_kind_info kinds[] = {
	/* append, as the kernel does: never in front of a route of the same prefix */
	[IBH_OP_ROUTE_ADD] = OBJECT("append", "added", true),
	[IBH_OP_ROUTE_DEL] = OBJECT("del", "deleted", false),
	[IBH_OP_RULE_ADD] = OBJECT("add", "added", true),
	[IBH_OP_RULE_DEL] = OBJECT("del", "deleted", false),
	/* recorded: the record names what ib-hook took out of main, to give it back */
	[IBH_OP_MAIN_DEL] = OBJECT("del", "deleted", true),
	[IBH_OP_MAIN_RESTORE] = OBJECT("append", "gave back", false),
	[IBH_OP_ADOPT] = RECORD("recorded as its own (installed before the record)", true),
	[IBH_OP_FORGET] = RECORD("forgot (gone from the kernel)", false),
	[IBH_OP_TRANSFER] = RECORD("kept (installed for a link since deleted or renamed, and "
				   "wanted as it is)",
				   true),
	[IBH_OP_SYSCTL] = SETTING,
	/* it only follows others */
	[IBH_OP_NEIGH_FLUSH] = {},
	[IBH_OP_IPOIB_MODE] = SETTING,
	[IBH_OP_MTU] = SETTING,
};

const struct ibh_op_kind_info *op_kind(enum ibh_op_kind kind)
{
	return &kinds[kind];
}

void op_command(char *buf, size_t size, const char *ifname, const struct ibh_op *op)
{
	const char *verb = kinds[op->kind].verb;
	size_t n;
	int w;

	if (op->ifname[0])
		ifname = op->ifname;
	buf[0] = '\0';
	switch (op->kind) {
	case IBH_OP_ROUTE_ADD:
	case IBH_OP_MAIN_RESTORE:
	case IBH_OP_ROUTE_DEL:
	case IBH_OP_MAIN_DEL:
		route_command(buf, size, verb, &op->route, ifname);
		break;
	case IBH_OP_RULE_ADD:
	case IBH_OP_RULE_DEL:
		rule_command(buf, size, verb, &op->rule);
		break;
	case IBH_OP_SYSCTL:
		w = snprintf(buf, size, "sysctl -w net.ipv4.conf.");
		/* sysctl(8) writes the dots of a name (ib0.8001) as slashes */
		for (n = w > 0 ? (size_t)w : 0; *ifname && n + 1 < size; ifname++)
			buf[n++] = *ifname == '.' ? '/' : *ifname;
		if (n < size) {
			buf[n] = '\0';
			snprintf(buf + n, size - n, ".%s=%d", sysctl_name(op->sysctl.key),
				 op->sysctl.value);
		}
		break;
	case IBH_OP_NEIGH_FLUSH:
		snprintf(buf, size, "ip neigh flush dev %s", ifname);
		break;
	case IBH_OP_IPOIB_MODE:
		snprintf(buf, size, "echo %s > /sys/class/net/%s/mode", ipoib_mode_name(op->mode),
			 ifname);
		break;
	case IBH_OP_MTU:
		snprintf(buf, size, "ip link set dev %s mtu %u", ifname, op->mtu);
		break;
	case IBH_OP_ADOPT:
	case IBH_OP_FORGET:
	case IBH_OP_TRANSFER:
		break; /* only ib-hook's record changes */
	}
}

void op_describe(char *buf, size_t size, const char *ifname, const struct ibh_op *op)
{
	const char *done = kinds[op->kind].done;
	char t[200];

	if (op->ifname[0])
		ifname = op->ifname;
	switch (op->kind) {
	case IBH_OP_ROUTE_ADD:
	case IBH_OP_MAIN_RESTORE:
		route_text_added(t, sizeof(t), &op->route);
		snprintf(buf, size, "%s route %s", done, t);
		break;
	case IBH_OP_ROUTE_DEL:
	case IBH_OP_MAIN_DEL:
		route_text_deleted(t, sizeof(t), &op->route, ifname);
		snprintf(buf, size, "%s route %s", done, t);
		break;
	case IBH_OP_RULE_ADD:
	case IBH_OP_RULE_DEL:
		rule_text(t, sizeof(t), &op->rule, true);
		snprintf(buf, size, "%s rule %s", done, t);
		break;
	case IBH_OP_SYSCTL:
		snprintf(buf, size, "set %s=%d", sysctl_name(op->sysctl.key), op->sysctl.value);
		break;
	case IBH_OP_NEIGH_FLUSH:
		snprintf(buf, size, "flushed neighbour entries");
		break;
	case IBH_OP_IPOIB_MODE:
		snprintf(buf, size, "set IPoIB mode %s", ipoib_mode_name(op->mode));
		break;
	case IBH_OP_MTU:
		snprintf(buf, size, "set MTU %u", op->mtu);
		break;
	case IBH_OP_ADOPT:
	case IBH_OP_FORGET:
	case IBH_OP_TRANSFER:
		if (op->rec.kind == IBH_REC_LINK) {
			snprintf(buf, size, "%s: link %s", done, op->rec.ifname);
		} else if (op->rec.kind == IBH_REC_RULE) {
			rule_text(t, sizeof(t), &op->rule, false);
			snprintf(buf, size, "%s: rule %s", done, t);
		} else {
			route_text_named(t, sizeof(t), &op->route);
			snprintf(buf, size, "%s: route %s", done, t);
		}
		break;
	}
}
