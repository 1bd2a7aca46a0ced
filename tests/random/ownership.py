#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Randomized differential test of ownership (issue 11).

In a network namespace of its own: random foreign rules and routes (every
selector iproute2 makes, both families, priorities and tables that collide
with ib-hook's on purpose) and random sequences of ib-hook operations (apply,
remove, --all, dispatcher environments, configuration changes, address
changes, link bounces, runs killed with SIGKILL). After every step:

- every foreign object the test made is byte-identical (ip -d -j), unless the
  kernel itself removed it (a route through a link that went down);
- a run exits 0, or 1 with a refusal that names what is in the way;
- after an --all apply that exited 0, --dry-run --all prints nothing (ib-hook's
  objects are what its plan says), and after an --all --remove that exited 0
  no rule or route of ib-hook's is left.

Issue 20 added IPv6 routes with `pref`/`expires`, main-table prefix routes
with an MTU or another metric, renames (ibN <-> ibrN, with Name=ib* configs)
and re-created links; IB_HOOK_CLASSIC=1 leaves them out, so that seeds found
before them replay as they did.

Seeded and replayable:  IB_HOOK_SEED=N IB_HOOK_STEPS=M tests/random/ownership.py
Exit 77 when network namespaces cannot be made here.
"""
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
# a port's current device name: renames toggle ibN and ibrN
NAME = {p: p for p in PORTS}


def dev(port):
    return NAME[port]
tmp = tempfile.mkdtemp(prefix="ib-hook-random.")
log = []


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
    print(f"# seed {SEED}; replay: IB_HOOK_SEED={SEED} IB_HOOK_STEPS={len(log)} {sys.argv[0]}")
    for line in log[-25:]:
        print(f"#   {line}")
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
for name, text in CONFIGS.items():
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


IB_HOOK_PREFIXES = {"172.16.0.0/16", "2001:db8:34::/64", "10.99.0.0/24"}


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


def add_foreign(kind, args):
    """make one foreign object; track exactly what the kernel shows of it"""
    before = set(rules() if kind == "rule" else routes())
    p = ip(*args)
    if p.returncode != 0:
        return
    after = set(rules() if kind == "rule" else routes())
    # with the watcher running, ib-hook may add its own objects meanwhile: never
    # count those as foreign (the test's foreign objects never have ib-hook's shape)
    new = {o for o in after - before if not ib_hook_shaped(kind, json.loads(o))}
    tracked = foreign_rules if kind == "rule" else foreign_routes
    # `ip route replace` may replace a foreign route of the test's own: no longer there to keep
    tracked -= before - after
    tracked.update(new)
    log.append(f"foreign {kind}: ip {' '.join(args)}")


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


def step_rename():
    """issue 20 case 3: ibN <-> ibrN, down, rename, up (Name=ib* still matches)"""
    port = rng2.choice(PORTS)
    new = port if NAME[port] != port else "ibr" + port[2:]
    ip("link", "set", dev(port), "down")
    forget_routes_of(dev(port))
    forget_rules_of(dev(port))
    forget_rules_of(new)
    ip("link", "set", dev(port), "name", new, check=True)
    log.append(f"rename {NAME[port]} -> {new}")
    NAME[port] = new
    ip("link", "set", new, "up")
    readdress(port)


def step_recreate():
    """issue 20 case 4: a driver reload: the link goes, comes back with its addresses"""
    port = rng2.choice(PORTS)
    forget_routes_of(dev(port))
    forget_routes_of("p" + port)
    forget_rules_of(dev(port))
    forget_rules_of("p" + port)
    ip("link", "del", dev(port))
    ip("link", "add", dev(port), "type", "veth", "peer", "name", "p" + port, check=True)
    ip("link", "set", "p" + port, "up")
    ip("link", "set", dev(port), "up")
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


def check_foreign(what):
    have_rules, have_routes = set(rules()), set(routes())
    gone = foreign_rules - have_rules
    if gone:
        fail(f"{what}: foreign rule changed or deleted: {sorted(gone)[0]}")
    gone = foreign_routes - have_routes
    if gone:
        fail(f"{what}: foreign route changed or deleted: {sorted(gone)[0]}")


def forget_routes_of(port):
    """the kernel drops a down link's routes: they are no longer the test's to compare"""
    for r in list(foreign_routes):
        if json.loads(r).get("dev") == port:
            foreign_routes.discard(r)


# -- ib-hook runs --------------------------------------------------------------
def run_ib_hook(args, env_vars=None):
    if env_vars is not None:
        # as a dispatcher: no arguments, only the variables, the config in place
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", **env_vars}
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
    return p


def settle():
    """with the watcher running, let it finish the pass the last step caused"""
    if WATCH:
        time.sleep(0.05)


def step_apply_all():
    p = run_ib_hook(["--all"])
    if p.returncode == 0:
        settle()
        d = sh(IB_HOOK, "--config", f"{tmp}/{config}.conf", "--dry-run", "--all")
        if d.stdout.strip():
            if os.environ.get("IB_HOOK_DEBUG"):
                print(ip("-d", "rule").stdout, ip("route", "show", "table", "all").stdout, p.stderr, sep="\n")
            fail(f"--all exited 0 but --dry-run --all still plans: {d.stdout.strip()}")


def step_remove_all():
    if WATCH:
        return  # the watcher puts everything back at once: nothing to compare
    p = run_ib_hook(["--all", "--remove"])
    if p.returncode != 0:
        return
    # nothing of ib-hook's is left: every rule and every non-main route is foreign or the kernel's
    # (foreign objects the kernel changed itself, a rule detached by a rename,
    # are no longer tracked, and never have ib-hook's shape)
    left = [r for r in set(rules()) - foreign_rules
            if json.loads(r).get("priority") not in (0, 32766, 32767) and ib_hook_shaped("rule", json.loads(r))]
    if left:
        fail(f"--all --remove left a rule: {left[0]}")
    mine = [r for r in set(routes()) - foreign_routes
            if json.loads(r).get("table", "main") not in ("main",) and ib_hook_shaped("route", json.loads(r))]
    if mine:
        fail(f"--all --remove left a route: {mine[0]}")


def step_kill():
    cmd = ["ip", "netns", "exec", NS, IB_HOOK, "--config", f"{tmp}/{config}.conf", "--all"]
    if rng.random() < 0.3:
        cmd.append("--remove")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(rng.random() * 0.012)
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
    log.append(f"ib-hook {' '.join(cmd[5:])} killed with SIGKILL")


def step():
    global config
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
        run_ib_hook(["--iface", port] + (["--remove"] if rng.random() < 0.3 else []))
    elif x < 0.68:
        state = rng.choice(["routable", "configured", "off", "no-carrier"])
        run_ib_hook([], {"IFACE": port, "STATE": state})
    elif x < 0.72:
        phase = rng.choice([("start", "post-up"), ("stop", "post-down")])
        run_ib_hook([], {"IFACE": port, "MODE": phase[0], "PHASE": phase[1], "ADDRFAM": "inet", "METHOD": "static", "LOGICAL": port})
    elif x < 0.79:
        config = rng.choice(list(CONFIGS))
        log.append(f"config -> {config}")
        if WATCH:
            with open(f"{tmp}/watch.conf", "w") as f:
                f.write(CONFIGS[config])
            watcher.send_signal(signal.SIGHUP)
    elif x < 0.86:
        a = rng.choice([f"172.16.34.{rng.randrange(10, 14)}/16", f"2001:db8:34::{rng.randrange(10, 14):x}/64", "10.72.0.1 peer 10.99.0.0/24"])
        verb = "add" if rng.random() < 0.6 else "del"
        ip("addr", verb, *a.split(), "dev", port, *(["nodad"] if ":" in a and verb == "add" else []))
        log.append(f"ip addr {verb} {a} dev {port}")
    elif x < 0.91:
        ip("link", "set", port, "down")
        forget_routes_of(port)
        ip("link", "set", port, "up")
        log.append(f"link bounce {port}")
    else:
        step_kill()


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
        print(f"# seed {SEED}, {STEPS} steps")
        ip("link", "set", "lo", "up", check=True)
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
                                       stdout=subprocess.DEVNULL, stderr=open(f"{tmp}/watch.log", "w"))
            time.sleep(0.3)
        for i in range(STEPS):
            step()
            settle()
            check_foreign(f"step {i + 1}")
            if WATCH and watcher.poll() is not None:
                fail(f"step {i + 1}: the watcher exited ({watcher.returncode}): {open(f'{tmp}/watch.log').read()[-500:]}")
        step_apply_all()
        check_foreign("final apply")
        config_before = config
        step_remove_all()
        check_foreign("final remove")
        print(f"ok - {STEPS} random steps, {len(foreign_rules)} foreign rules and {len(foreign_routes)} foreign routes untouched (last config {config_before})")
    finally:
        subprocess.run(["ip", "netns", "pids", NS], capture_output=True)
        for pid in subprocess.run(["ip", "netns", "pids", NS], capture_output=True, text=True).stdout.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
