#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# gid-vs-sysfs.py ROOT < STATUS_JSON: every managed address on a RoCE port in
# `ib-hook --status --json` carries the GID entry that the port's table under
# ROOT (/sys/class/infiniband, or a test's fixture laid out as it) holds for
# it: the RoCE v2 entry of the address (IPv4 as ::ffff:a.b.c.d) whose netdev
# is the interface, else the first entry of any type, else null. Read here
# independently of ib-hook's C. Prints one line per address; exit 1 on the
# first difference, 2 when the document has no RoCE address to compare.
import ipaddress
import json
import os
import sys

TYPES = {"RoCE v2": "RoCE v2", "IB/RoCE v1": "RoCE v1"}


def read(path):
    try:
        with open(path) as f:
            return f.readline().strip()
    except OSError:
        return None


def expected(root, dev, port, ifname, address):
    ip = ipaddress.ip_address(address.split("/")[0])
    want = (ipaddress.IPv6Address("::ffff:" + str(ip)) if ip.version == 4 else ip).packed
    base = os.path.join(root, dev, "ports", str(port))
    found = None
    for name in sorted(os.listdir(os.path.join(base, "gids")), key=int):
        text = read(os.path.join(base, "gids", name))
        try:
            if text is None or ipaddress.IPv6Address(text).packed != want:
                continue
        except ValueError:
            continue
        ndev = read(os.path.join(base, "gid_attrs", "ndevs", name))
        if ndev is not None and ndev != ifname:
            continue
        kind = TYPES.get(read(os.path.join(base, "gid_attrs", "types", name)) or "", "unknown")
        if found is None or kind == "RoCE v2" and found["type"] != "RoCE v2":
            found = {"index": int(name), "type": kind}
    return found


root = sys.argv[1]
doc = json.load(sys.stdin)
compared = 0
for o in doc["interfaces"]:
    rdma = o.get("rdma")
    if not rdma or rdma.get("link_layer") != "Ethernet":
        continue
    for a in o["addresses"]:
        want = expected(root, rdma["device"], rdma["port"], o["name"], a["address"])
        print(f"{o['name']} {a['address']}: ib-hook {a.get('gid', 'absent')}, sysfs {want}")
        if a.get("gid", "absent") != want:
            sys.exit(1)
        compared += 1
sys.exit(0 if compared else 2)
