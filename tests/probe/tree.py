#!/usr/bin/env python3
"""tree.py -- the call tree of a luaprof json report, as lines to compare.

    tree.py REPORT.json
    tree.py --serve

Prints one line per node of the call tree: a digest of its path of
functions from the root (each as source:line:name; a digest, as deep
recursion makes paths of 100,000 calls), its depth, its function and its
calls and errors, sorted, so that two reports of the same run compare with
diff.  Times are left out:
they differ from run to run; the tree's shape and its counts must not.
Exits 1 if the report is not a luaprof profile.

With --serve (compare.sh: one python3 for every report, as its start
costs more than most runs compared), reads lines "REPORT<TAB>OUT" from
stdin and for each writes to OUT the tree lines (without the probe line;
nothing if the report is not a profile or not read, said on stderr) and
answers on stdout with one line: the probe's name, or "error"."""
import hashlib
import json
import sys


def tree(path):
    """REPORT's tree lines, sorted, and the probe it names; None if not a profile"""
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    if d.get("format") != "luainstr-profile":
        print("tree.py: %s: not a luainstr profile" % path, file=sys.stderr)
        return None
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
    return lines, d["summary"].get("probe")


def serve():
    for req in sys.stdin:
        report, out = req.rstrip("\n").split("\t")
        try:
            got = tree(report)
        except Exception as e:  # (a truncated report: as tree.py REPORT fails)
            print("tree.py: %s: %s: %s" % (report, type(e).__name__, e), file=sys.stderr)
            got = None
        with open(out, "w", encoding="utf-8") as f:
            if got is not None:
                f.write("".join(line + "\n" for line in got[0]))
        print("error" if got is None else got[1], flush=True)
    return 0


def main():
    if sys.argv[1:] == ["--serve"]:
        return serve()
    got = tree(sys.argv[1])
    if got is None:
        return 1
    sys.stdout.write("".join(line + "\n" for line in got[0]))
    print("probe\t%s" % got[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
