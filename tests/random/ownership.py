#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Randomized differential test of ownership (issue 11).

In a network namespace of its own: random foreign rules and routes (every
selector iproute2 makes, both families, priorities and tables that collide
with ib-hook's on purpose) and random sequences of ib-hook operations (apply,
remove, --all, dispatcher environments, configuration changes, address
changes, link bounces, runs killed with SIGKILL). After every step, from the
kernel (ip -j in the namespace), never from ib-hook's own plan:

- every foreign object the test made is byte-identical (ip -d -j), unless the
  kernel itself removed it (a route through a link that went down);
- every interface ib-hook last applied (a run that exited 0, or the watcher)
  has what the configuration asks for: a rule from each managed address
  (IPv4 and IPv6) to T(X) at the configured priority, protocol kernel; each
  managed prefix route in T(X); arp_ignore=2 and arp_announce=2; under
  MainRoute=delete no kernel prefix route of X in main; every interface it
  last removed has none of that left (and main its prefix routes back under
  MainRoute=delete); after an --all that exited 0, ib-hook's rules and routes
  are exactly those;
- a run exits 0, or 1 only when the test planted something in the way of an
  interface in its scope (a route through another device in T(X), an object
  the kernel would match instead of ib-hook's, an address on two ports); a
  refusal with nothing in the way is a failure, and so is one whose message
  does not name what is in the way.

Issue 20 added IPv6 routes with `pref`/`expires`, main-table prefix routes
with an MTU or another metric, renames (ibN <-> ibrN, with Name=ib* configs)
and re-created links; IB_HOOK_CLASSIC=1 leaves them out, so that seeds found
before them replay as they did.

Issue 32/29 added, from a third generator (IB_HOOK_EXTRA=0 leaves them out,
so that the regression seeds replay as they did): the test deleting one of
its own foreign objects (so that refusals come and go), and namespaces made
and deleted between steps: ib-hook runs in one, the namespace goes without
--remove, and in the next one (the test looks for one that got the same
inode) a host's own routes and rule that look exactly like what ib-hook had
installed there stay untouched by --all. With IB_HOOK_TEST_NO_NETNS_COOKIE=1
and IB_HOOK=ib-hook-test (tests/seam.c) the record is named after the
namespace's inode, as on kernels before 5.14 (issue 29, item 1).

Seeded and replayable:  IB_HOOK_SEED=N IB_HOOK_STEPS=M tests/random/ownership.py
Exit 77 when network namespaces cannot be made here.
"""
import fnmatch
import ipaddress
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

IB_HOOK = os.environ.get("IB_HOOK") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "../../build/src/ib-hook")
STEPS = int(os.environ.get("IB_HOOK_STEPS", "300"))
# IB_HOOK_WATCH=1: the watcher (ib-hook --watch) runs throughout, as ib-hook.service does
WATCH = os.environ.get("IB_HOOK_WATCH") == "1"
SEED = int(os.environ.get("IB_HOOK_SEED", str(random.SystemRandom().randrange(1 << 31))))
NS = f"ibrand{os.getpid()}"
PORTS = ["ib0", "ib1", "ib2"]
V4 = {"ib0": "172.16.34.1", "ib1": "172.16.34.2", "ib2": "172.16.34.3"}
V6 = {"ib0": "2001:db8:34::1", "ib1": "2001:db8:34::2", "ib2": "2001:db8:34::3"}

rng = random.Random(SEED)
# issue 20's operations (routes with pref/expires, main routes with extras,
# renames, re-created links) draw from a second generator, so that the
# regression seeds found before them replay as they did with IB_HOOK_CLASSIC=1
EXTENDED = os.environ.get("IB_HOOK_CLASSIC") != "1"
rng2 = random.Random(SEED ^ 0x5EED)
# issue 32/29's steps (deleting a foreign object, namespaces that come and go)
# draw from a third one, and IB_HOOK_EXTRA=0 leaves them out
EXTRA = os.environ.get("IB_HOOK_EXTRA") != "0"
rng3 = random.Random(SEED ^ 0x32329)
# issue 33's steps (routes of main through the ports and the copies ib-hook makes
# of them in T(X), foreign routes and rules next to the copies, GatewayRoutes=
# and [Gateways]) draw from a fourth one, and IB_HOOK_RAILS=0 leaves them out
RAILS = os.environ.get("IB_HOOK_RAILS") != "0"
rng4 = random.Random(SEED ^ 0x33A11)
# how often a step is one of issue 33's (IB_HOOK_RAILS_P, a probability)
RAILS_P = float(os.environ.get("IB_HOOK_RAILS_P", "0.3"))
# how often a step makes and deletes namespaces (IB_HOOK_NETNS, a probability)
NETNS_P = float(os.environ.get("IB_HOOK_NETNS", "0.02"))
# how long the watcher may take to converge after a step (a bounded poll, not a sleep)
CONVERGE_S = 10
# what the test forwards to every ib-hook run (the netns-cookie fallback of tests/seam.c)
PASS_ENV = {k: v for k, v in os.environ.items() if k == "IB_HOOK_TEST_NO_NETNS_COOKIE"}
# a port's current device name: renames toggle ibN and ibrN
NAME = {p: p for p in PORTS}


def dev(port):
    return NAME[port]
tmp = tempfile.mkdtemp(prefix="ib-hook-random.")
log = []
step_no = 0  # the step being run, for the replay line


def sh(*args, check=False, ns=True, timeout=30, env=None):
    cmd = (["ip", "netns", "exec", NS] if ns else []) + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {p.stderr.strip()}")
    return p


def ip(*args, check=False):
    return sh("ip", *args, check=check)


def fail(msg):
    print(f"not ok - {msg}")
    replay = "".join(f"{k}={os.environ[k]} " for k in ("IB_HOOK", "IB_HOOK_TEST_NO_NETNS_COOKIE", "IB_HOOK_WATCH",
                                                        "IB_HOOK_CLASSIC", "IB_HOOK_EXTRA", "IB_HOOK_NETNS") if k in os.environ)
    print(f"# seed {SEED}; replay: {replay}IB_HOOK_SEED={SEED} IB_HOOK_STEPS={step_no} {sys.argv[0]}")
    for line in log[-int(os.environ.get("IB_HOOK_LOG_LINES", "25")):]:
        print(f"#   {line}")
    if os.environ.get("IB_HOOK_DEBUG"):
        for r in sorted(records):
            if os.path.isfile(f"/run/ib-hook/{r}"):
                print(f"# record {r}:", open(f"/run/ib-hook/{r}").read(), sep="\n")
    sys.exit(1)


# -- configurations the steps switch between ---------------------------------
CONFIGS = {
    "default": "[Match]\nName=ib0 ib1 ib2\n",
    "base5000": "[Match]\nName=ib0 ib1 ib2\n[Routing]\nTableBase=5000\n",
    "prio777": "[Match]\nName=ib0 ib1 ib2\n[Routing]\nPriority=777\n",
    "tables": "[Match]\nName=ib0 ib1 ib2\n[Tables]\nib0=941\nib2=943\n",
    "drop-ib2": "[Match]\nName=ib0 ib1\n",
    "no-ipv6": "[Match]\nName=ib0 ib1 ib2\n[Routing]\nIPv6=no\n",
    "main-delete": "[Match]\nName=ib0 ib1 ib2\n[Routing]\nMainRoute=delete\n",
}
if os.environ.get("IB_HOOK_CLASSIC") != "1":
    # renamed ports (ibrN) stay matched
    CONFIGS["glob"] = "[Match]\nName=ib*\n"
    CONFIGS["glob-delete"] = "[Match]\nName=ib*\n[Routing]\nMainRoute=delete\n[Tables]\nib1=942\n"
# the configurations issue 33's steps switch to (apart, so that the choice of
# the classic steps among CONFIGS stays as it was)
RAIL_CONFIGS = {
    "gw-off": "[Match]\nName=ib0 ib1 ib2\n[Routing]\nGatewayRoutes=no\n",
    "gw-peer": "[Match]\nName=ib0 ib1 ib2\n[Gateways]\nib1=peer\nib2=172.16.0.253\n",
    "gw-peer-off": "[Match]\nName=ib0 ib1 ib2\n[Routing]\nGatewayRoutes=no\n[Gateways]\nib0=peer\nib1=peer\n",
    "gw-glob": "[Match]\nName=ib*\n[Gateways]\nib0=peer\nibr0=peer\nib2=172.16.0.253\n",
}
for name, text in list(CONFIGS.items()) + (list(RAIL_CONFIGS.items()) if RAILS else []):
    with open(f"{tmp}/{name}.conf", "w") as f:
        f.write(text)
    os.chmod(f"{tmp}/{name}.conf", 0o644)
config = "default"
watcher = None


def ifindex(port):
    return int(ip("-o", "link", "show", dev(port)).stdout.split(":")[0])


def tables_of_interest():
    """ib-hook's tables under every configuration, and a user's"""
    t = {941, 943, 100, 7777}
    for p in PORTS:
        t |= {1000 + ifindex(p), 5000 + ifindex(p)}
    return sorted(t)


# -- snapshots ---------------------------------------------------------------
def canon(obj):
    # the kernel flips "unresolved" on a goto rule as rules at its target come and go
    obj.pop("unresolved", None)
    # an IPv6 route's lifetime counts down: that it has one is what stays the same
    if "expires" in obj:
        obj["expires"] = True
    return json.dumps(obj, sort_keys=True)


def rules():
    out = []
    for fam in ("-4", "-6"):
        out += [canon(dict(r, family=fam)) for r in json.loads(ip(fam, "-d", "-j", "rule", "show").stdout or "[]")]
    return out


def routes():
    out = []
    for fam in ("-4", "-6"):
        p = ip(fam, "-d", "-j", "route", "show", "table", "all")
        for r in json.loads(p.stdout or "[]"):
            if r.get("table") == "local" or r.get("type") in ("local", "broadcast", "multicast"):
                continue
            out.append(canon(dict(r, family=fam)))
    return out


foreign_rules = set()
foreign_routes = set()
# the ip arguments that made each foreign object, to delete it again
made_by = {}
# foreign objects the kernel changed (a link went down or was renamed): no longer
# compared byte for byte, but while the kernel keeps them, still in ib-hook's way
loose_rules = set()
loose_routes = set()


IB_HOOK_PREFIXES = {"172.16.0.0/16", "2001:db8:34::/64", "10.99.0.0/24", "10.200.0.0/31", "10.200.0.2/31", "10.200.0.4/31",
                    "2001:db8:200::/127", "2001:db8:200::2/127", "2001:db8:200::4/127"}


def ib_hook_shaped(kind, o):
    """what ib-hook installs: a bare `from A lookup T` rule, or a prefix route, both proto kernel"""
    if o.get("protocol") != "kernel":
        return False
    if kind == "rule":
        return set(o) <= {"family", "priority", "protocol", "src", "srclen", "table"}
    # every attribute ib-hook's routes show, and nothing else: `pref high`,
    # `expires` or an `mtu` make a route the user's, however alike it looks
    return (o.get("dst") in IB_HOOK_PREFIXES and o.get("table", "main") != "main"
            and set(o) <= {"family", "type", "dst", "dev", "table", "protocol", "scope", "prefsrc", "flags", "metric", "pref"}
            and o.get("pref", "medium") == "medium" and o.get("metric", 1024) == 1024
            and not set(o.get("flags", [])) - {"linkdown"})


def kernel_made(o):
    """the kernel's own prefix route in main (an address's, or fe80::/64)"""
    return (str(o.get("table", "main")) == "main" and o.get("protocol") == "kernel" and "gateway" not in o
            and "nexthops" not in o and "metrics" not in o and o.get("metric", 0) in (0, 256))


def add_foreign(kind, args):
    """make one foreign object; track exactly what the kernel shows of it"""
    before = set(rules() if kind == "rule" else routes())
    p = ip(*args)
    after = set(rules() if kind == "rule" else routes())
    if p.returncode != 0 and after == before:
        return
    # a command that failed may still have changed the kernel: an IPv6
    # multipath route whose next hops are added one by one and rolled back
    # when one fails leaves the expiry cleared on an existing route it merged
    # with (seed 628946258): what changed is the test's doing all the same
    # with the watcher running, ib-hook may add its own objects meanwhile: never
    # count those as foreign (the test's foreign objects never have ib-hook's shape)
    new = {o for o in after - before if not ib_hook_shaped(kind, json.loads(o))}
    if kind == "route":
        # the watcher copies a new route of main into T(X) meanwhile, or gives
        # main a kernel prefix route back: the test made only what is in its table
        table = args[args.index("table") + 1] if "table" in args else "main"
        new = {o for o in new if str(json.loads(o).get("table", "main")) == table and not kernel_made(json.loads(o))}
    tracked = foreign_rules if kind == "rule" else foreign_routes
    # `ip route replace` may replace a foreign route of the test's own: no longer there to keep
    tracked -= before - after
    tracked.update(new)
    for o in new:
        made_by[o] = args
    if {o for o in before - after if ib_hook_shaped(kind, json.loads(o))}:
        disturb_all()  # `ip route replace` took the place of ib-hook's own route
    log.append(f"foreign {kind}: ip {' '.join(args)}" + (f" (failed: {p.stderr.strip()})" if p.returncode else ""))


def random_foreign_rule():
    fam6 = rng.random() < 0.3
    port = rng.choice(PORTS)
    src = (V6 if fam6 else V4)[port] if rng.random() < 0.8 else ("2001:db8:99::7" if fam6 else "192.0.2.7")
    prio = rng.choice([1000, 1000, 777, 900, 1001, 32000])
    table = rng.choice(tables_of_interest())
    sel = []
    choices = [
        ["iif", rng.choice([dev(p) for p in PORTS] + ["lo"])],
        ["oif", dev(rng.choice(PORTS))],
        ["fwmark", rng.choice(["0x5", "0/0x1", "0x10/0xff"])],
        ["to", "2001:db8:77::/48" if fam6 else "10.0.0.0/8"],
        ["tos", "0x10"] if not fam6 else ["dsfield", "0x10"],
        ["not"],
        ["uidrange", "100-200"],
        ["ipproto", "tcp"],
        ["ipproto", "udp", "dport", "4791"],
        ["ipproto", "tcp", "sport", "1024-2048"],
        ["suppress_prefixlength", "0"],
        ["suppress_ifgroup", "5"],
    ]
    for _ in range(rng.choice([0, 1, 1, 2])):
        sel += rng.choice(choices)
    proto = rng.choice(["static", "boot", "99", "kernel", None])
    if not sel and proto == "kernel":
        proto = "static"  # exactly ib-hook's shape would be an identical object, not a foreign one
    args = (["-6"] if fam6 else []) + ["rule", "add"]
    if "not" in sel:
        sel.remove("not")
        args.append("not")
    args += ["from", src] + sel
    if rng.random() < 0.1:
        args += ["goto", "32000"]
    else:
        args += ["lookup", str(table)]
    args += ["priority", str(prio)]
    if proto:
        args += ["protocol", proto]
    add_foreign("rule", args)


def random_foreign_route():
    fam6 = rng.random() < 0.3
    table = str(rng.choice(tables_of_interest()))
    port = rng.choice(PORTS)
    kind = rng.randrange(6)
    if kind == 0:
        args = ["route", "add", rng.choice(["unreachable", "blackhole", "prohibit", "throw"]),
                "default" if rng.random() < 0.5 else ("2001:db8:55::/48" if fam6 else "10.55.0.0/16"), "table", table]
    elif kind == 1:
        if fam6:
            args = ["route", "add", "2001:db8:34::/64", "via", "2001:db8:34::fe", "dev", dev(port), "table", table, "proto", "static"]
        else:
            args = ["route", "add", "172.16.0.0/16", "via", "172.16.0.254", "dev", dev(port), "onlink", "table", table, "proto", "static"]
    elif kind == 2:
        args = ["route", "add", "2001:db8:34::/64" if fam6 else "172.16.0.0/16", "dev", dev(port), "metric", str(rng.choice([50, 2000])), "table", table]
    elif kind == 3:
        args = ["route", "add", "2001:db8:66::/48" if fam6 else "10.66.0.0/16", "dev", dev(port), "table", table, "proto", rng.choice(["static", "kernel", "boot"])]
    elif kind == 4:
        # through a device ib-hook does not manage: makes T(X) someone else's (a refusal)
        args = ["route", "add", "2001:db8:44::/48" if fam6 else "10.44.0.0/16", "dev", "p" + port, "table", table]
    else:
        args = ["route", "add", "default", "via", "172.16.0.254" if not fam6 else "2001:db8:34::fe", "dev", dev(port), "table", "100"]
        if not fam6:
            args.insert(-2, "onlink")
    add_foreign("route", (["-6"] if fam6 else []) + args)


def random_new_route():
    """issue 20: routes that look like ib-hook's or the kernel's but for one attribute"""
    table = str(rng2.choice(tables_of_interest()))
    port = rng2.choice(PORTS)
    if rng2.random() < 0.5:
        # exactly ib-hook's IPv6 route but for its preference or lifetime
        args = ["-6", "route", rng2.choice(["add", "replace"]), "2001:db8:34::/64", "dev", dev(port), "table", table,
                "proto", "kernel", "metric", "1024"] + rng2.choice([["pref", "high"], ["pref", "low"], ["expires", "3600"]])
    else:
        # a prefix route in main that is not the kernel's own (MainRoute=delete must leave it)
        extra = rng2.choice([["mtu", "1400"], ["metric", "50"], ["metric", "2000"]])
        if rng2.random() < 0.4:
            args = ["-6", "route", "append", "2001:db8:34::/64", "dev", dev(port), "proto", "kernel"] + extra
        else:
            args = ["route", "append", "172.16.0.0/16", "dev", dev(port), "proto", "kernel", "scope", "link", "src", V4[port]] + extra
    add_foreign("route", args)


def carrier(port):
    """wait (bounded) until port and its peer have their carrier back: until then
    the kernel flags the routes through either `linkdown`, which is not a change
    of ib-hook's making"""
    deadline = time.monotonic() + 5
    while True:
        links = json.loads(ip("-j", "link", "show").stdout or "[]")
        up = {link["ifname"] for link in links if "LOWER_UP" in link.get("flags", [])}
        if {dev(port), "p" + port} <= up and not linkdown_routes({dev(port), "p" + port}):
            return
        if time.monotonic() > deadline:
            fail(f"{dev(port)} and p{port} have no carrier 5 s after they were set up, "
                 "or their routes are still flagged linkdown")
        time.sleep(0.01)


