#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No circle and no upward arrow between ib-hook's source files (issues 23, 37).

src/ holds one folder per subsystem, lowest first: base/, kernel/, host/,
fleet/, cni/ (the CNI plugin, on the host engine), and main.c on top. Within a folder the files stand on finer floors.
Every file of src/ has a floor in LAYERS, which also names its folder: a file
in another folder than LAYERS says is an error. A file may include, and call,
files of its own floor or lower only (so of its own folder or a lower one),
and the arrows within a floor form no circle. The includes are read from every
.c and .h under src/; the calls, when the static libraries are given, from
their objects' symbols (nm), and from the sources where a function is called
through a pointer that a struct holds: a file that calls `->member(` calls
every function some file stores there (`->member = fn`, `.member = fn,`), so
that a lower file cannot call up (or round) through a pointer a higher one
set. Each folder's meson.build may give its library the include directories
and dependencies of its own folder and the folders below only.

    layers.py SRC_DIR [LIBRARY.a...]
"""
import os
import re
import subprocess
import sys

FOLDERS = ["base", "kernel", "host", "fleet", "cni", ""]  # "": src/ itself, the program
LAYERS = [
    ("base", "values", ["ip", "array", "log", "lock", "json"]),
    ("kernel", "messages", ["kernel-abi", "attr"]),
    ("kernel", "kernel objects", ["rule", "route", "route-index", "link", "main-index", "gid"]),
    ("kernel", "the seam", ["kernel", "netlink", "sysctl", "kernel-linux", "cm", "uevent"]),
    ("host", "input", ["model", "hookenv", "config", "record"]),
    ("host", "kinds", ["op", "select"]),
    ("host", "planning", ["plan"]),
    ("host", "output", ["report"]),
    ("host", "a run", ["observe", "snapshot", "apply", "check", "jobenv"]),
    ("host", "orchestration", ["engine"]),
    ("host", "the watcher", ["watch"]),
    ("fleet", "route classes", ["classes"]),
    ("fleet", "the ports", ["fleet"]),
    ("fleet", "who probes what", ["sample"]),
    ("fleet", "the answers", ["facts"]),
    ("fleet", "the join", ["judge"]),
    ("fleet", "the matrix", ["matrix"]),
    ("fleet", "renderers", ["render-text", "render-json", "render-html"]),
    ("fleet", "rendering", ["render"]),
    ("fleet", "the fleet view", ["arp", "inventory", "join", "probe"]),
    ("cni", "the plugin's input", ["netconf"]),
    ("cni", "a pod's attachment", ["pod"]),
    ("cni", "the CNI protocol", ["cni"]),
    ("", "the program", ["main"]),
]
GENERATED = {"build-config"}


def module(path):
    return os.path.splitext(os.path.basename(path))[0]


def where(folder, what):
    return f"{folder or 'src'}: {what}"


def code_only(text):
    """C text without its comments and string and character literals"""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', " ", text,
                  flags=re.S)


def pointer_calls(src, files, functions):
    """arrows (caller, callee) -> how, for the calls through a struct member
    that holds a function pointer; functions: module -> the functions its
    object defines (static ones too)"""
    owner = {}  # a function's module: its own, or the one global definition
    for m, names in functions.items():
        for n in names:
            owner.setdefault(n, set()).add(m)
    stored, calls = {}, []  # member -> {(module, fn)}; (module, path, member)
    for path, _, m in files:
        if not path.endswith(".c"):
            continue
        with open(os.path.join(src, path), encoding="utf-8") as fh:
            text = code_only(fh.read())
        for member, fn in re.findall(r"(?:->|\.)\s*(\w+)\s*=\s*&?\s*(\w+)\s*[;,}]", text):
            mods = {m} if m in owner.get(fn, ()) else owner.get(fn, set())
            if len(mods) == 1:
                stored.setdefault(member, set()).add((next(iter(mods)), fn))
        for member in set(re.findall(r"(?:->|\.)\s*(\w+)\s*\(", text)):
            calls.append((m, path, member))
    arrows = {}
    for m, path, member in calls:
        for callee, fn in sorted(stored.get(member, ())):
            if callee != m:
                arrows.setdefault((m, callee), f"{path} calls {fn}() of {callee}.c through ->{member}")
    return arrows


def main():
    src = sys.argv[1]
    libs = sys.argv[2:]
    errors = []
    order = [FOLDERS.index(folder) for folder, _, _ in LAYERS]
    if order != sorted(order):
        errors.append("LAYERS: the folders' floors are not in the order of FOLDERS")
    floor, home = {}, {}
    for i, (folder, _, names) in enumerate(LAYERS):
        for n in names:
            floor[n], home[n] = i, folder
    files = []  # (path relative to src, folder, module)
    for dirpath, _, names in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        for f in sorted(names):
            if f.endswith((".c", ".h")):
                files.append((os.path.normpath(os.path.join(rel, f)), "" if rel == "." else rel, module(f)))
    files.sort()
    seen = {}
    for path, folder, m in files:
        if m in seen and seen[m] != folder:
            errors.append(f"{path}: {m} also in {seen[m] or 'src'}/: a module name is one file")
        seen[m] = folder
    arrows = {}  # (from, to) -> how it was seen
    for path, folder, m in files:
        if m not in floor:
            errors.append(f"{path}: no floor declared in {os.path.basename(__file__)}")
            continue
        if folder != home[m]:
            errors.append(f"{path}: in {folder or 'src'}/, but its floor is in {home[m] or 'src'}/")
        with open(os.path.join(src, path), encoding="utf-8") as fh:
            for line in fh:
                inc = re.match(r'#include "([^"]+)\.h"', line)
                if inc and inc.group(1) not in GENERATED and inc.group(1) != m:
                    arrows.setdefault((m, inc.group(1)), f"{path} includes {inc.group(1)}.h")
    if libs:
        defined, undefined, functions = {}, [], {}
        out = subprocess.run(["nm", "-A"] + libs, check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if not parts:
                continue
            obj = module(parts[0].split(":")[-2]) if parts[0].count(":") >= 2 else None
            obj = module(obj) if obj else None  # engine.c.o -> engine
            if obj is None or len(parts) < 2:
                continue
            kind, sym = parts[-2], parts[-1]
            if kind == "U":
                undefined.append((obj, sym))
            elif kind in "TDBR":
                defined[sym] = obj
            if kind in "Tt":
                functions.setdefault(obj, set()).add(sym)
        for obj, sym in undefined:
            if sym in defined and defined[sym] != obj:
                arrows.setdefault((obj, defined[sym]), f"{obj}.c calls {sym}() of {defined[sym]}.c")
        for arrow, how in pointer_calls(src, files, functions).items():
            arrows.setdefault(arrow, how)
    for (a, b), how in sorted(arrows.items()):
        if a in floor and b in floor and floor[b] > floor[a]:
            up = "a folder up, " if home[a] != home[b] else ""
            errors.append(f"upward: {how} ({up}{where(home[a], LAYERS[floor[a]][1])} -> "
                          f"{where(home[b], LAYERS[floor[b]][1])})")
    # each folder's library sees the include directories of its folder and those below
    for folder in FOLDERS:
        build = os.path.join(src, folder, "meson.build")
        if not folder or not os.path.exists(build):
            continue
        with open(build, encoding="utf-8") as fh:
            for name, kind in re.findall(r"\b([a-z]+)_(inc|dep)\b", fh.read()):
                if name in FOLDERS and FOLDERS.index(name) > FOLDERS.index(folder):
                    errors.append(f"upward: src/{folder}/meson.build uses {name}_{kind} (src/{name}/ is above)")
    # circles, within a floor (across floors the check above forbids them)
    graph = {}
    for (a, b) in arrows:
        graph.setdefault(a, set()).add(b)

    def cycle_from(start):
        stack, visited = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == start:
                    return path + [start]
                if nxt not in visited:
                    visited.add(nxt)
                    stack.append((nxt, path + [nxt]))
        return None

    for m in sorted(graph):
        c = cycle_from(m)
        if c and c[0] == min(c[:-1]):
            errors.append("circle: " + " -> ".join(c))
    for i, (folder, what, names) in enumerate(LAYERS):
        present = [n for n in names if n in seen]
        if present:
            print(f"{i:2} {where(folder, what)}: {', '.join(present)}")
    kinds = "includes and calls" if libs else "includes"
    print(f"{len(arrows)} arrows ({kinds}) between {len(seen)} modules in {len(FOLDERS)} folders")
    for e in errors:
        print("FAIL:", e)
    print("ok: no circle, no upward arrow" if not errors else f"{len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
