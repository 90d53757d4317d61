#!/usr/bin/env python3
"""Check a luaprof json report against a program's `-- expect` lines.

usage: check.py PROGRAM.lua REPORT.json

  -- expect: LINE calls=N errors=E       the function defined on LINE
                                         (its figures over every context)
  -- expect-path: main>L1>L2 calls=N errors=E
                                         the call-tree node reached from
                                         the root through the main chunk
                                         and the functions defined on
                                         L1, L2 ...
  -- expect-open: N                      calls still open at the end

Only functions of PROGRAM are looked at; exits 1 with a line per wrong
figure.
"""
import json
import os
import re
import sys


def main():
    prog, report = sys.argv[1], sys.argv[2]
    with open(report) as f:
        data = json.load(f)
    base = os.path.basename(prog)
    mine = {fn["id"]: fn for fn in data["functions"]
            if os.path.basename(fn["source"]) == base and not fn["zone"]}
    by_line = {}
    for fn in mine.values():
        by_line.setdefault(0 if fn["name"] == "main chunk" else fn["line"], []).append(fn)
    nodes = {n["id"]: n for n in data["tree"]}
    kids = {}
    for n in data["tree"]:
        kids.setdefault(n["parent"], []).append(n)
    wrong = []

    def figures(want, calls, errors, what):
        for key, got in (("calls", calls), ("errors", errors)):
            if key in want and want[key] != got:
                wrong.append("%s: %s %d, expected %d" % (what, key, got, want[key]))

    def parse(rest):
        return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", rest)}

    with open(prog) as f:
        lines = f.read().splitlines()
    checked = 0
    for text in lines:
        m = re.match(r"--\s*expect:\s*(\d+)\s+(.*)", text)
        if m:
            checked += 1
            fns = by_line.get(int(m.group(1)), [])
            if len(fns) != 1:
                wrong.append("line %s: %d functions in the report" % (m.group(1), len(fns)))
                continue
            figures(parse(m.group(2)), fns[0]["calls"], fns[0]["errors"],
                    "function of line " + m.group(1))
            continue
        m = re.match(r"--\s*expect-path:\s*(\S+)\s+(.*)", text)
        if m:
            checked += 1
            node = nodes[0]                      # the root
            for step in m.group(1).split(">"):
                line = 0 if step == "main" else int(step)
                want = {fn["id"] for fn in by_line.get(line, [])}
                nxt = [k for k in kids.get(node["id"], []) if k["function"] in want]
                if len(nxt) != 1:
                    node = None
                    break
                node = nxt[0]
            if node is None:
                wrong.append("path %s: not in the call tree" % m.group(1))
            else:
                figures(parse(m.group(2)), node["calls"], node["errors"], "path " + m.group(1))
            continue
        m = re.match(r"--\s*expect-open:\s*(\d+)", text)
        if m:
            checked += 1
            got = data["summary"]["open_calls"]
            if got != int(m.group(1)):
                wrong.append("open calls %d, expected %s" % (got, m.group(1)))
    if checked == 0:
        wrong.append("no expect lines in " + prog)
    for w in wrong:
        print("  " + w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
