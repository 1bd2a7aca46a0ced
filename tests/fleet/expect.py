#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# expect.py MATRIX.json HOSTS PORTS KIND [HOST PORT [BACK]]: whether ib-hook
# --join --json's matrix says exactly what the fault KIND at HOST and PORT
# breaks, and nothing else. BACK: a file of the ports ("HOST PORT" a line) to
# which HOST's kernel sends the replies from PORT's address through another
# port (no-rule: only those whose pair such a reply does not carry, where no
# lookup bound to PORT finds a route through it or PORT has arp_filter=1:
# doc/fleet.md, the reply's route, measured). KIND "routes" takes CAUSE ROUTES
# [REPLIES] instead of HOST PORT: ROUTES a file
# of the routes ("H P K Q" a line) by which host H sends from port P's
# address to port Q of host K through another port, or has none; each breaks
# the pair P to Q, and the pair Q to P (its reply), with CAUSE at H P;
# REPLIES after ROUTES: a file of those routes whose reply does not carry
# the pair Q to P (the others' reply is carried: that pair is ok).
# FLEET_LOCAL_HOST: the host whose configuration sets AcceptLocal, whose pairs
# between its own ports are judged (ok, or broken by the fault there); every
# other host's are local. Prints what differs; exit 1 when something does.
import json
import os
import sys

matrix = json.load(open(sys.argv[1]))
hosts = ["h%d" % h for h in range(1, int(sys.argv[2]) + 1)]
ports = ["ib%d" % p for p in range(int(sys.argv[3]))]
kind = sys.argv[4]
at = tuple(sys.argv[5:7]) if len(sys.argv) > 6 and kind != "routes" else None
every = [(h, p) for h in hosts for p in ports]
back = set(tuple(l.split()) for l in open(sys.argv[7])) if len(sys.argv) > 7 and kind != "routes" else set()
routes = set()
replies = set()
if kind == "routes":
    for l in open(sys.argv[6]):
        w = l.split()
        routes.add(((w[0], w[1]), (w[2], w[3])))
    for l in open(sys.argv[7]) if len(sys.argv) > 7 else []:
        w = l.split()
        replies.add(((w[0], w[1]), (w[2], w[3])))
judged = os.environ.get("FLEET_LOCAL_HOST", "")
# the pairs between two ports of the judged host, or none
mine = [(x, q) for x in every for q in every if x[0] == q[0] == judged and x != q]

# (from, to) -> (verdict, at): what must fail; every other pair between hosts is ok
want = {}
if kind == "no-rule":
    # the requests from the port leave elsewhere, and so do its replies to back
    for k in every:
        if k[0] != at[0]:
            want[(at, k)] = ("no-rule", at)
            if k in back:
                want[(k, at)] = ("no-rule", at)
elif kind == "arp-flux":
    for s in every:
        for q in ports:
            if s[0] != at[0] and q != at[1]:
                want[(s, (at[0], q))] = ("arp-flux", at)
    # it answers its own host's requests too (accept_local=1), but never hears its own
    for s, d in mine:
        if at[0] == judged and at not in (s, d):
            want[(s, d)] = ("arp-flux", at)
elif kind == "port-down":
    for x in every:
        if x[0] != at[0]:
            want[(x, at)] = ("port-down", at)
            want[(at, x)] = ("port-down", at)
    for s, d in mine:
        if at in (s, d):
            want[(s, d)] = ("port-down", at)
elif kind == "rp-filter":
    # the request is dropped on arrival (what comes from back) before its reply leaves
    for x in every:
        if x[0] != at[0]:
            if x in back:
                want[(x, at)] = ("rp-filter", at)
            want[(at, x)] = ("no-rule", at)
    # strict rp_filter drops ARP from the host's own addresses whatever accept_local says
    for s, d in mine:
        if d == at:
            want[(s, d)] = ("rp-filter", at)
elif kind == "routes":
    # the request's route first: a pair whose both ways are wrong is placed at its source
    for s in every:
        for d in every:
            if (s, d) in routes:
                want[(s, d)] = (sys.argv[5], s)
            elif (d, s) in replies:
                want[(s, d)] = (sys.argv[5], d)
elif kind == "local-dropped":
    for s, d in mine:
        if d == at:
            want[(s, d)] = ("local-dropped", at)

got = {}
local = 0
for p in matrix["pairs"]:
    s = (p["from"]["host"], p["from"]["interface"])
    d = (p["to"]["host"], p["to"]["interface"])
    if p["verdict"] == "local":
        local += s[0] == d[0]
        if s[0] != d[0] or s[0] == judged:
            print("  %s -> %s: local, and not judged" % (s, d))
            sys.exit(1)
        continue
    if s[0] == d[0] and s[0] != judged:
        print("  %s -> %s: one host's pair judged %s" % (s, d, p["verdict"]))
        sys.exit(1)
    if p["verdict"] != "ok":
        got[(s, d)] = (p["verdict"], (p["at"]["host"], p["at"]["interface"]))

bad = []
n = len(every)
if len(matrix["pairs"]) != n * (n - 1) or local != len(hosts) * len(ports) * (len(ports) - 1) - len(mine):
    bad.append("%d pairs, %d local" % (len(matrix["pairs"]), local))
if kind == "not-applied":
    # every pair into the host is answered by all its ports; the host's own
    # ports but the one the main table routes through send out of that one
    for k, v in got.items():
        if v[0] != "not-applied" or v[1][0] != at[0] or at[0] not in (k[0][0], k[1][0]):
            bad.append("%s -> %s: %s at %s" % (k[0], k[1], v[0], v[1]))
    for x in every:
        for q in ports:
            if x[0] != at[0] and (x, (at[0], q)) not in got:
                bad.append("%s -> %s: not called broken" % (x, (at[0], q)))
else:
    for k in sorted(set(want) | set(got)):
        if want.get(k) != got.get(k):
            bad.append("%s -> %s: wanted %s, got %s" % (k[0], k[1], want.get(k, "ok"), got.get(k, "ok")))
for b in bad[:10]:
    print("  " + b)
if len(bad) > 10:
    print("  ... %d more" % (len(bad) - 10))
s = matrix["summary"]
what = "%s of %d routes" % (sys.argv[5], len(routes)) if kind == "routes" else "%s at %s" % (kind, "-".join(at) if at else "-")
print("  %s: %d pairs, %d ok, %d not ok, %d local" % (what, s["pairs"], s["ok"], s["not_ok"], s["local"]))
sys.exit(1 if bad else 0)
