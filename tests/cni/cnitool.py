#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs a CNI plugin list as libcni does (containernetworking/cni libcni/api.go).

    cnitool.py add|check|del|gc|status CONFLIST CONTAINERID NETNS IFNAME [CACHEDIR]

For each plugin of the list, in order (DEL in reverse), it executes
CNI_PATH/<type> with CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME,
CNI_ARGS and CNI_PATH set, and on stdin the plugin's configuration with the
list's "name" and "cniVersion" injected, and "prevResult": on ADD the result
of the plugin before it, on CHECK and DEL the cached result of the whole
ADD (libcni's result cache). ADD caches the last plugin's result in CACHEDIR.
A plugin that fails stops the list: its stdout (the error object) is printed
and the exit code is 1. On success ADD prints the result, CHECK and DEL
nothing. CNI_PATH defaults to /usr/lib/cni.
"""
import json
import os
import subprocess
import sys


def run(plugin, command, conf, env):
    path = None
    for d in env["CNI_PATH"].split(":"):
        if os.path.isfile(os.path.join(d, plugin)):
            path = os.path.join(d, plugin)
            break
    if path is None:
        sys.stdout.write(json.dumps({"code": 99, "msg": f"no plugin {plugin} in CNI_PATH"}) + "\n")
        sys.exit(1)
    e = dict(os.environ)
    e.update(env)
    e["CNI_COMMAND"] = command
    p = subprocess.run([path], input=json.dumps(conf).encode(), env=e,
                       stdout=subprocess.PIPE)
    if p.returncode != 0:
        sys.stdout.write(p.stdout.decode())
        sys.stderr.write(f"cnitool: {plugin} {command} failed (exit {p.returncode})\n")
        sys.exit(1)
    return p.stdout.decode()


def main():
    command, conflist, container, netns, ifname = sys.argv[1:6]
    cache = sys.argv[6] if len(sys.argv) > 6 else "/var/lib/cni/results"
    with open(conflist) as f:
        nl = json.load(f)
    env = {
        "CNI_CONTAINERID": container,
        "CNI_NETNS": netns,
        "CNI_IFNAME": ifname,
        "CNI_ARGS": "IgnoreUnknown=1",
        "CNI_PATH": os.environ.get("CNI_PATH", "/usr/lib/cni"),
    }
    cached = os.path.join(cache, f"{nl['name']}-{container}-{ifname}")

    def one(plugin, prev):
        conf = dict(plugin)
        conf["name"] = nl["name"]
        conf["cniVersion"] = nl["cniVersion"]
        if prev is not None:
            conf["prevResult"] = prev
        return conf

    if command == "add":
        prev = None
        for plugin in nl["plugins"]:
            out = run(plugin["type"], "ADD", one(plugin, prev), env)
            prev = json.loads(out)
        os.makedirs(cache, exist_ok=True)
        with open(cached, "w") as f:
            json.dump(prev, f)
        print(json.dumps(prev))
    elif command in ("check", "del"):
        prev = None
        if os.path.exists(cached):
            with open(cached) as f:
                prev = json.load(f)
        plugins = nl["plugins"] if command == "check" else list(reversed(nl["plugins"]))
        for plugin in plugins:
            run(plugin["type"], command.upper(), one(plugin, prev), env)
        if command == "del" and os.path.exists(cached):
            os.unlink(cached)
    else:
        for plugin in nl["plugins"]:
            run(plugin["type"], command.upper(), one(plugin, None), env)


if __name__ == "__main__":
    main()