def linkdown_routes(devs):
    """routes through devs the kernel still flags `linkdown`: LOWER_UP shows as soon
    as the carrier is on, the routes' flag goes later, when the kernel's link watch
    runs (up to a second, longer on a loaded machine: CI saw a foreign route through
    pib0 'changed' by it)"""
    found = []
    for fam in ("-4", "-6"):
        for r in json.loads(ip("-j", fam, "route", "show", "table", "all").stdout or "[]"):
            if r.get("dev") in devs and "linkdown" in r.get("flags", []):
                found.append(r)
    return found


def readdress(port):
    """a port's own addresses, as a network manager sets them again"""
    ip("addr", "add", V4[port] + "/16", "dev", dev(port))
    ip("-6", "addr", "add", V6[port] + "/64", "dev", dev(port), "nodad")


def forget_rules_of(name):
    """a rule's iif/oif names a device: a rename detaches it, which is the kernel's doing"""
    for r in list(foreign_rules):
        o = json.loads(r)
        if name in (o.get("iif"), o.get("oif")):
            foreign_rules.discard(r)
            loose_rules.add(r)


def step_rename():
    """issue 20 case 3: ibN <-> ibrN, down, rename, up (Name=ib* still matches)"""
    port = rng2.choice(PORTS)
    new = port if NAME[port] != port else "ibr" + port[2:]
    ip("link", "set", dev(port), "down")
    disturb(port)
    forget_routes_of(dev(port))
    forget_rules_of(dev(port))
    forget_rules_of(new)
    ip("link", "set", dev(port), "name", new, check=True)
    rename_loose(dev(port), new)
    log.append(f"rename {NAME[port]} -> {new}")
    NAME[port] = new
    ip("link", "set", new, "up")
    carrier(port)
    readdress(port)


