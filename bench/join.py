#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What --join costs as the fleet grows (issue 38, item 6): CPU seconds of
`ib-hook --join --fleet` for H hosts x P ports in one subnet, with the
inventory alone (no answers: every pair unknown, a cause per source port)
and with every host's answers, a file each (every pair ok). The documents are made here,
as --inventory and --check --fleet --json write them; nothing touches the
network.

    bench/join.py [--sizes 32x8,64x8,128x8] [--repeat 3] [IB_HOOK...]

Each binary given (default build/src/ib-hook) gets a row per size and
case: the median of --repeat runs' user+system CPU time (getrusage of the
child) (one line of documents per host).

    bench/join.py --scale [--cases 128x8v1,1024x8v2,4096x8v2] [IB_HOOK...]

At cluster scale (issue 39): synthetic healthy answers of bench/join_docs.py
(v1: a record per pair, in one file; v2: routes by class, each address's
ARP probed once), and per binary and case the join's CPU seconds, wall
seconds and peak RSS (wait4 of the child), the page's size (--html) and its
CPU seconds. A binary that cannot read version 2 (main before issue 39)
is measured on version 1 only.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile


def port(h, p):
    return {"interface": f"ib{p}", "up": True,
            "hwaddr": f"02:00:00:{h >> 8:02x}:{h & 255:02x}:{p:02x}",
            "addresses": [f"10.{h >> 8}.{h & 255}.{p + 1}/8"],
            "routed": True, "arp_ignore": 2, "arp_filter": 0, "rp_filter": 0,
            "accept_local": 0, "local_delivery": False, "rdma": None}


def documents(hosts, ports, d):
    inv = os.path.join(d, "inventory.json")
    answers = []
    inventory = [{"version": 1, "host": f"n{h}", "ports": [port(h, p) for p in range(ports)]}
                 for h in range(1, hosts + 1)]
    with open(inv, "w") as f:
        for doc in inventory:
            f.write(json.dumps(doc, separators=(",", ":")) + "\n")
    for a in inventory:
        answers.append(os.path.join(d, f"answers-{a['host']}.json"))
        with open(answers[-1], "w") as f:
            probes = []
            for pa in a["ports"]:
                for b in inventory:
                    if b is a:
                        continue
                    for pb in b["ports"]:
                        probes.append({
                            "interface": pa["interface"], "address": pa["addresses"][0].split("/")[0],
                            "peer_host": b["host"], "peer_interface": pb["interface"],
                            "peer": pb["addresses"][0].split("/")[0],
                            "route_dev": pa["interface"], "route_table": 1000, "route_via": None,
                            "arp": [pb["hwaddr"]]})
            f.write(json.dumps({"version": 1, "host": a["host"], "probes": probes},
                               separators=(",", ":")) + "\n")
    return inv, answers


def run(binary, inv, answers):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.devnull, "w") as out:
        rc = subprocess.call([binary, "--join", "--fleet", inv] + (answers or []),
                             stdin=subprocess.DEVNULL, stdout=out)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return rc, cpu


def measure(argv, out=os.devnull):
    """(exit, CPU s, wall s, peak RSS MiB) of one run: GNU time's, whose own
    fork is small (a child forked from this Python starts with its RSS)"""
    with tempfile.NamedTemporaryFile("r") as t, open(out, "w") as o:
        rc = subprocess.call(["/usr/bin/time", "-q", "-o", t.name, "-f", "%e %U %S %M"] + argv,
                             stdin=subprocess.DEVNULL, stdout=o, stderr=subprocess.DEVNULL)
        wall, user, system, rss = t.read().split()[-4:]
    return rc, float(user) + float(system), float(wall), int(rss) / 1024


def scale(cases, binaries, keep):
    top = os.path.dirname(os.path.abspath(__file__))
    print(f"{'binary':<32} {'case':<10} {'input MB':>8} {'CPU s':>7} {'wall s':>7} {'RSS MB':>7}"
          f" {'exit':>4} {'page MB':>8} {'page s':>7}")
    for case in cases.split(","):
        size, version = case.split("v")
        hosts, ports = (int(x) for x in size.split("x"))
        with tempfile.TemporaryDirectory(dir=keep) as d:
            subprocess.check_call([sys.executable, os.path.join(top, "join_docs.py"), "--hosts",
                                   str(hosts), "--ports", str(ports), "--version", version,
                                   "--out", d])
            inv, ans = os.path.join(d, "inventory.json"), os.path.join(d, "answers.json")
            mb = (os.path.getsize(inv) + os.path.getsize(ans)) / 1e6
            for b in binaries:
                rc, cpu, wall, rss = measure([b, "--join", "--fleet", inv, ans])
                if rc == 2:
                    print(f"{b[-32:]:<32} {case:<10} {mb:8.1f}  cannot read it (exit 2)", flush=True)
                    continue
                page = os.path.join(d, "page.html")
                prc, pcpu, _, _ = measure([b, "--join", "--fleet", inv, "--html", ans], page)
                print(f"{b[-32:]:<32} {case:<10} {mb:8.1f} {cpu:7.2f} {wall:7.2f} {rss:7.1f} {rc:>4}"
                      f" {os.path.getsize(page) / 1e6:8.2f} {pcpu:7.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", action="store_true")
    ap.add_argument("--cases", default="128x8v1,1024x8v2,4096x8v2")
    ap.add_argument("--tmp", default=None, help="where the documents are written (default: $TMPDIR)")
    ap.add_argument("--sizes", default="32x8,64x8,128x8")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("binaries", nargs="*")
    a = ap.parse_args()
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binaries = a.binaries or [os.path.join(top, "build/src/ib-hook")]
    if a.scale:
        return scale(a.cases, binaries, a.tmp)
    print(f"{'binary':<40} {'fleet':>7} {'case':<16} {'CPU s':>8} {'exit':>4}")
    for size in a.sizes.split(","):
        hosts, ports = (int(x) for x in size.split("x"))
        with tempfile.TemporaryDirectory() as d:
            inv, ans = documents(hosts, ports, d)
            for case, answers in (("inventory alone", None), ("all answers", ans)):
                for b in binaries:
                    runs = [run(b, inv, answers) for _ in range(a.repeat)]
                    cpu = statistics.median(r[1] for r in runs)
                    print(f"{b[-40:]:<40} {size:>7} {case:<16} {cpu:8.3f} {runs[0][0]:>4}",
                          flush=True)


if __name__ == "__main__":
    sys.exit(main())
