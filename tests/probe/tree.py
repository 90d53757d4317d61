#!/usr/bin/env python3
"""tree.py -- the call tree of a luaprof json report, as lines to compare.

    tree.py REPORT.json

Prints one line per node of the call tree: a digest of its path of
functions from the root (each as source:line:name; a digest, as deep
recursion makes paths of 100,000 calls), its depth, its function and its
calls and errors, sorted, so that two reports of the same run compare with
diff.  Times are left out:
they differ from run to run; the tree's shape and its counts must not.
Exits 1 if the report is not a luaprof profile."""
import hashlib
import json
import sys


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        d = json.load(f)
    if d.get("format") != "luainstr-profile":
        print("tree.py: %s: not a luainstr profile" % sys.argv[1], file=sys.stderr)
        return 1
    fn = {f["id"]: "%s:%d:%s" % (f["source"], f["line"], f["name"]) for f in d["functions"]}
    key, depth, lines = {}, {}, []
    for n in d["tree"]:       # a node's parent comes before it
        if n["parent"] is None:
            key[n["id"]], depth[n["id"]] = b"", 0
            continue
        name = fn[n["function"]]
        key[n["id"]] = hashlib.blake2b(key[n["parent"]] + b"\0" + name.encode(),
                                       digest_size=12).digest()
        depth[n["id"]] = depth[n["parent"]] + 1
        lines.append("%s\t%d\t%s\tcalls %d errors %d" % (
            key[n["id"]].hex(), depth[n["id"]], name, n["calls"], n["errors"]))
    lines.sort()
    sys.stdout.write("".join(line + "\n" for line in lines))
    print("probe\t%s" % d["summary"].get("probe"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