def step_recreate():
    """issue 20 case 4: a driver reload: the link goes, comes back with its addresses"""
    port = rng2.choice(PORTS)
    disturb(port)
    forget_routes_of(dev(port))
    forget_routes_of("p" + port)
    forget_rules_of(dev(port))
    forget_rules_of("p" + port)
    ip("link", "del", dev(port))
    ip("link", "add", dev(port), "type", "veth", "peer", "name", "p" + port, check=True)
    ip("link", "set", "p" + port, "up")
    ip("link", "set", dev(port), "up")
    carrier(port)
    readdress(port)
    log.append(f"re-created {dev(port)}")


def step_extended():
    x = rng2.random()
    if x < 0.4:
        random_new_route()
    elif x < 0.7:
        step_rename()
    else:
        step_recreate()


def check_foreign(what, k):
    have_rules, have_routes = canon_all(k)
    gone = foreign_rules - have_rules
    if gone:
        fail(f"{what}: foreign rule changed or deleted: {sorted(gone)[0]}")
    gone = foreign_routes - have_routes
    if gone:
        o = json.loads(sorted(gone)[0])
        now = [r for r in have_routes
               if (json.loads(r).get("dst"), json.loads(r).get("table", "main")) == (o.get("dst"), o.get("table", "main"))]
        fail(f"{what}: foreign route changed or deleted: {sorted(gone)[0]}; the kernel has now with its "
             f"destination and table: {now or 'nothing'}")


def forget_routes_of(port):
    """the kernel drops a down link's routes: they are no longer the test's to compare"""
    for r in list(foreign_routes):
        if through(json.loads(r), port):
            foreign_routes.discard(r)
            loose_routes.add(r)


def rename_loose(old, new):
    """a foreign route the kernel kept through a renamed link still stands in ib-hook's way"""
    for r in list(loose_routes):
        o = json.loads(r)
        if o.get("dev") == old:
            loose_routes.discard(r)
            loose_routes.add(json.dumps(dict(o, dev=new), sort_keys=True))


# -- what ib-hook is configured to install, from the kernel -------------------
# Derived from the configuration text and the kernel's links and addresses,
# never from ib-hook's plan: the test's own reading of SPEC section 3.
def parse_config(text):
    c = {"names": None, "base": 1000, "prio": 1000, "ipv6": True, "main_delete": False, "tables": {},
         "gateway_routes": True, "gateways": {}}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
            continue
        if "=" not in line:
            continue
        key, value = (x.strip() for x in line.split("=", 1))
        if section == "Match" and key == "Name":
            c["names"] = value.split()
        elif section == "Routing" and key == "TableBase":
            c["base"] = int(value)
        elif section == "Routing" and key == "Priority":
            c["prio"] = int(value)
        elif section == "Routing" and key == "IPv6":
            c["ipv6"] = value == "yes"
        elif section == "Routing" and key == "MainRoute":
            c["main_delete"] = value == "delete"
        elif section == "Routing" and key == "GatewayRoutes":
            c["gateway_routes"] = value == "yes"
        elif section == "Tables":
            c["tables"][key] = int(value)
        elif section == "Gateways":
            c["gateways"][key] = value.split()
    return c


PARSED = {name: parse_config(text) for name, text in list(CONFIGS.items()) + (list(RAIL_CONFIGS.items()) if RAILS else [])}


def snapshot():
    """the namespace's rules, routes, links, addresses and ARP sysctls, in one process"""
    script = ("ip -4 -d -j rule show; echo @@; ip -6 -d -j rule show; echo @@; "
              "ip -4 -d -j route show table all; echo @@; ip -6 -d -j route show table all; echo @@; "
              "ip -j addr show; echo @@; "
              "for d in /proc/sys/net/ipv4/conf/*/; do n=${d%/}; n=${n##*/}; "
              "read i < $d/arp_ignore; read a < $d/arp_announce; echo \"$n $i $a\"; done")
    out = sh("sh", "-c", script).stdout.split("@@")
    parts = [json.loads(x.strip() or "[]") for x in out[:5]]
    k = {"rules": [], "routes": [], "links": {}, "addrs": {}, "arp": {}}
    for fam, rs in (("-4", parts[0]), ("-6", parts[1])):
        k["rules"] += [dict(r, family=fam) for r in rs]
    for fam, rs in (("-4", parts[2]), ("-6", parts[3])):
        k["routes"] += [dict(r, family=fam) for r in rs
                        if r.get("table") != "local" and r.get("type") not in ("local", "broadcast", "multicast")]
    for link in parts[4]:
        k["links"][link["ifname"]] = link["ifindex"]
        k["addrs"][link["ifname"]] = link.get("addr_info", [])
    for line in out[5].splitlines():
        if line.strip():
            n, i, a = line.split()
            k["arp"][n] = (int(i), int(a))
    return k


def canon_all(k):
    rs = {canon(dict(r)) for r in k["rules"]}
    ro = {canon(dict(r)) for r in k["routes"]}
    return rs, ro


class Want:
    """what one managed link X should show: rules, routes in T(X), main"""

    def __init__(self, c, name, ifindex, addr_info):
        self.name = name
        self.table = c["tables"].get(name, c["base"] + ifindex)
        self.prio = c["prio"]
        self.addrs = []  # (family, address)
        self.prefixes = {}  # (family, prefix) -> addresses of X in it
        for a in addr_info:
            if a["family"] == "inet6" and (not c["ipv6"] or a.get("scope") != "global"):
                continue
            if a["family"] not in ("inet", "inet6"):
                continue
            fam = "-4" if a["family"] == "inet" else "-6"
            net = ipaddress.ip_network(f"{a.get('address', a['local'])}/{a['prefixlen']}", strict=False)
            self.addrs.append((fam, a["local"]))
            self.prefixes.setdefault((fam, str(net)), set()).add(a["local"])
        self.all_tables = {str(c2["tables"].get(name, c2["base"] + ifindex)) for c2 in PARSED.values()}

    def rule_keys(self, dups):
        return {(fam, a, self.prio, str(self.table)) for fam, a in self.addrs if a not in dups}


def managed(c, name):
    return c["names"] is not None and any(fnmatch.fnmatchcase(name, g) for g in c["names"])


def rule_key(o):
    full = 32 if o["family"] == "-4" else 128
    if o.get("srclen", full) != full or "src" not in o or "table" not in o:
        return None
    return (o["family"], o["src"], o.get("priority"), str(o["table"]))


def route_metric(o):
    return o.get("metric", 0)


def wants(k, c):
    """every managed link's Want, and the addresses on two managed links"""
    ws = {n: Want(c, n, i, k["addrs"].get(n, [])) for n, i in k["links"].items() if managed(c, n)}
    seen, dups = {}, set()
    for w in ws.values():
        for _, a in w.addrs:
            if a in seen and seen[a] != w.name:
                dups.add(a)
            seen[a] = w.name
    return ws, dups


def route_place(o):
    return (o["family"], str(o.get("table", "main")), o.get("dst"), o.get("dev"))


def planted(k):
    """the foreign objects the test made that the kernel still has"""
    krules = {rule_key(r) for r in k["rules"] if not ib_hook_shaped("rule", r)}
    kroutes = {route_place(r) for r in k["routes"] if not ib_hook_shaped("route", r)}
    frules = [json.loads(o) for o in foreign_rules] + \
        [o for o in map(json.loads, loose_rules) if rule_key(o) and rule_key(o) in krules]
    froutes = [json.loads(o) for o in foreign_routes] + \
        [o for o in map(json.loads, loose_routes) if route_place(o) in kroutes]
    return frules, froutes


