#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Restore latency (issue 13): from the kernel's notification of an event to
the notification that completes the repair (rule and table route of the
interface back in place), both read on one rtnetlink socket in the network
namespace of a booted container, timestamped with CLOCK_MONOTONIC as they
arrive. The state is tracked from the notifications themselves (seeded from
`ip` before each round), so a check never delays a timestamp.

  restore.py --pid PID --label NAME --table T [--iface ib1] [--addr 172.16.34.2]
             [--rounds 20] [--events bounce,addr,flush] [--timeout 10]
             [--repair 'CMD'] [--prefix 172.16.0.0/16]

Events:
  bounce  `ip link set IFACE down`, --down s (1), `ip link set IFACE up`; from the
          RTM_NEWLINK that says IFF_UP to rule and T's route both present
  addr    `ip addr add 172.16.35.N/16 dev IFACE`; from its RTM_NEWADDR to the
          rule from that address into T
  flush   `ip route flush table T`; from the RTM_DELROUTE to T's route back

A repair counts once it is still complete SETTLE s later (a late `off` hook
that undoes it does not count). A round with no repair within TIMEOUT s is
"never"; after two such rounds the event is given up. --repair (a command
run in the host's namespaces, e.g. nsenter ... ib-hook --iface ib1) puts the
state back after a round that was never repaired.
Prints one line per event: label, event, median, p99, min, max, rounds.

The times are when this process read each notification: under load a late
read can put both in one read, so a round can show close to 0 ms (the
listener runs with real-time priority in bench/restore.sh to make that rare).
"""
import argparse
import collections
import ctypes
import ipaddress
import os
import select
import socket
import statistics
import struct
import subprocess
import sys
import time

RTM_NEWLINK, RTM_NEWADDR, RTM_DELADDR = 16, 20, 21
RTM_NEWROUTE, RTM_DELROUTE, RTM_NEWRULE, RTM_DELRULE = 24, 25, 32, 33
IFF_UP = 1
SETTLE = 1.5

p = argparse.ArgumentParser()
p.add_argument("--pid", type=int, required=True)
p.add_argument("--label", required=True)
p.add_argument("--table", type=int, required=True)
p.add_argument("--iface", default="ib1")
p.add_argument("--addr", default="172.16.34.2")
p.add_argument("--prefix", default="172.16.0.0/16")
p.add_argument("--rounds", type=int, default=20)
p.add_argument("--events", default="bounce,addr,flush")
p.add_argument("--timeout", type=float, default=10)
p.add_argument("--gap", type=float, default=2.5)
p.add_argument("--down", type=float, default=1, help="seconds the link stays down in a bounce")
p.add_argument("--repair", default="")
A = p.parse_args()


def setns(path):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_RDONLY)
    if libc.setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
        sys.exit(f"setns {path}: {os.strerror(ctypes.get_errno())}")
    os.close(fd)


host_ns = os.open("/proc/self/ns/net", os.O_RDONLY)
setns(f"/proc/{A.pid}/ns/net")


def ip(*a, check=True):
    return subprocess.run(["ip"] + list(a), check=check, capture_output=True, text=True).stdout


def normal_priority():
    try:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except OSError:
        pass


def trigger(*a):
    """the event's `ip` command, started and not waited for: its notification
    is read (and stamped) while it runs, not after it has exited"""
    return subprocess.Popen(["ip"] + list(a), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=normal_priority)


IFINDEX = int(ip("-o", "link", "show", A.iface).split(":")[0])
sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
sock.bind((0, 0x1 | 0x10 | 0x40))  # link, IPv4 addresses, IPv4 routes
sock.setsockopt(270, 1, 8)  # NETLINK_ADD_MEMBERSHIP RTNLGRP_IPV4_RULE
sock.setblocking(False)

rules = set()   # (source address, table)
routes = set()  # (prefix, oif) in table T


def attrs(data, off, end):
    out = {}
    while off + 4 <= end:
        ln, typ = struct.unpack_from("HH", data, off)
        if ln < 4:
            break
        out[typ & 0x3FFF] = data[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def ip4(b):
    return str(ipaddress.IPv4Address(b))


def parse(data, t):
    """the operations of interest in one datagram, in order, as (t, kind, value)"""
    ops = []
    off = 0
    while off + 16 <= len(data):
        ln, typ = struct.unpack_from("IH", data, off)
        if ln < 16:
            break
        body, end = off + 16, off + ln
        if typ == RTM_NEWLINK:
            _, _, _, idx, flags = struct.unpack_from("BBHiI", data, body)
            if idx == IFINDEX:
                ops.append((t, "link", bool(flags & IFF_UP)))
        elif typ in (RTM_NEWADDR, RTM_DELADDR):
            fam, plen, _, _, idx = struct.unpack_from("BBBBI", data, body)
            a = attrs(data, body + 8, end)
            if fam == socket.AF_INET and idx == IFINDEX and 2 in a:
                ops.append((t, "newaddr" if typ == RTM_NEWADDR else "deladdr", ip4(a[2])))
        elif typ in (RTM_NEWROUTE, RTM_DELROUTE):
            fam, dlen, _, _, tbl = struct.unpack_from("BBBBB", data, body)
            a = attrs(data, body + 12, end)
            if 15 in a:
                tbl = struct.unpack("I", a[15][:4])[0]
            if fam == socket.AF_INET and tbl == A.table:
                key = (f"{ip4(a[1]) if 1 in a else '0.0.0.0'}/{dlen}",
                       struct.unpack("i", a[4][:4])[0] if 4 in a else 0)
                ops.append((t, "newroute" if typ == RTM_NEWROUTE else "delroute", key))
        elif typ in (RTM_NEWRULE, RTM_DELRULE):
            fam, _, slen, _, tbl = struct.unpack_from("BBBBB", data, body)
            a = attrs(data, body + 12, end)
            if 15 in a:
                tbl = struct.unpack("I", a[15][:4])[0]
            if fam == socket.AF_INET and 2 in a and slen == 32:
                ops.append((t, "newrule" if typ == RTM_NEWRULE else "delrule", (ip4(a[2]), tbl)))
        off += (ln + 3) & ~3
    return ops


queue = collections.deque()


def next_op(timeout):
    """the next operation (applied to rules/routes), or None after timeout s"""
    if not queue:
        r, _, _ = select.select([sock], [], [], max(timeout, 0))
        if r:
            while True:
                try:
                    data = sock.recv(1 << 16)
                except BlockingIOError:
                    break
                queue.extend(parse(data, time.monotonic()))
    if not queue:
        return None
    op = queue.popleft()
    _, kind, v = op
    if kind == "newroute":
        routes.add(v)
    elif kind == "delroute":
        routes.discard(v)
    elif kind == "newrule":
        rules.add(v)
    elif kind == "delrule":
        rules.discard(v)
    return op


def pump(timeout):
    """apply what arrives within timeout s"""
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if next_op(max(left, 0)) is None and left <= 0:
            return


def seed():
    pump(0)
    queue.clear()
    rules.clear()
    routes.clear()
    for line in ip("-4", "rule", "show").splitlines():
        f = line.split()
        if "from" in f and "lookup" in f and f[f.index("from") + 1] != "all":
            t = f[f.index("lookup") + 1]
            if t.isdigit():
                rules.add((f[f.index("from") + 1], int(t)))
    for line in ip("-4", "route", "show", "table", str(A.table)).splitlines():
        f = line.split()
        if "dev" in f:
            dst = f[0] if "/" in f[0] else f[0] + "/32"
            routes.add((dst, int(ip("-o", "link", "show", f[f.index("dev") + 1]).split(":")[0])))


def complete(src):
    return (src, A.table) in rules and (A.prefix, IFINDEX) in routes


def wait_repair(t0, src):
    """arrival time of the notification that completed the repair (still complete SETTLE s later)"""
    t1 = t0 if complete(src) else None
    deadline = t0 + A.timeout
    while True:
        now = time.monotonic()
        if t1 is not None and now >= t1 + SETTLE:
            return t1
        if t1 is None and now >= deadline:
            return None
        op = next_op(0.05)
        if op is None:
            continue
        if complete(src):
            if t1 is None:
                t1 = op[0]
        else:
            t1 = None


def wait_event(pred, timeout=5):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        op = next_op(0.05)
        if op is not None and pred(op):
            return op[0]
    return None


def repair():
    if not A.repair:
        return
    setns(f"/proc/self/fd/{host_ns}")
    r = subprocess.run(A.repair, shell=True, capture_output=True, text=True)
    if r.returncode:
        print(f"# repair: exit {r.returncode}: {r.stderr.strip()}", flush=True)
    setns(f"/proc/{A.pid}/ns/net")


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round((len(v) - 1) * q)))]


def run(event):
    lat, never = [], 0
    for r in range(A.rounds):
        if not complete(A.addr):
            repair()
            time.sleep(1)
        seed()
        if not complete(A.addr):
            print(f"# {A.label} {event}: state not complete before round {r} (rules {sorted(rules)},"
                  f" routes in T {sorted(routes)}); stopped", flush=True)
            break
        src = A.addr
        if event == "bounce":
            ip("link", "set", A.iface, "down")
            time.sleep(A.down)
            # IPv4 routes through a link that goes down go without a notification
            seed()
            cmd = trigger("link", "set", A.iface, "up")
            t0 = wait_event(lambda e: e[1] == "link" and e[2])
        elif event == "addr":
            src = f"172.16.35.{r % 250 + 1}"
            cmd = trigger("addr", "add", src + "/16", "dev", A.iface)
            t0 = wait_event(lambda e: e[1] == "newaddr" and e[2] == src)
        else:
            cmd = trigger("route", "flush", "table", str(A.table))
            t0 = wait_event(lambda e: e[1] == "delroute")
        t1 = wait_repair(t0, src) if t0 else None
        cmd.wait()
        if t1 is None:
            never += 1
        else:
            lat.append((t1 - t0) * 1000)
        if event == "addr":
            ip("addr", "del", src + "/16", "dev", A.iface, check=False)
        pump(A.gap)
        if never >= 2 and not lat:
            break
    if lat:
        print(f"{A.label:<28} {event:<7} median {statistics.median(lat):9.2f} ms  p99 {pct(lat, 0.99):9.2f} ms"
              f"  min {min(lat):8.2f}  max {max(lat):8.2f}  ({len(lat)} rounds"
              + (f", {never} never" if never else "") + ")", flush=True)
    else:
        print(f"{A.label:<28} {event:<7} never    (not restored within {A.timeout:g} s in {never} of {never} rounds)",
              flush=True)


seed()
if not complete(A.addr):
    repair()
    time.sleep(1)
for ev in A.events.split(","):
    run(ev)
