#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No circle and no upward arrow between ib-hook's source files (issue 23).

Every file of src/ has a floor in LAYERS, lowest first. A file may include,
and call, files of its own floor or lower only, and the arrows within a floor
form no circle. The includes are read from src/*.c and src/*.h; the calls,
when the static library is given, from its objects' symbols (nm).

    layers.py SRC_DIR [LIBIBHOOK.a]
"""
import os
import re
import subprocess
import sys

LAYERS = [
    ("values", ["ip", "array", "kernel-abi", "log", "lock", "json"]),
    ("messages", ["attr"]),
    ("kernel objects", ["rule", "route"]),
    ("data", ["model", "main-index"]),
    ("input", ["hookenv", "config", "record"]),
    ("the kernel", ["kernel", "netlink", "sysctl", "kernel-linux", "cm", "uevent"]),
    ("kinds", ["op", "select"]),
    ("planning", ["plan"]),
    ("output", ["report", "fleet"]),
    ("a run", ["observe", "snapshot", "apply", "check"]),
    ("the fleet view", ["arp", "inventory", "join", "probe"]),
    ("orchestration", ["engine"]),
    ("the watcher", ["watch"]),
    ("the program", ["main"]),
]
GENERATED = {"build-config"}


def module(path):
    return os.path.splitext(os.path.basename(path))[0]


def main():
    src = sys.argv[1]
    lib = sys.argv[2] if len(sys.argv) > 2 else None
    floor = {}
    for i, (_, names) in enumerate(LAYERS):
        for n in names:
            floor[n] = i
    files = sorted(f for f in os.listdir(src) if f.endswith((".c", ".h")))
    errors = []
    arrows = {}  # (from, to) -> how it was seen
    for f in files:
        m = module(f)
        if m not in floor:
            errors.append(f"{f}: no floor declared in {os.path.basename(__file__)}")
            continue
        with open(os.path.join(src, f), encoding="utf-8") as fh:
            for line in fh:
                inc = re.match(r'#include "([^"]+)\.h"', line)
                if inc and inc.group(1) not in GENERATED and inc.group(1) != m:
                    arrows.setdefault((m, inc.group(1)), f"{f} includes {inc.group(1)}.h")
    if lib:
        defined, undefined = {}, []
        out = subprocess.run(["nm", "-A", lib], check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            obj = module(parts[0].split(":")[-2]) if parts[0].count(":") >= 2 else None
            obj = module(obj) if obj else None  # engine.c.o -> engine
            if obj is None or len(parts) < 2:
                continue
            kind, sym = parts[-2], parts[-1]
            if kind == "U":
                undefined.append((obj, sym))
            elif kind in "TDBR":
                defined[sym] = obj
        for obj, sym in undefined:
            if sym in defined and defined[sym] != obj:
                arrows.setdefault((obj, defined[sym]), f"{obj}.c calls {sym}() of {defined[sym]}.c")
    for (a, b), how in sorted(arrows.items()):
        if a in floor and b in floor and floor[b] > floor[a]:
            errors.append(f"upward: {how} ({LAYERS[floor[a]][0]} -> {LAYERS[floor[b]][0]})")
    # circles, within a floor (across floors the check above forbids them)
    graph = {}
    for (a, b) in arrows:
        graph.setdefault(a, set()).add(b)

    def cycle_from(start):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == start:
                    return path + [start]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
        return None

    for m in sorted(graph):
        c = cycle_from(m)
        if c and c[0] == min(c[:-1]):
            errors.append("circle: " + " -> ".join(c))
    for i, (what, names) in enumerate(LAYERS):
        present = [n for n in names if any(module(f) == n for f in files)]
        if present:
            print(f"{i:2} {what}: {', '.join(present)}")
    kinds = "includes and calls" if lib else "includes"
    print(f"{len(arrows)} arrows ({kinds}) between {len(set(module(f) for f in files))} modules")
    for e in errors:
        print("FAIL:", e)
    print("ok: no circle, no upward arrow" if not errors else f"{len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