def in_the_way(k, c):
    """the managed links a planted foreign object (or a shared address) stands in
    the way of, and whether one stands in the way of deleting ib-hook's own objects"""
    ws, dups = wants(k, c)
    frules, froutes = planted(k)
    blocked = set()
    for n, w in ws.items():
        t = str(w.table)
        rkeys = w.rule_keys(set())
        if any(a in dups for _, a in w.addrs):
            blocked.add(n)
        for f in froutes:
            if str(f.get("table", "main")) != t:
                continue
            # a route through another device makes T(X) someone else's table
            if "dev" in f and f["dev"] != n:
                blocked.add(n)
            # one the kernel would match instead of ib-hook's prefix route
            if (f["family"], f.get("dst")) in w.prefixes and route_metric(f) == (0 if f["family"] == "-4" else 1024):
                blocked.add(n)
        for f in frules:
            if rule_key(f) in rkeys:
                blocked.add(n)
    # deleting a stale object of ib-hook's that a foreign one matches as well
    mine_rules = {rule_key(r) for r in k["rules"] if ib_hook_shaped("rule", r)}
    mine_routes = {(r["family"], str(r.get("table")), r.get("dst")) for r in k["routes"] if ib_hook_shaped("route", r)}
    stuck = (any(rule_key(f) in mine_rules for f in frules)
             or any((f["family"], str(f.get("table", "main")), f.get("dst")) in mine_routes for f in froutes))
    b, st = copies_in_the_way(k, c, ws)
    return blocked | b, stuck or st


def problems_applied(k, c, w, dups, foreign):
    """what link w lacks of what apply leaves, as the kernel shows it"""
    out = []
    mine = [r for r in k["rules"] if canon(dict(r)) not in foreign[0] and ib_hook_shaped("rule", r)]
    have = {rule_key(r) for r in mine}
    for key in sorted(w.rule_keys(dups) - have):
        out.append(f"no rule from {key[1]} lookup {key[3]} priority {key[2]} protocol kernel")
    routes = [r for r in k["routes"] if canon(dict(r)) not in foreign[1]]
    for (fam, prefix), srcs in sorted(w.prefixes.items()):
        if any(a in dups for a in srcs):
            continue
        ok = [r for r in routes if ib_hook_shaped("route", r) and r["family"] == fam and r.get("dst") == prefix
              and r.get("dev") == w.name and str(r.get("table")) == str(w.table)
              and (fam == "-6" or (r.get("scope") == "link" and r.get("prefsrc") in srcs))]
        if not ok:
            out.append(f"no route {prefix} dev {w.name} in table {w.table}")
        if c["main_delete"] and not main_in_the_way(k, fam, prefix, w.name):
            left = [r for r in routes if r["family"] == fam and r.get("dst") == prefix and r.get("dev") == w.name
                    and r.get("table", "main") == "main" and r.get("protocol") == "kernel"]
            if left:
                out.append(f"MainRoute=delete, but main still holds {prefix} dev {w.name}")
    if k["arp"].get(w.name) != (2, 2):
        out.append(f"arp_ignore/arp_announce of {w.name} are {k['arp'].get(w.name)}, not (2, 2)")
    return out


def problems_removed(k, c, w, dups, foreign):
    """what of ib-hook's link w still has after a remove"""
    out = []
    addrs = {a for _, a in w.addrs if a not in dups}
    for r in k["rules"]:
        key = rule_key(r)
        if (canon(dict(r)) not in foreign[0] and ib_hook_shaped("rule", r) and key
                and key[1] in addrs and key[3] in w.all_tables):
            out.append(f"rule from {key[1]} lookup {key[3]} left after remove")
    for r in k["routes"]:
        if canon(dict(r)) in foreign[1]:
            continue
        if ib_hook_shaped("route", r) and r.get("dev") == w.name:
            out.append(f"route {r['dst']} dev {w.name} table {r.get('table')} left after remove")
    if c["main_delete"]:
        for (fam, prefix), srcs in sorted(w.prefixes.items()):
            if not main_in_the_way(k, fam, prefix, w.name) and not any(r["family"] == fam and r.get("dst") == prefix and r.get("dev") == w.name
                       and r.get("table", "main") == "main" and r.get("protocol") == "kernel" for r in k["routes"]):
                out.append(f"MainRoute=delete: {prefix} dev {w.name} not given back to main")
    return out


def covers(dst, prefix):
    p = ipaddress.ip_network(prefix)
    net = ipaddress.ip_network(("::/0" if p.version == 6 else "0.0.0.0/0") if dst == "default" else dst)
    return net.version == p.version and p.subnet_of(net)


def main_in_the_way(k, fam, prefix, name):
    """a foreign route in main for X's prefix through X: a delete of the kernel's
    could match it instead (IPv4 compares no metrics such as mtu), so it stays"""
    return any(o["family"] == fam and o.get("dst") == prefix and o.get("dev") == name
               and o.get("table", "main") == "main" for o in planted(k)[1])


def exact_problems(k, c, dups, foreign):
    """after an --all that exited 0: ib-hook's rules and routes are exactly what is wanted"""
    ws, _ = wants(k, c)
    want_rules = set()
    for w in ws.values():
        want_rules |= w.rule_keys(set())
    out = []
    for r in k["rules"]:
        key = rule_key(r)
        if (canon(dict(r)) not in foreign[0] and ib_hook_shaped("rule", r) and r.get("priority") not in (0, 32766, 32767)
                and key not in want_rules and key[1] not in dups):
            out.append(f"rule from {key[1]} lookup {key[3]} priority {key[2]} is no longer wanted")
    for r in k["routes"]:
        if canon(dict(r)) in foreign[1] or not ib_hook_shaped("route", r):
            continue
        w = ws.get(r.get("dev"))
        if not w or str(r.get("table")) != str(w.table) or (r["family"], r.get("dst")) not in w.prefixes:
            out.append(f"route {r['dst']} dev {r.get('dev')} table {r.get('table')} is no longer wanted")
    return out + copy_exact_problems(k, c, ws, foreign)


# -- routed rails (issue 33): main's routes through X, copied into T(X) -------
# The test's own reading of SPEC section 9 and ib-hook(8) "Routed rails", from
# `ip -j -d route` of main and the kernel's own lookup, never ib-hook's plan.
# flags that tell a state of the kernel's, not an attribute anybody sets
STATE_FLAGS = {"linkdown", "dead", "offload", "trap", "offload_failed", "rt_offload", "rt_trap", "unresolved"}
# what ib-hook cannot reproduce, and so does not copy (never planted by the test)
UNCOPIED = {"encap", "nhid", "realms", "realm", "via", "flow", "nh_info"}


def norm(o):
    """a route of T(X) as compared with the copy the test expects"""
    o = {k: v for k, v in o.items() if k not in ("expires",)}
    o["flags"] = sorted(set(o.get("flags", [])) - STATE_FLAGS)
    if "nexthops" in o:
        o["nexthops"] = [dict(h, flags=sorted(set(h.get("flags", [])) - STATE_FLAGS)) for h in o["nexthops"]]
    o["table"] = str(o.get("table", "main"))
    return json.dumps(o, sort_keys=True)


def through(r, name):
    return r.get("dev") == name or any(h.get("dev") == name for h in r.get("nexthops", []))


def copy_of(m, name, table):
    """main's route m as T(X) copies it for X: its next hops through X only (one
    of them: a plain route), protocol kernel, no lifetime, every other attribute"""
    c = {k: v for k, v in m.items() if k not in ("expires", "table")}
    c["protocol"] = "kernel"
    c["table"] = str(table)
    if "nexthops" in m:
        hops = [h for h in m["nexthops"] if h.get("dev") == name]
        if not hops:
            return None
        if len(hops) == 1:
            del c["nexthops"]
            if "gateway" in hops[0]:
                c["gateway"] = hops[0]["gateway"]
            c["dev"] = name
            c["flags"] = sorted(set(m.get("flags", [])) | set(hops[0].get("flags", [])))
        else:
            c["nexthops"] = hops
    elif m.get("dev") != name:
        return None
    return norm(c)


def gateways_reached(k, m, w):
    """the kernel takes a copy through X only with a gateway X reaches: in one of
    X's prefixes, link-local, onlink, or where a lookup through X finds a route
    without a gateway (a port's address went, main's route through it stayed)"""
    for h in m.get("nexthops") or [m]:
        gw = h.get("gateway")
        if h.get("dev") != w.name or not gw or gw.startswith("fe80:") or "onlink" in h.get("flags", []) \
                or "onlink" in m.get("flags", []):
            continue
        if any(ipaddress.ip_address(gw) in ipaddress.ip_network(p) for f, p in w.prefixes
               if f == m["family"]):
            continue
        key = (gw, w.name)
        if key not in k.setdefault("reach", {}):
            p = sh("ip", m["family"], "-d", "-j", "route", "get", "fibmatch", gw, "oif", w.name)
            found = json.loads(p.stdout.strip() or "[]") if p.returncode == 0 else []
            k["reach"][key] = bool(found) and found[0].get("type", "unicast") == "unicast" \
                and "gateway" not in found[0] and found[0].get("dev") == w.name
        if not k["reach"][key]:
            return False
    return True


def main_copyable(k, c):
    return [r for r in k["routes"] if str(r.get("table", "main")) == "main" and r.get("type") == "unicast"
            and r.get("protocol") != "kernel" and not UNCOPIED & set(r) and (c["ipv6"] or r["family"] == "-4")]


