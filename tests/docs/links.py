#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The README is a front door and doc/ its rooms (issue 30): every relative
link in README.md and doc/*.md names a file of the tree, and an anchor a
heading of that file; every page of doc/ is linked from the README; the
README stays under 300 lines with its quick start in the first 60; with the
built binary, every long option its --help names is in the README's
"Commands at a glance" synopsis (a mode added to the program and to
ib-hook(8) is not missing from the front door).

    links.py SOURCE_ROOT [IB_HOOK]

Prints TAP; exits 1 when a check fails.
"""
import os
import re
import subprocess
import sys

README_MAX_LINES = 300
QUICK_START_BY_LINE = 60

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose(text):
    """The lines outside fenced and indented code blocks, code spans removed"""
    fenced = False
    prev_blank = True
    indented = False
    for n, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        blank = not line.strip()
        if line.startswith(("    ", "\t")) and (prev_blank or indented) and not line.lstrip().startswith(("-", "|")):
            indented = True
            prev_blank = blank
            continue
        indented = indented and blank
        prev_blank = blank
        yield n, re.sub(r"`[^`]*`", "", line)


def links(text):
    """(line, target) of every link in the prose; a link's text may span lines"""
    kept = list(prose(text))
    joined = "\n".join(line for _, line in kept)
    for m in LINK.finditer(joined):
        yield kept[joined.count("\n", 0, m.start(1))][0], m.group(1)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, blanks to '-'"""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def headings_raw(path):
    """Heading text with code spans kept (backticks dropped), for anchors"""
    text = open(path, encoding="utf-8").read()
    fenced = False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            m = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
            if m:
                yield m.group(1)


def anchors_of(path):
    seen = {}
    out = set()
    for h in headings_raw(path):
        base = slug(h)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    readme = os.path.join(root, "README.md")
    docdir = os.path.join(root, "doc")
    pages = [readme] + sorted(
        os.path.join(docdir, f) for f in os.listdir(docdir) if f.endswith(".md")
    )
    results = []

    for page in pages:
        rel = os.path.relpath(page, root)
        bad = []
        count = 0
        for n, target in links(open(page, encoding="utf-8").read()):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            count += 1
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not dest.startswith(root + os.sep) or not os.path.exists(dest):
                bad.append(f"{rel}:{n}: {target}: no such file")
            elif anchor and (not dest.endswith(".md") or anchor not in anchors_of(dest)):
                bad.append(f"{rel}:{n}: {target}: no heading '#{anchor}' there")
        results.append((not bad and count > 0, f"{rel}: {count} relative links resolve", bad))

    readme_text = open(readme, encoding="utf-8").read()
    linked = {
        os.path.normpath(os.path.join(root, t.partition("#")[0])) for _, t in links(readme_text)
    }
    orphans = [os.path.relpath(p, root) for p in pages[1:] if p not in linked]
    results.append((not orphans, "every page of doc/ is linked from README.md",
                    [f"not linked: {o}" for o in orphans]))

    lines = readme_text.split("\n")
    n_lines = len(lines) - (1 if readme_text.endswith("\n") else 0)
    results.append((n_lines < README_MAX_LINES,
                    f"README.md under {README_MAX_LINES} lines ({n_lines})", []))
    qs = next((i for i, l in enumerate(lines, 1) if re.match(r"^#+\s*Quick start", l)), None)
    results.append((qs is not None and qs <= QUICK_START_BY_LINE,
                    f"README.md's quick start within its first {QUICK_START_BY_LINE} lines (line {qs})",
                    []))

    if len(sys.argv) > 2:
        help_text = subprocess.run([sys.argv[2], "--help"], stdout=subprocess.PIPE,
                                   universal_newlines=True, check=True).stdout
        # "  -v, --verbose ...": the option, by either of its names
        options = sorted(set(re.findall(r"^\s+(?:(-\w), )?(--[a-z][a-z-]*)", help_text, re.M)))
        m = re.search(r"^## Commands at a glance\n(.*?)^\S", readme_text, re.M | re.S)
        synopsis = "\n".join(l for l in (m.group(1) if m else "").split("\n")
                              if l.startswith("    ib-hook"))
        missing = [long for short, long in options
                   if not any(re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", synopsis)
                              for o in (short, long) if o)]
        results.append((bool(options) and bool(synopsis) and not missing,
                        f"README.md's commands at a glance name every option of --help ({len(options)})",
                        [f"not in its synopsis: {o}" for o in missing]))

    print(f"1..{len(results)}")
    failed = 0
    for i, (ok, what, why) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {what}")
        for w in why:
            print(f"# {w}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
