#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# covered.py INVENTORY ANSWERS: from answers of version 2, how many (source
# address, peer address) pairs between hosts got a route, IPv4 and IPv6
# ("N4 N6"): each peer of a source's family on another host's port is put in
# the class whose peers match it most specifically ("rest" matching any; a
# bare address is a /32 or /128), as the join reads them (doc/fleet.md); a
# peer no class matches, or whose class has no route, is not counted. Exit 1
# when an answer is not of version 2.
import ipaddress
import json
import sys

held = {}  # host -> [address, ...]
for l in open(sys.argv[1]):
    if l.strip():
        d = json.loads(l)
        for p in d["ports"]:
            for a in p.get("addresses", []):
                a = a["address"] if isinstance(a, dict) else a
                held.setdefault(d["host"], []).append(ipaddress.ip_interface(a).ip)
count = {4: 0, 6: 0}
for l in open(sys.argv[2]):
    if not l.strip():
        continue
    d = json.loads(l)
    if d.get("version") != 2:
        sys.exit(1)
    for so in d.get("sources", []):
        src = ipaddress.ip_address(so["address"])
        for h, addrs in held.items():
            if h == d["host"]:
                continue
            for peer in addrs:
                if peer.version != src.version:
                    continue
                best, route = -1, None
                for c in so["classes"]:
                    items = c["peers"] if isinstance(c["peers"], list) else [c["peers"]]
                    for i in items:
                        n = 0 if i == "rest" else ipaddress.ip_network(i, strict=False)
                        if n != 0 and peer not in n:
                            continue
                        length = 0 if n == 0 else n.prefixlen
                        if length > best:
                            best, route = length, c.get("route_dev")
                count[peer.version] += route is not None
print(count[4], count[6])