def peer_of(k, c, name, fam):
    """[Gateways] peer: the other address of X's first /31 (/127) or point-to-point address"""
    for a in k["addrs"].get(name, []):
        if a["family"] != ("inet" if fam == "-4" else "inet6") or (fam == "-6" and (not c["ipv6"] or a.get("scope") != "global")):
            continue
        if a.get("address") and a["address"] != a["local"]:
            return a["address"]
        if a["prefixlen"] == (31 if fam == "-4" else 127):
            return str(ipaddress.ip_address(int(ipaddress.ip_address(a["local"])) ^ 1))
    return None


def through_port(k, c, m, w):
    """main's route m with its next hops through another managed port whose
    gateway lies in one of X's prefixes through X (section 9: the default or
    a storage network behind a second router of X's subnet); such a hop
    whose gateway a hop through X already has is left out"""
    def moves(h):
        gw = h.get("gateway")
        return (h.get("dev") not in (None, w.name) and h["dev"] in k["links"] and managed(c, h["dev"])
                and gw and not gw.startswith("fe80:")
                and any(f == m["family"] and ipaddress.ip_address(gw) in ipaddress.ip_network(p) for f, p in w.prefixes))
    if "nexthops" not in m:
        return dict(m, dev=w.name) if moves(m) else m
    hops = []
    for h in m["nexthops"]:
        if moves(h):
            if any(o.get("dev") == w.name and o.get("gateway") == h["gateway"] for o in m["nexthops"] + hops):
                continue
            h = dict(h, dev=w.name)
        hops.append(h)
    return dict(m, nexthops=hops)


def expected_copies(k, c, w):
    """the copies T(X) holds for managed link w under configuration c"""
    if not c["gateway_routes"]:
        return set()
    out = set()
    # IPv6 joins a second gateway route of a prefix and metric to the first in
    # T(X) (main keeps an RA route apart): the first copy stays, X's own first
    joined = {}
    for m in sorted(main_copyable(k, c), key=lambda m: not through(m, w.name)):
        if not gateways_reached(k, m, w):
            continue
        cp = copy_of(through_port(k, c, m, w), w.name, w.table)
        if not cp:
            continue
        o = json.loads(cp)
        if o["family"] == "-6" and ("gateway" in o or "nexthops" in o):
            if joined.setdefault((o["dst"], o.get("metric")), cp) != cp:
                continue
        out.add(cp)
    # [Gateways]: a default through the named gateway, for a family with no default copy
    g = c["gateways"].get(w.name)
    for fam in ("-4", "-6") if g else ():
        if (fam == "-6" and not c["ipv6"]) or any(json.loads(o)["dst"] == "default" and json.loads(o)["family"] == fam for o in out):
            continue
        gw = ([a for a in g if a != "peer" and (":" in a) == (fam == "-6")] or [None])[-1]
        if gw is None and "peer" in g:
            gw = peer_of(k, c, w.name, fam)
        if gw:
            d = {"family": fam, "type": "unicast", "dst": "default", "gateway": gw, "dev": w.name, "table": str(w.table),
                 "protocol": "kernel", "scope": "global", "flags": []}
            if fam == "-6":
                d.update(metric=1024, pref="medium")
            out.add(norm(d))
    return out


def copies_in(k, foreign):
    """the routes ib-hook copied that the kernel holds: protocol kernel, outside
    main, none of the test's (also not one the kernel changed, still in its place)"""
    loose = {route_place(o) for o in map(json.loads, loose_routes) if o.get("protocol") == "kernel"}
    return [r for r in k["routes"] if r.get("protocol") == "kernel" and str(r.get("table", "main")) != "main"
            and canon(dict(r)) not in foreign[1] and not ib_hook_shaped("route", r) and route_place(r) not in loose]


def copies_in_the_way(k, c, ws):
    """the links a planted route keeps a copy out of (IPv6: any route of T(X) with
    the copy's prefix and metric and a gateway too, or through the same device
    without; both families: one identical to it), and whether one would be
    deleted instead of a stale copy (protocol kernel, the same prefix and next hop)"""
    _, froutes = planted(k)
    blocked, stuck = set(), False
    for n, w in ws.items():
        for e in map(json.loads, expected_copies(k, c, w)):
            for f in froutes:
                if str(f.get("table", "main")) != str(w.table) or f["family"] != e["family"] or f.get("dst") != e["dst"]:
                    continue
                if norm(f) == norm(e):
                    blocked.add(n)
                elif (e["family"] == "-6" and f.get("metric") == e.get("metric") and f.get("type", "unicast") == "unicast"
                      and (("gateway" in f or "nexthops" in f) if ("gateway" in e or "nexthops" in e) else f.get("dev") == n)):
                    blocked.add(n)
    for r in copies_in(k, (foreign_rules, foreign_routes)):
        for f in froutes:
            if (str(f.get("table", "main")) == str(r.get("table")) and f["family"] == r["family"] and f.get("dst") == r.get("dst")
                    and f.get("protocol") == "kernel" and (set(hop_set(f)) & set(hop_set(r)))):
                stuck = True
    return blocked, stuck


def hop_set(r):
    return [(h.get("dev"), h.get("gateway")) for h in r.get("nexthops", [])] or [(r.get("dev"), r.get("gateway"))]


def copy_problems_applied(k, c, w, foreign):
    want = expected_copies(k, c, w)
    have = {norm(r) for r in copies_in(k, foreign) if str(r.get("table")) == str(w.table)}
    out = [f"T({w.name}) lacks the copy {o}" for o in sorted(want - have)]
    out += [f"T({w.name}) holds {o}, which is no copy of a route of main (now)" for o in sorted(have - want)]
    return out


def copy_problems_removed(k, w, foreign):
    return [f"copy {norm(r)} left after remove" for r in copies_in(k, foreign)
            if str(r.get("table")) in w.all_tables and through(r, w.name)]


def copy_exact_problems(k, c, ws, foreign):
    out = []
    for r in copies_in(k, foreign):
        w = next((w for w in ws.values() if str(w.table) == str(r.get("table")) and through(r, w.name)), None)
        if not w or norm(r) not in expected_copies(k, c, w):
            out.append(f"copy {norm(r)} is no longer wanted")
    return out


def main_view(k):
    """main as the test made it: every route but the kernel's own prefix routes
    (MainRoute=delete takes X's and gives them back)"""
    return sorted(canon(dict(r)) for r in k["routes"] if str(r.get("table", "main")) == "main"
                  and not (r.get("protocol") == "kernel" and "gateway" not in r and "nexthops" not in r
                           and canon(dict(r)) not in foreign_routes))


# -- issue 33's steps ------------------------------------------------------------
RAIL_V4 = {"ib0": "10.200.0.1", "ib1": "10.200.0.3", "ib2": "10.200.0.5"}
RAIL_V6 = {"ib0": "2001:db8:200::1", "ib1": "2001:db8:200::3", "ib2": "2001:db8:200::5"}


def rail_gateway(fam, d, hop=False):
    """a gateway through device d, and what the kernel needs to take it. IPv6:
    main keeps a route through a global gateway when the port's address goes
    (a link bounce), and the kernel then refuses its copy: ib-hook leaves it
    out (gateways_reached)"""
    if fam == "-6":
        return rng4.choice(["fe80::1", "fe80::2"] + ([] if hop else ["2001:db8:34::fe"])) if d.startswith("ib") else "fe80::9", []
    if not d.startswith("ib"):
        return "10.200.9.1", ["onlink"]  # the unmanaged peer has no address
    g = rng4.choice(["172.16.0.254", "172.16.0.1", "10.200.0.0", "10.200.0.2"])
    return g, ["onlink"] if g.startswith("10.") else []


def rail_attrs(fam):
    a = []
    if rng4.random() < 0.7:
        a += ["metric", str(rng4.choice([0, 5, 100, 101, 102, 103, 1024]))]
    opts = [["mtu", "1400"], ["mtu", "lock", "1300"], ["advmss", "1360"], ["initcwnd", "10"], ["congctl", "reno"],
            ["hoplimit", "9"], ["initrwnd", "20"]]
    opts += [["tos", "0x10"]] if fam == "-4" else [["pref", rng4.choice(["high", "low"])], ["expires", "3600"]]
    for o in rng4.sample(opts, rng4.choice([0, 0, 1, 2, 3])):
        a += o
    return a + ["proto", rng4.choice(["static", "dhcp", "ra", "boot"])]


def rail_main_route():
    """a route of main through the ports as a network manager makes it: a gateway
    route (default, aggregate, 0.0.0.0/1 + 128.0.0.0/1, IPv6 default via fe80::)
    with its attributes, or one multipath route through two managed ports and
    the unmanaged peer of a third"""
    fam = "-6" if rng4.random() < 0.35 else "-4"
    dsts = ["default", "2001:db8:100::/48", "2001:db8:101::/48"] if fam == "-6" else \
        ["default", "default", "0.0.0.0/1", "128.0.0.0/1", "10.100.0.0/16", "10.101.0.0/16"]
    dst = rng4.choice(dsts)
    verb = rng4.choice(["add", "add", "append", "replace"])
    attrs = rail_attrs(fam)
    if rng4.random() < 0.25:
        ports = rng4.sample(PORTS, 3)
        hops = []
        for d in [dev(ports[0]), dev(ports[1]), "p" + ports[2]]:
            g, extra = rail_gateway(fam, d, hop=True)
            hops += ["nexthop", "via", g, "dev", d] + (["weight", str(rng4.randrange(1, 4))] if rng4.random() < 0.5 else []) + extra
        args = ["route", verb, dst] + attrs + hops
    else:
        d = dev(rng4.choice(PORTS)) if rng4.random() < 0.85 else "p" + rng4.choice(PORTS)
        g, extra = rail_gateway(fam, d)
        args = ["route", verb, dst, "via", g, "dev", d] + extra + attrs
    add_foreign("route", ([fam] if fam == "-6" else []) + args)


