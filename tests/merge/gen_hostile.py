#!/usr/bin/env python3
"""gen_hostile.py BASE_JSON OUTDIR N: reports and snapshots made to make the
readers' hash tables and scans quadratic, each with a control of the same
size that is not (tests/merge/hostile.sh)."""
import copy, json, os, sys

base, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rep = json.load(open(base))
f0 = next(f for f in rep["functions"] if f["line"] > 0)
node0 = next(x for x in rep["tree"] if x["function"] == f0["id"])


def functions(lines, path):
    r = copy.deepcopy(rep)
    r["functions"] = [f for f in r["functions"] if f["line"] == 0]
    r["tree"] = [x for x in r["tree"] if x["function"] is None or x["function"] in
                 {f["id"] for f in r["functions"]}]
    nid = max(x["id"] for x in r["tree"]) + 1
    fid = max(f["id"] for f in r["functions"]) + 1
    for k, line in enumerate(lines):
        f = dict(f0, id=fid + k, line=line, lastline=line, calls=1, errors=0, total_ns=0,
                 self_ns=0, min_ns=0, max_ns=0, total_err_ns=0, self_err_ns=0,
                 min_err_ns=0, max_err_ns=0)
        r["functions"].append(f)
        r["tree"].append(dict(node0, id=nid + k, parent=0, function=fid + k, calls=1,
                              errors=0, total_ns=0, self_ns=0, total_err_ns=0,
                              self_err_ns=0))
    # (the removed nodes' time goes to their parents' self: LUAINSTR_CHECK)
    kids = {}
    for x in r["tree"]:
        if x["parent"] is not None:
            kids[x["parent"]] = kids.get(x["parent"], 0) + x["total_ns"]
    for x in r["tree"]:
        if x["id"] != 0:
            x["self_ns"] = x["total_ns"] - kids.get(x["id"], 0)
            x["self_err_ns"] = x["total_err_ns"]
    for f in r["functions"]:
        if f["line"] == 0:
            own = [x for x in r["tree"] if x["function"] == f["id"]]
            f["self_ns"] = sum(x["self_ns"] for x in own)
            f["self_err_ns"] = sum(x["self_err_ns"] for x in own)
    json.dump(r, open(path, "w"))


def warnings(lines, path):
    r = copy.deepcopy(rep)
    r["warnings"] = lines
    json.dump(r, open(path, "w"))


# functions whose lines differ in their high bits only (one slot for mix())
functions([(k + 1) << 16 for k in range(n)], os.path.join(out, "funcs_crafted.json"))
functions([k + 1 for k in range(n)], os.path.join(out, "funcs_control.json"))
# distinct warnings (each scanned against all before), against one repeated
warnings(["warning %d: crafted" % k for k in range(n)], os.path.join(out, "warn_crafted.json"))
warnings(["warning: the same one"] * n, os.path.join(out, "warn_control.json"))

# heap snapshots whose ids fall in one slot of an unkeyed murmur finalizer
M64 = (1 << 64) - 1
C = 0xff51afd7ed558ccd
CINV = pow(C, -1, 1 << 64)


def unmix(y):                     # inverse of x ^= x>>33; x *= C; x ^= x>>33
    y ^= y >> 33
    y = (y * CINV) & M64
    y ^= y >> 33
    return y


def snapshot(ids, path):
    nodes, edges, strings = [9, 0, 1, 0, len(ids), 0, 0], [], ["(GC roots)", "table", "k"]
    for k, i in enumerate(ids):
        nodes += [3, 1, i, 16, 0, 0, 0]
        edges += [2, 2, (k + 1) * 7]
    snap = {"snapshot": {"meta": {
        "node_fields": ["type", "name", "id", "self_size", "edge_count", "trace_node_id",
                        "detachedness"],
        "node_types": [["hidden", "array", "string", "object", "code", "closure", "regexp",
                        "number", "native", "synthetic", "concatenated string",
                        "sliced string", "symbol", "bigint", "object shape"],
                       "string", "number", "number", "number", "number", "number"],
        "edge_fields": ["type", "name_or_index", "to_node"],
        "edge_types": [["context", "element", "property", "internal", "hidden", "shortcut",
                        "weak"], "string_or_number", "node"],
        "trace_function_info_fields": ["function_id", "name", "script_name", "script_id",
                                       "line", "column"],
        "trace_node_fields": ["id", "function_info_index", "count", "size", "children"],
        "sample_fields": ["timestamp_us", "last_assigned_id"],
        "location_fields": ["object_index", "script_id", "line", "column"]},
        "node_count": len(ids) + 1, "edge_count": len(ids), "trace_function_count": 0,
        "lua": {"version": "5.4", "exact": True, "collected": False,
                "gc_count_bytes": 16 * len(ids), "taken_ns": 0}},
        "nodes": nodes, "edges": edges, "trace_function_infos": [], "trace_tree": [],
        "samples": [], "locations": [], "strings": strings}
    json.dump(snap, open(path, "w"))


crafted = [unmix((k + 1) << 24) for k in range(n)]
check = [(x ^ (x >> 33)) for x in crafted]
snapshot(crafted, os.path.join(out, "ids_crafted.heapsnapshot"))
snapshot([(k + 1) * 2 for k in range(n)], os.path.join(out, "ids_control.heapsnapshot"))
