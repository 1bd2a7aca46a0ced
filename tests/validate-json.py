#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# validate-json.py SCHEMA [TITLE] < DOCUMENT: check a document against the
# subset of JSON Schema that doc/ib-hook.schema.json uses (type, const, enum,
# required, properties, additionalProperties, items, oneOf by title), so the
# tests need nothing beyond python3. Strict: an object whose schema names its
# properties and says nothing of others has no others (a misspelled key is
# an error), as if it said "additionalProperties": false. Exit 0 if valid, 1
# with the path of the first error otherwise.
import json
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def check(v, s, path):
    if s is False:
        raise ValueError(f"{path}: not allowed here")
    if s is True:
        return
    if "oneOf" in s:
        errs = []
        for sub in s["oneOf"]:
            try:
                check(v, sub, path)
                return
            except ValueError as e:
                errs.append(str(e))
        raise ValueError("; ".join(errs))
    if "const" in s and v != s["const"]:
        raise ValueError(f"{path}: {v!r} is not {s['const']!r}")
    if "enum" in s and v not in s["enum"]:
        raise ValueError(f"{path}: {v!r} not in {s['enum']}")
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(is_type(v, t) for t in ts):
            raise ValueError(f"{path}: {v!r} is not {s['type']}")
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                raise ValueError(f"{path}: missing {k}")
        for k, x in v.items():
            if k in s.get("properties", {}):
                check(x, s["properties"][k], f"{path}.{k}")
            elif "additionalProperties" in s:
                check(x, s["additionalProperties"], f"{path}.{k}")
            elif "properties" in s:
                raise ValueError(f"{path}: {k!r} is not a member the schema names")
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            check(x, s["items"], f"{path}[{i}]")


schema = json.load(open(sys.argv[1]))
if len(sys.argv) > 2:
    schema = next(s for s in schema["oneOf"] if s["title"] == sys.argv[2])
try:
    # strictly UTF-8, whatever the locale makes of stdin
    doc = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    check(doc, schema, "$")
except (ValueError, json.JSONDecodeError) as e:
    print(f"invalid: {e}", file=sys.stderr)
    sys.exit(1)