def main_routes_made():
    return sorted(o for o in foreign_routes if o in made_by and json.loads(o).get("table", "main") == "main"
                  and json.loads(o).get("protocol") != "kernel")


def rail_main_delete():
    """a route of main goes (a DHCP lease ends, an RA's router leaves)"""
    known = main_routes_made()
    if known:
        delete_foreign(rng4.choice(known))


def rail_main_replace():
    """a route of main changes in place: `ip route replace` with another gateway or MTU"""
    known = main_routes_made()
    if not known:
        return
    args = list(made_by[rng4.choice(known)])
    args[next(i for i, a in enumerate(args) if a in ("add", "append", "replace"))] = "replace"
    if "mtu" in args:
        i = args.index("mtu")
        del args[i:i + (3 if args[i + 1] == "lock" else 2)]
    else:
        args += ["mtu", rng4.choice(["1280", "1500"])]
    add_foreign("route", args)


def delete_foreign(o):
    """delete one foreign object the test made, as it was made"""
    args = list(made_by[o])
    args[next(i for i, a in enumerate(args) if a in ("add", "append", "replace"))] = "del"
    # an IPv6 delete without a metric takes the lowest metric that matches, which
    # may be the kernel's own prefix route beside the planted one (seed 321878857)
    obj = json.loads(o)
    if "route" in args and obj.get("family") == "-6" and "metric" not in args and "metric" in obj:
        args += ["metric", str(obj["metric"])]
    before_rules, before_routes = canon_all(snapshot())
    ip(*args)
    after_rules, after_routes = canon_all(snapshot())
    gone = (before_rules - after_rules) | (before_routes - after_routes)
    foreign_rules.difference_update(gone)
    foreign_routes.difference_update(gone)
    # what a run left because this object was in the way is now due: only the
    # next run (or the watcher) does it
    disturb_all()
    log.append(f"foreign object deleted: ip {' '.join(args)}")


def rail_foreign_table_route():
    """a user's route in T(X) next to the copies: a copy's destination and metric
    with another protocol or without a gateway, another metric, a neighbouring prefix"""
    k = snapshot()
    c = PARSED[config]
    ws, _ = wants(k, c)
    if not ws:
        return
    w = ws[rng4.choice(sorted(ws))]
    copies = sorted(expected_copies(k, c, w))
    if copies and rng4.random() < 0.85:
        e = json.loads(rng4.choice(copies))
    else:
        e = {"family": rng4.choice(["-4", "-6"]), "dst": "default"}
        e["metric"] = 1024 if e["family"] == "-6" else 0
    fam = e["family"]
    metric = e.get("metric", 0)
    dst = e["dst"]
    kind = rng4.randrange(4)
    gw = e.get("gateway") or ("2001:db8:34::fe" if fam == "-6" else "172.16.0.254")
    if kind == 2:
        net = ipaddress.ip_network("::/0" if fam == "-6" and dst == "default" else "0.0.0.0/0" if dst == "default" else dst)
        near = [str(s) for s in net.subnets(1)][:1] if net.prefixlen < net.max_prefixlen else []
        near += [str(net.supernet())] if net.prefixlen > 0 else []
        dst = rng4.choice(near)
    if kind == 1 or (fam == "-6" and kind != 0):
        # IPv6 joins a gateway route of the same prefix and metric to the route
        # already there (ECMP): another metric, free in T(X)
        taken = {r.get("metric") for r in k["routes"] if str(r.get("table")) == str(w.table) and r.get("dst") == dst}
        metric = int(metric) + 1
        while metric in taken:
            metric += 1
    table = ["table", str(w.table), "metric", str(metric)]
    # never protocol kernel: that with a gateway is a copy's shape, and one made
    # exactly like a copy would be ib-hook's wanted route, not a foreign one
    proto = ["proto", rng4.choice(["static", "boot", "dhcp"])]
    if fam == "-6" and kind == 0:
        # the copy's prefix and metric: IPv6 takes it beside the copy only without a gateway
        args = ["-6", "route", "append", dst, "dev", w.name] + table + proto
    else:
        onlink = ["onlink"] if fam == "-4" and not gw.startswith("172.16.") else []
        args = ([fam] if fam == "-6" else []) + ["route", "append", dst, "via", gw, "dev", w.name] + onlink + table + proto
    add_foreign("route", args)


def rail_foreign_rule():
    """a user's rule that points at T(X)"""
    k = snapshot()
    ws, _ = wants(k, PARSED[config])
    if not ws:
        return
    w = ws[rng4.choice(sorted(ws))]
    fam = rng4.choice(["-4", "-6"])
    port = rng4.choice(PORTS)
    src = rng4.choice([(V4 if fam == "-4" else V6)[port], (RAIL_V4 if fam == "-4" else RAIL_V6)[port], "all"])
    sel = rng4.choice([[], ["iif", dev(port)], ["fwmark", "0x33"], ["to", "10.100.0.0/16" if fam == "-4" else "2001:db8:100::/48"]])
    args = ([fam] if fam == "-6" else []) + ["rule", "add", "from", src] + sel + ["lookup", str(w.table), "priority",
                                                                              str(rng4.choice([500, 1000, 1001, 30000]))]
    add_foreign("rule", args + ["protocol", rng4.choice(["static", "boot"])])


def rail_config():
    """GatewayRoutes= and [Gateways] switched (with the watcher: SIGHUP)"""
    set_config(rng4.choice(list(RAIL_CONFIGS) + ["default"]))


def rail_address():
    """a port's /31 (IPv6 /127) to its rail's router, added or deleted"""
    port = rng4.choice(PORTS)
    v6 = rng4.random() < 0.4
    a = f"{(RAIL_V6 if v6 else RAIL_V4)[port]}/{127 if v6 else 31}"
    verb = "add" if rng4.random() < 0.6 else "del"
    disturb(port)
    ip("addr", verb, a, "dev", dev(port), *(["nodad"] if v6 and verb == "add" else []))
    disturb(port)
    log.append(f"ip addr {verb} {a} dev {dev(port)}")


def step_rails():
    x = rng4.random()
    if x < 0.34:
        rail_main_route()
    elif x < 0.44:
        rail_main_delete()
    elif x < 0.50:
        rail_main_replace()
    elif x < 0.70:
        rail_foreign_table_route()
    elif x < 0.76:
        rail_foreign_rule()
    elif x < 0.86:
        rail_config()
    else:
        rail_address()


# what each port is expected to show: "applied", "removed", or None (not known:
# a step changed it and nothing ran since). Keyed by port, which renames keep.
expect = {}
stats = {"checks": 0, "excused": 0, "refusals": 0, "ns": 0, "heirs": 0}


def disturb(port):
    """a step changed port: without the watcher nothing is known until the next run;
    the watcher sees the event and applies, even after a --remove. A port that
    shares an address with it stood aside for it or took it: changed as well."""
    expect[port] = None
    if WATCH:
        return
    addrs = snapshot()["addrs"]
    mine = {a["local"] for a in addrs.get(dev(port), [])}
    for q in PORTS:
        if mine & {a["local"] for a in addrs.get(dev(q), [])}:
            expect[q] = None


def disturb_all():
    for p in PORTS:
        disturb(p)


def port_of(name):
    return next((p for p in PORTS if NAME[p] == name), None)


def state_problems(k):
    c = PARSED[config]
    ws, dups = wants(k, c)
    blocked, stuck = in_the_way(k, c)
    foreign = (foreign_rules, foreign_routes)
    out = []
    for p in PORTS:
        w = ws.get(dev(p))
        e = expect.get(p)
        if WATCH and e is None:
            e = "applied"  # the watcher keeps every managed link as apply leaves it
        if e not in ("applied", "removed") or not w:
            continue
        stats["checks"] += 1
        if w.name in blocked or stuck:
            stats["excused"] += 1
            continue
        out += (problems_applied if e == "applied" else problems_removed)(k, c, w, dups, foreign)
        out += copy_problems_applied(k, c, w, foreign) if e == "applied" else copy_problems_removed(k, w, foreign)
    return out


