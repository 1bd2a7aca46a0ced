#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# scale-check.py INVENTORY ANSWERS PROBERS KIND [HOST PORT [PEER]]: whether the
# version-2 answers of step 2 (--check --fleet --json) say exactly what the
# fault KIND at HOST and PORT does, and nothing else; and what every answer
# must (each address asked by PROBERS hosts, never by its own, every peer of
# every source covered by its classes). KIND: none, arp-flux, port-down,
# no-rule, neigh-stale (PEER: the address whose entry HOST's PORT holds).
# Prints what differs; exit 1 when something does.
import ipaddress
import json
import sys

inv = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ans = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
probers = int(sys.argv[3])
kind = sys.argv[4]
at = tuple(sys.argv[5:7]) if len(sys.argv) > 6 else None
peer = sys.argv[7] if len(sys.argv) > 7 else None
bad = []

hw = {}  # (host, port) -> hardware address
holder = {}  # address -> (host, port)
for d in inv:
    for p in d["ports"]:
        hw[(d["host"], p["interface"])] = p["hwaddr"]
        for a in p["addresses"]:
            if ":" not in a:
                holder[a.split("/")[0]] = (d["host"], p["interface"])


def lookup(classes, addr):
    """the class of addr by the longest match"""
    best, res = -1, None
    for c in classes:
        items = c["peers"] if isinstance(c["peers"], list) else [c["peers"]]
        for i in items:
            n = ipaddress.ip_network("0.0.0.0/0" if i == "rest" else i, strict=False)
            if ipaddress.ip_address(addr) in n and n.prefixlen > best:
                best, res = n.prefixlen, c
    return res


asked = {}
for d in ans:
    if d.get("version") != 2:
        bad.append("%s: version %s, not 2" % (d.get("host"), d.get("version")))
        continue
    h = d["host"]
    for s in d["sources"]:
        src = (h, s["interface"])
        for a, (k, q) in holder.items():
            if k == h:
                continue
            c = lookup(s["classes"], a)
            if c is None:
                bad.append("%s %s: no class holds %s" % (h, s["address"], a))
                continue
            broken = kind == "no-rule" and src == at
            if kind == "port-down" and src == at:
                continue
            if (c["route_dev"] == s["interface"]) == broken:
                bad.append("%s %s -> %s: route %s" % (h, s["address"], a, c["route_dev"]))
        if kind == "port-down" and src == at:
            continue
        if kind != "no-rule" or src != at:
            if len(s["classes"]) != 1 or s["classes"][0]["peers"] != "rest":
                bad.append("%s %s: %d classes, not one" % (h, s["address"], len(s["classes"])))
    for p in d["arp"]:
        a = p["peer"]
        asked.setdefault(a, []).append(h)
        k, q = holder[a]
        want = [hw[(k, q)]]
        if kind == "port-down" and (k, q) == at:
            want = []
        if kind == "arp-flux" and k == at[0] and q != at[1]:
            want = sorted(want + [hw[at]])
        if sorted(p["answers"]) != want:
            bad.append("%s asked %s (%s %s): %s, wanted %s" % (h, a, k, q, p["answers"], want))
    for n in d["neigh"]:
        if kind != "neigh-stale" or (h, n["interface"]) != at or n["peer"] != peer:
            bad.append("%s: neighbour entry %s" % (h, n))
    if kind == "neigh-stale" and h == at[0] and not any(
        n["peer"] == peer and n["interface"] == at[1] for n in d["neigh"]
    ):
        bad.append("%s: the entry for %s on %s is not said" % (h, peer, at[1]))
for a, (k, q) in holder.items():
    who = asked.get(a, [])
    if len(who) != probers or k in who or len(set(who)) != len(who):
        bad.append("%s of %s asked by %s" % (a, k, who))
for b in bad[:20]:
    print(b)
print("%d answers, %d addresses asked %d times: %s" % (
    len(ans), len(asked), sum(len(w) for w in asked.values()), "%d differ" % len(bad) if bad else "as wanted"))
sys.exit(1 if bad else 0)