def check_state(what):
    """from the kernel: every link is as the last run left it (with the watcher: within CONVERGE_S)"""
    deadline = time.monotonic() + (CONVERGE_S if WATCH else 0)
    while True:
        k = snapshot()
        problems = state_problems(k)
        if not problems:
            return k
        if time.monotonic() >= deadline:
            if os.environ.get("IB_HOOK_DEBUG"):
                print(ip("-d", "rule").stdout, ip("-6", "-d", "rule").stdout, ip("-d", "route", "show", "table", "all").stdout,
                      ip("-6", "-d", "route", "show", "table", "all").stdout, ip("addr").stdout, sep="\n")
                if WATCH:
                    print(open(f"{tmp}/watch.log").read()[-3000:])
            fail(f"{what}: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        time.sleep(0.02)


# -- namespaces that come and go (issue 29, item 1) ----------------------------
SCRATCH_CONF = {1000: "[Match]\nName=ib0\n", 5000: "[Match]\nName=ib0\n[Routing]\nTableBase=5000\n"}
scratch = None  # (namespace, its inode, the table ib-hook used there, its TableBase)
records = set()  # the record files the test's namespaces may have left under /run/ib-hook
alive = set()  # the namespaces the test made besides NS, deleted on the way out


def ns_inode(name):
    try:
        st = os.stat(f"/run/netns/{name}")
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def note_records(name):
    """the name ib-hook gives the namespace's record (with the netns cookie, or
    the fallback's inode: lo must be up), as it says itself"""
    p = subprocess.run(["ip", "netns", "exec", name, IB_HOOK, "--config", "/dev/null", "--status", "--json"],
                       capture_output=True, text=True, env={**os.environ, **PASS_ENV})
    try:
        path = json.loads(p.stdout)["record"]
    except (ValueError, KeyError):
        return
    if os.path.dirname(path) == "/run/ib-hook":
        records.add(os.path.basename(path))


def in_scratch(name, *args, check=True):
    p = subprocess.run(["ip", "netns", "exec", name] + list(args), capture_output=True, text=True, timeout=60,
                       env=dict(os.environ))
    if check and p.returncode != 0:
        raise RuntimeError(f"{name}: {' '.join(args)}: {p.stderr.strip()}")
    return p


def scratch_objects(name, table):
    """what ib-hook installs for ib0 in table: the host's own objects look exactly like it"""
    return [["ip", "route", "add", "172.16.0.0/16", "dev", "ib0", "proto", "kernel", "scope", "link",
             "src", "172.16.34.1", "table", str(table)],
            ["ip", "-6", "route", "add", "2001:db8:34::/64", "dev", "ib0", "proto", "kernel", "metric", "1024",
             "table", str(table)],
            ["ip", "rule", "add", "from", "172.16.34.1", "lookup", str(table), "priority", "1000", "protocol", "kernel"],
            ["ip", "-6", "rule", "add", "from", "2001:db8:34::1", "lookup", str(table), "priority", "1000",
             "protocol", "kernel"]]


def scratch_state(name):
    out = in_scratch(name, "sh", "-c", "ip -d -j rule; echo @@; ip -6 -d -j rule; echo @@; "
                     "ip -d -j route show table all; echo @@; ip -6 -d -j route show table all").stdout.split("@@")
    return {canon(o) for part in out for o in json.loads(part.strip() or "[]")}


def step_netns():
    """a namespace where ib-hook ran goes away without --remove; a later one
    (one that got its inode, where the kernel gives it) must not inherit its record"""
    global scratch
    heir = False
    old_table = None
    if scratch:
        old, old_inode, old_table, _ = scratch
        subprocess.run(["ip", "netns", "del", old], capture_output=True)
        alive.discard(old)
        # the kernel frees a namespace's inode once it is gone, asynchronously:
        # make new ones until one gets it, a bounded number of times
        made = []
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and len(made) < 10:
            n = f"{NS}s{stats['ns']}"
            stats["ns"] += 1
            if subprocess.run(["ip", "netns", "add", n], capture_output=True).returncode != 0:
                break
            alive.add(n)
            made.append(n)
            if ns_inode(n) == old_inode:
                heir = True
                break
            time.sleep(0.05)
        if not made:
            fail("cannot create a namespace")
        name = made[-1]
        for n in made[:-1]:
            subprocess.run(["ip", "netns", "del", n], capture_output=True)
            alive.discard(n)
    else:
        name = f"{NS}s{stats['ns']}"
        stats["ns"] += 1
        subprocess.run(["ip", "netns", "add", name], capture_output=True, check=True)
        alive.add(name)
    in_scratch(name, "sh", "-ec", "ip link set lo up; ip link add ib0 type veth peer name pib0; "
               "ip link set ib0 up; ip link set pib0 up; ip addr add 172.16.34.1/16 dev ib0; "
               "ip -6 addr add 2001:db8:34::1/64 dev ib0 nodad")
    note_records(name)
    base = 5000 if scratch and scratch[3] == 1000 else 1000
    ifindex = json.loads(in_scratch(name, "ip", "-j", "link", "show", "ib0").stdout)[0]["ifindex"]
    planted = set()
    if old_table:
        before = scratch_state(name)
        in_scratch(name, "sh", "-ec", "; ".join(" ".join(cmd) for cmd in scratch_objects(name, old_table)))
        planted = scratch_state(name) - before
    with open(f"{tmp}/scratch.conf", "w") as f:
        f.write(SCRATCH_CONF[base])
    os.chmod(f"{tmp}/scratch.conf", 0o644)
    p = in_scratch(name, IB_HOOK, "--config", f"{tmp}/scratch.conf", "--all", check=False)
    log.append(f"namespace {name}{' (inode of the last one)' if heir else ''}: ib-hook --all [TableBase={base}]"
               f" -> {p.returncode}" + (f", the host's own objects in table {old_table}" if old_table else ""))
    if heir:
        stats["heirs"] += 1
    gone = planted - scratch_state(name)
    if gone:
        fail(f"namespace {name}{', which got the inode of one where ib-hook ran,' if heir else ''} "
             f"lost the host's own object {sorted(gone)[0]} to --all: {p.stderr.strip()}")
    if p.returncode != 0:
        fail(f"namespace {name}: ib-hook --all exited {p.returncode}: {p.stderr.strip()}")
    scratch = (name, ns_inode(name), base + ifindex, base)


# -- the test's own foreign objects go again -------------------------------------
def step_unblock():
    """delete one foreign object the test made, preferably one in ib-hook's way"""
    k = snapshot()
    blocked, _ = in_the_way(k, PARSED[config])
    known = sorted(o for o in foreign_rules | foreign_routes if o in made_by)
    if not known:
        return
    way = [o for o in known if json.loads(o).get("dev") in blocked or json.loads(o).get("iif") in blocked
           or str(json.loads(o).get("table")) in {str(w.table) for n, w in wants(k, PARSED[config])[0].items() if n in blocked}]
    delete_foreign(rng3.choice(way if way and rng3.random() < 0.8 else known))


# -- ib-hook runs --------------------------------------------------------------
def run_ib_hook(args, env_vars=None, scope=None, action="apply"):
    """one run for scope (a port, or None for --all); what it leaves is checked after the step"""
    global ran
    ran = True
    if env_vars is not None:
        # as a dispatcher: no arguments, only the variables, the config in place
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", **PASS_ENV, **env_vars}
        p = subprocess.run(["ip", "netns", "exec", NS, IB_HOOK, "--config", f"{tmp}/{config}.conf"] + args,
                           capture_output=True, text=True, env=env, timeout=60)
    else:
        p = sh(IB_HOOK, "--config", f"{tmp}/{config}.conf", *args, timeout=60)
    log.append(f"ib-hook {' '.join(args)} {env_vars or ''} [{config}] -> {p.returncode}")
    if p.returncode not in (0, 1):
        fail(f"ib-hook {args} exited {p.returncode}: {p.stderr.strip()}")
    if p.returncode == 1 and not any(w in p.stderr for w in ("refusing", "did not install", "in the way", "would delete")):
        if os.environ.get("IB_HOOK_DEBUG"):
            print(ip("addr").stdout, ip("-d", "rule").stdout, ip("link").stdout, sep="\n")
        fail(f"ib-hook {args} exited 1 without a refusal that names the object: {p.stderr.strip()}")
    k = snapshot()
    c = PARSED[config]
    ws, _ = wants(k, c)
    blocked, stuck = in_the_way(k, c)
    ports = PORTS if scope is None else [scope]
    if p.returncode == 1:
        if not stuck and not any(dev(q) in blocked for q in ports if dev(q) in ws):
            fail(f"ib-hook {args} refused, but nothing the test planted is in the way: {p.stderr.strip()}")
        stats["refusals"] += 1
    for q in ports:
        if dev(q) not in ws:
            expect[q] = None
        elif WATCH and action == "remove":
            expect[q] = "skip"  # the watcher may put it back, or the removal may hold
        elif WATCH:
            expect[q] = None
        else:
            expect[q] = None if p.returncode == 1 and (dev(q) in blocked or stuck) else \
                ("applied" if action == "apply" else "removed")
    return p


def step_apply_all():
    p = run_ib_hook(["--all"])
    if p.returncode == 0:
        k = check_state("--all exited 0")
        problems = exact_problems(k, PARSED[config], wants(k, PARSED[config])[1], (foreign_rules, foreign_routes))
        if problems:
            fail(f"--all exited 0 but {problems[0]}")
        d = sh(IB_HOOK, "--config", f"{tmp}/{config}.conf", "--dry-run", "--all")
        plans = [x for x in d.stdout.strip().splitlines() if not x.startswith("ip neigh flush ")]
        if plans:
            if os.environ.get("IB_HOOK_DEBUG"):
                print(ip("-d", "rule").stdout, ip("route", "show", "table", "all").stdout, p.stderr, sep="\n")
            fail(f"--all exited 0 but --dry-run --all still plans: {d.stdout.strip()}")


def step_remove_all():
    global ran
    ran = True
    if WATCH:
        return  # the watcher puts everything back at once: nothing to compare
    p = run_ib_hook(["--all", "--remove"], action="remove")
    if p.returncode != 0:
        return
    # nothing of ib-hook's is left: every rule and every non-main route is foreign or the kernel's
    # (foreign objects the kernel changed itself, a rule detached by a rename,
    # are no longer tracked, and never have ib-hook's shape)
    k = snapshot()
    have_rules, have_routes = canon_all(k)
    left = [r for r in have_rules - foreign_rules
            if json.loads(r).get("priority") not in (0, 32766, 32767) and ib_hook_shaped("rule", json.loads(r))]
    if left:
        fail(f"--all --remove left a rule: {left[0]}")
    mine = [r for r in have_routes - foreign_routes
            if json.loads(r).get("table", "main") not in ("main",) and ib_hook_shaped("route", json.loads(r))]
    if mine:
        fail(f"--all --remove left a route: {mine[0]}")
    copies = copies_in(k, (foreign_rules, foreign_routes))
    if copies:
        fail(f"--all --remove left a copy: {norm(copies[0])}")


def step_kill():
    global ran
    ran = True
    cmd = ["ip", "netns", "exec", NS, IB_HOOK, "--config", f"{tmp}/{config}.conf", "--all"]
    if rng.random() < 0.3:
        cmd.append("--remove")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                         env={**os.environ, **PASS_ENV})
    # a random point in the run to kill it at, not a wait for anything
    time.sleep(rng.random() * 0.012)
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
    log.append(f"ib-hook {' '.join(cmd[5:])} killed with SIGKILL")
    for q in PORTS:
        expect[q] = "skip" if WATCH and "--remove" in cmd else None


def rails_disturb(before, after):
    """a step of the test's own that changed what a port's table should copy
    (main, an address, the kernel's lookup): nothing is known until the next run"""
    c = PARSED[config]
    (kb, names), ka = before, after
    wb, _ = wants(kb, c)
    wa, _ = wants(ka, c)
    for p in PORTS:
        eb = expected_copies(kb, c, wb[names[p]]) if names[p] in wb else set()
        ea = expected_copies(ka, c, wa[dev(p)]) if dev(p) in wa else set()
        if eb != ea:
            disturb(p)


ran = False  # the step ran ib-hook (or signalled the watcher): main must be as the test left it


def set_config(name):
    global config, ran
    config = name
    ran = True
    log.append(f"config -> {config}")
    for q in PORTS:
        if not WATCH or expect.get(q) != "skip":
            expect[q] = None
    if WATCH:
        with open(f"{tmp}/watch.conf", "w") as f:
            f.write((CONFIGS.get(config) or RAIL_CONFIGS[config]))
        watcher.send_signal(signal.SIGHUP)


def step():
    if RAILS and rng4.random() < RAILS_P:
        step_rails()
        return
    if EXTRA:
        y = rng3.random()
        if y < 0.06:
            step_unblock()
            return
        if y < 0.06 + NETNS_P:
            step_netns()
            return
    if EXTENDED and rng2.random() < 0.1:
        step_extended()
        return
    x = rng.random()
    port = dev(rng.choice(PORTS))
    if x < 0.18:
        random_foreign_rule()
    elif x < 0.28:
        random_foreign_route()
    elif x < 0.45:
        step_apply_all()
    elif x < 0.52:
        step_remove_all()
    elif x < 0.60:
        remove = rng.random() < 0.3
        run_ib_hook(["--iface", port] + (["--remove"] if remove else []), scope=port_of(port),
                    action="remove" if remove else "apply")
    elif x < 0.68:
        state = rng.choice(["routable", "configured", "off", "no-carrier"])
        run_ib_hook([], {"IFACE": port, "STATE": state}, scope=port_of(port),
                    action="apply" if state in ("routable", "configured") else "remove")
    elif x < 0.72:
        phase = rng.choice([("start", "post-up"), ("stop", "post-down")])
        run_ib_hook([], {"IFACE": port, "MODE": phase[0], "PHASE": phase[1], "ADDRFAM": "inet", "METHOD": "static", "LOGICAL": port},
                    scope=port_of(port), action="apply" if phase[0] == "start" else "remove")
    elif x < 0.79:
        set_config(rng.choice(list(CONFIGS)))
    elif x < 0.86:
        a = rng.choice([f"172.16.34.{rng.randrange(10, 14)}/16", f"2001:db8:34::{rng.randrange(10, 14):x}/64", "10.72.0.1 peer 10.99.0.0/24"])
        verb = "add" if rng.random() < 0.6 else "del"
        disturb(port_of(port))
        ip("addr", verb, *a.split(), "dev", port, *(["nodad"] if ":" in a and verb == "add" else []))
        disturb(port_of(port))
        log.append(f"ip addr {verb} {a} dev {port}")
    elif x < 0.91:
        ip("link", "set", port, "down")
        disturb(port_of(port))
        forget_routes_of(port)
        ip("link", "set", port, "up")
        carrier(port_of(port))
        log.append(f"link bounce {port}")
    else:
        step_kill()


def watcher_ready(pid):
    """the watcher takes SIGHUP (blocked for its signalfd, or caught): a config change may be signalled"""
    try:
        with open(f"/proc/{pid}/status") as f:
            masks = [int(line.split()[1], 16) for line in f if line.startswith(("SigBlk:", "SigCgt:"))]
    except OSError:
        return False
    return any(m & (1 << (signal.SIGHUP - 1)) for m in masks)


def main():
    # a timeout's SIGTERM still removes the namespace (finally below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    if os.geteuid() != 0:
        print("SKIP: needs root to create network namespaces")
        sys.exit(77)
    if subprocess.run(["ip", "netns", "add", NS], capture_output=True).returncode != 0:
        print("SKIP: cannot create network namespaces here")
        sys.exit(77)
    try:
        fallback = " (netns cookie fallback forced)" if PASS_ENV else ""
        print(f"# seed {SEED}, {STEPS} steps{fallback}")
        ip("link", "set", "lo", "up", check=True)
        note_records(NS)
        for p in PORTS:
            ip("link", "add", p, "type", "veth", "peer", "name", "p" + p, check=True)
            ip("link", "set", p, "up", check=True)
            ip("link", "set", "p" + p, "up", check=True)
            ip("addr", "add", V4[p] + "/16", "dev", p, check=True)
            ip("-6", "addr", "add", V6[p] + "/64", "dev", p, "nodad", check=True)
        # ib-hook speaks for the ports before the first foreign object appears (see doc/how-it-works.md: Ownership)
        step_apply_all()
        if WATCH:
            global watcher
            with open(f"{tmp}/watch.conf", "w") as f:
                f.write(CONFIGS[config])
            os.chmod(f"{tmp}/watch.conf", 0o644)
            watcher = subprocess.Popen(["ip", "netns", "exec", NS, IB_HOOK, "--config", f"{tmp}/watch.conf", "--watch"],
                                       stdout=subprocess.DEVNULL, stderr=open(f"{tmp}/watch.log", "w"),
                                       env={**os.environ, **PASS_ENV})
            deadline = time.monotonic() + CONVERGE_S
            while not watcher_ready(watcher.pid):
                if watcher.poll() is not None or time.monotonic() > deadline:
                    fail(f"the watcher did not start: {open(f'{tmp}/watch.log').read()[-500:]}")
                time.sleep(0.01)
        global step_no, ran
        last = (snapshot(), dict(NAME))
        main_model = main_view(last[0])
        for i in range(STEPS):
            step_no = i + 1
            ran = False
            step()
            if not ran:
                rails_disturb(last, snapshot())
            k = check_state(f"step {i + 1}")
            check_foreign(f"step {i + 1}", k)
            # main is the test's: ib-hook never changes it (but for X's kernel prefix routes)
            if ran and main_view(k) != main_model:
                changed = sorted(set(main_view(k)) ^ set(main_model))
                fail(f"step {i + 1}: main changed by ib-hook: {changed[0]}" + (f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""))
            main_model = main_view(k)
            last = (k, dict(NAME))
            if WATCH and watcher.poll() is not None:
                fail(f"step {i + 1}: the watcher exited ({watcher.returncode}): {open(f'{tmp}/watch.log').read()[-500:]}")
        # with the fallback forced, item 1 is only tested where a namespace got a
        # deleted one's inode: a few more tries if the steps found none
        for _ in range(10 if PASS_ENV and EXTRA and not stats["heirs"] else 0):
            step_netns()
            if stats["heirs"]:
                break
        step_apply_all()
        check_foreign("final apply", snapshot())
        config_before = config
        step_remove_all()
        check_foreign("final remove", check_state("final remove"))
        print(f"ok - {STEPS} random steps, {len(foreign_rules)} foreign rules and {len(foreign_routes)} foreign routes untouched "
              f"(last config {config_before}); {stats['checks']} interface states checked from the kernel, "
              f"{stats['excused']} excused by a planted object in the way, {stats['refusals']} refusals, all expected; "
              f"{stats['ns']} namespaces made, {stats['heirs']} with the inode of one where ib-hook ran{fallback}")
    finally:
        for pid in subprocess.run(["ip", "netns", "pids", NS], capture_output=True, text=True).stdout.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        for n in alive:
            subprocess.run(["ip", "netns", "del", n], capture_output=True)
        # the records of the test's namespaces, gone with them (a later namespace must not find them)
        for r in records:
            for f in [r, f"{r}.watch"] + [x for x in os.listdir("/run/ib-hook") if x.startswith(f"{r}.") and
                                          (x.endswith(".tmp") or x.startswith(f"{r}.routes-"))] \
                    if os.path.isdir("/run/ib-hook") else []:
                try:
                    os.unlink(f"/run/ib-hook/{f}")
                except OSError:
                    pass
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
