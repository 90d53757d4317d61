#!/usr/bin/env python3
"""check_snapshot.py -- is a .heapsnapshot file what docs/heap.md says?

    check_snapshot.py FILE... [KEY=VALUE ...]

Checks, whatever the heap: the file is UTF-8 and strict JSON (no NaN or
Infinity); its keys are the contract's, in its order; snapshot.meta is
the fixed meta; nodes and edges hold 7 and 3 integers an entry, node_count
and edge_count say how many, the nodes' edge counts add up to edge_count;
every node type, edge type and string index is in range, every to_node
is a node's first field, every element or hidden edge's index in 0 ..
2^32-1; trace_node_id and detachedness are 0; node 0 is the synthetic
"(GC roots)", its edges element 0 to 3 to nodes 1 to 4: (registry),
(main thread), (type metatables), (threads); every node is reachable from
node 0; ids are unique, synthetic ones odd and below 2^20, no other one
so; names start as the contract's table says for their node type (the
registry's node is synthetic, named "(registry)"); a string's name
is at most 80 bytes shown (4 characters a byte at most, "..." after a cut);
snapshot.lua has its fields with their types; with exact sizes, the self
sizes add up to no more than gc_count_bytes.

KEY=VALUE, what the heap should show (tests/heap/hostile/heaphelp.lua):
  lua=V            snapshot.lua.version is V ("5.1" .. "5.4", "jit")
  collected=0|1    snapshot.lua.collected
  gc_bytes=B       the Lua heap's size right before the call (nothing
                   collected asked for): snapshot.lua.gc_count_bytes is at
                   most B + 1 KB.  Calling p.snapshot, a C function, may
                   give the thread stack room first, and Lua may take a
                   collector step there, as at any C call (so less is fine)
  gc_after=B       the Lua heap's size right after the call: from the
                   snapshot's start it grew by 0 to 1 KB (the walk's own
                   call record and stack room) and never shrank (the
                   collector was paused: nothing collected, no finalizer)
  nodes_min=N      at least N nodes
  weak_min=N       at least N weak edges
  threads_min=N    at least N threads (object nodes named thread...)
  udata_min=N      at least N full userdata (native, "userdata...")
  cdata_min=N      at least N LuaJIT cdata (hidden, "cdata ...")
  bigstring=N      a string node of at least N bytes
  string_name_max=N  no string node's name longer than N characters
  file_max=N       the file is at most N bytes
A line a FILE: "ok FILE: ..." with the figures, or "BAD FILE: " and what
is wrong.  Exit status 0 when every FILE is valid, 1 otherwise, 2 on a
usage error.
"""
import json
import os
import sys
from collections import Counter, deque

NODE_TYPES = ["hidden", "array", "string", "object", "code", "closure",
              "regexp", "number", "native", "synthetic",
              "concatenated string", "sliced string", "symbol", "bigint",
              "object shape"]
EDGE_TYPES = ["context", "element", "property", "internal", "hidden",
              "shortcut", "weak"]
META = {
    "node_fields": ["type", "name", "id", "self_size", "edge_count",
                    "trace_node_id", "detachedness"],
    "node_types": [NODE_TYPES, "string", "number", "number", "number",
                   "number", "number"],
    "edge_fields": ["type", "name_or_index", "to_node"],
    "edge_types": [EDGE_TYPES, "string_or_number", "node"],
    "trace_function_info_fields": ["function_id", "name", "script_name",
                                   "script_id", "line", "column"],
    "trace_node_fields": ["id", "function_info_index", "count", "size",
                          "children"],
    "sample_fields": ["timestamp_us", "last_assigned_id"],
    "location_fields": ["object_index", "script_id", "line", "column"],
}
TOP_KEYS = ["snapshot", "nodes", "edges", "trace_function_infos",
            "trace_tree", "samples", "locations", "strings"]
SNAPSHOT_KEYS = ["meta", "node_count", "edge_count", "trace_function_count",
                 "lua"]
ROOTS = ["(registry)", "(main thread)", "(type metatables)", "(threads)"]
# node type -> the starts a name may have (docs/heap.md, "Nodes")
NAME_STARTS = {
    "object": ("table", "thread"),
    "closure": ("function", "C function"),
    "native": ("userdata", "light userdata 0x"),
    "code": ("prototype",),
    "hidden": ("cdata",),
    "synthetic": ("(",),
}
T_SYNTH, T_NATIVE = NODE_TYPES.index("synthetic"), NODE_TYPES.index("native")
T_STRING = NODE_TYPES.index("string")
E_ELEMENT, E_HIDDEN = EDGE_TYPES.index("element"), EDGE_TYPES.index("hidden")
E_WEAK = EDGE_TYPES.index("weak")


class Bad(Exception):
    pass


def need(cond, fmt, *args):
    if not cond:
        raise Bad(fmt % args if args else fmt)


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def strict_constant(name):
    raise Bad("not JSON: %s" % name)


def ordered_keys(pairs):
    d = dict(pairs)
    need(len(d) == len(pairs), "duplicate key in an object: %s",
         [k for k, _ in pairs])
    d["\0order"] = [k for k, _ in pairs]
    return d


def keys_of(obj):
    return obj.get("\0order", [])


def strip_order(x):
    if isinstance(x, dict):
        return {k: strip_order(v) for k, v in x.items() if k != "\0order"}
    if isinstance(x, list):
        return [strip_order(v) for v in x]
    return x


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        raise Bad("not UTF-8 at byte %d: %r" % (e.start, raw[max(0, e.start - 20):e.start + 20]))
    try:
        return json.loads(text, parse_constant=strict_constant,
                          object_pairs_hook=ordered_keys), len(raw)
    except json.JSONDecodeError as e:
        raise Bad("not JSON: %s (near %r)" % (e, text[max(0, e.pos - 40):e.pos + 40]))


def check_structure(doc):
    need(isinstance(doc, dict), "the top is not an object")
    need(keys_of(doc) == TOP_KEYS, "top keys %s, not %s", keys_of(doc), TOP_KEYS)
    snap = doc["snapshot"]
    need(keys_of(snap) == SNAPSHOT_KEYS, "snapshot keys %s, not %s",
         keys_of(snap), SNAPSHOT_KEYS)
    need(strip_order(snap["meta"]) == META, "meta differs from docs/heap.md: %s",
         json.dumps(strip_order(snap["meta"]))[:400])
    for k in ("trace_function_infos", "trace_tree", "samples", "locations"):
        need(doc[k] == [], "%s is not []", k)
    need(snap["trace_function_count"] == 0, "trace_function_count is not 0")
    nodes, edges, strings = doc["nodes"], doc["edges"], doc["strings"]
    nc, ec = snap["node_count"], snap["edge_count"]
    need(is_int(nc) and is_int(ec), "node_count/edge_count not integers")
    need(len(nodes) == 7 * nc, "%d numbers in nodes for node_count %d", len(nodes), nc)
    need(len(edges) == 3 * ec, "%d numbers in edges for edge_count %d", len(edges), ec)
    need(nc >= 5, "%d nodes: not even the roots", nc)
    need(all(isinstance(s, str) for s in strings), "a string that is not a string")
    need(set(map(type, nodes)) <= {int} and min(nodes) >= 0,
         "a node field not a non-negative integer")
    need(set(map(type, edges)) <= {int}, "an edge field not an integer")
    return snap, nodes, edges, strings, nc, ec


def check_nodes(nodes, strings, nc):
    """The nodes' fields (whole columns at once: a million nodes are common)."""
    ns = len(strings)
    types, names, ids = nodes[0::7], nodes[1::7], nodes[2::7]
    need(max(types) < len(NODE_TYPES), "a node type out of range: %d", max(types))
    need(max(names) < ns, "a node name out of range: %d of %d strings", max(names), ns)
    need(not any(nodes[5::7]) and not any(nodes[6::7]),
         "a node's trace_node_id or detachedness is not 0")
    if len(set(ids)) != nc:
        seen = set()
        for i, nid in enumerate(ids):
            need(nid not in seen, "node %d: id %d twice", i, nid)
            seen.add(nid)
    # names by node type: the distinct (type, name) pairs are few
    for t, name in set(zip(types, names)):
        tname, nm = NODE_TYPES[t], strings[name]
        starts = NAME_STARTS.get(tname)
        if starts is not None:
            need(nm.startswith(starts), "a %s named %r", tname, nm[:80])
        elif tname != "string":
            raise Bad("node type %s, which no Lua object maps to (%r)" % (tname, nm[:60]))
        if tname == "string":
            need(len(nm) <= 80 * 4 + 3, "a string's name of %d characters", len(nm))
    light = {i for i, nm in enumerate(strings) if nm.startswith("light userdata")}
    odd = [i for i, nid in enumerate(ids) if nid & 1 and nid < 2 ** 20]
    special = [i for i, t in enumerate(types)
               if t == T_SYNTH or (t == T_NATIVE and names[i] in light)]
    if odd != special:
        i = min(set(odd) ^ set(special))
        raise Bad("node %d (%s %r): id %d %s" % (
            i, NODE_TYPES[types[i]], strings[names[i]][:60], ids[i],
            "looks synthetic" if i in set(odd) else "not odd below 2^20"))
    return sum(nodes[4::7])


def check_edges(nodes, edges, strings, nc, ec):
    ns, nn = len(strings), 7 * nc
    counts = nodes[4::7]
    adj = [0] * (nc + 1)
    first = 0
    for i in range(nc):
        adj[i] = first
        first += counts[i]
    adj[nc] = first
    types, names, tos = edges[0::3], edges[1::3], edges[2::3]
    if ec:
        need(min(types) >= 0 and max(types) < len(EDGE_TYPES), "an edge type out of range")
        need(min(tos) >= 0 and max(tos) < nn, "a to_node out of range (%d nodes)", nc)
        need(all(t % 7 == 0 for t in tos), "a to_node not a node's first field")
        named = [n for t, n in zip(types, names) if t != E_ELEMENT and t != E_HIDDEN]
        if named:
            need(min(named) >= 0 and max(named) < ns, "an edge name out of range (%d strings)", ns)
        indices = [n for t, n in zip(types, names) if t == E_ELEMENT or t == E_HIDDEN]
        if indices:
            need(min(indices) >= 0 and max(indices) < 2 ** 32,
                 "an element or hidden edge's index out of 0 to 2^32-1: %d",
                 min(indices) if min(indices) < 0 else max(indices))
    return adj


def reachable(nodes, edges, adj, nc):
    seen = bytearray(nc)
    seen[0] = 1
    tos = edges[2::3]
    q = deque([0])
    while q:
        i = q.popleft()
        for k in range(adj[i], adj[i + 1]):
            j = tos[k] // 7
            if not seen[j]:
                seen[j] = 1
                q.append(j)
    return seen


def check_roots(nodes, edges, strings, adj):
    """Node 0 and its four roots, nodes 1 to 4 by element edges 0 to 3."""
    need(nodes[0] == T_SYNTH and strings[nodes[1]] == "(GC roots)",
         "node 0 is not the synthetic (GC roots): %r", strings[nodes[1]][:40])
    a, b = adj[0], adj[1]
    need(b - a == len(ROOTS), "(GC roots) has %d edges, not %d", b - a, len(ROOTS))
    for k, root in enumerate(ROOTS):
        t, idx, to = edges[3 * (a + k):3 * (a + k) + 3]
        need(t == E_ELEMENT and idx == k and to == 7 * (k + 1),
             "(GC roots)' edge %d is not element %d to node %d", k, k, k + 1)
        need(strings[nodes[to + 1]] == root, "node %d is %r, not %s", k + 1,
             strings[nodes[to + 1]][:40], root)


def check_lua(lua, args):
    need(isinstance(lua, dict), "snapshot.lua is not an object")
    need(isinstance(lua.get("version"), str), "snapshot.lua.version is not a string")
    need(isinstance(lua.get("exact"), bool), "snapshot.lua.exact is not a boolean")
    need(isinstance(lua.get("collected"), bool), "snapshot.lua.collected is not a boolean")
    need(is_int(lua.get("gc_count_bytes")) and lua["gc_count_bytes"] > 0,
         "snapshot.lua.gc_count_bytes is not a positive integer")
    need(is_int(lua.get("taken_ns")) and lua["taken_ns"] >= 0,
         "snapshot.lua.taken_ns is not a non-negative integer")
    if "lua" in args:
        want = args["lua"]
        need(lua["version"] == want, "snapshot.lua.version %r, not %r", lua["version"], want)
    if "collected" in args:
        need(lua["collected"] == (args["collected"] == "1"),
             "snapshot.lua.collected is %s, %s asked", lua["collected"],
             "a collection" if args["collected"] == "1" else "none")
    if "gc_bytes" in args:
        need(lua["gc_count_bytes"] - int(args["gc_bytes"]) <= 1024,
             "snapshot.lua.gc_count_bytes %d, but collectgarbage(\"count\") said %s bytes "
             "right before the call", lua["gc_count_bytes"], args["gc_bytes"])
    if "gc_after" in args:
        need(0 <= int(args["gc_after"]) - lua["gc_count_bytes"] <= 1024,
             "the Lua heap went from %d bytes at the snapshot's start to %s after "
             "the call (paused collector: it may grow by the walk's own call, "
             "under 1 KB, and never shrink)", lua["gc_count_bytes"], args["gc_after"])


def check(path, args):
    doc, size = load(path)
    snap, nodes, edges, strings, nc, ec = check_structure(doc)
    total = check_nodes(nodes, strings, nc)
    need(total == ec, "the nodes' edge counts add up to %d, edge_count is %d", total, ec)
    adj = check_edges(nodes, edges, strings, nc, ec)
    check_roots(nodes, edges, strings, adj)
    seen = reachable(nodes, edges, adj, nc)
    unreached = [i for i in range(nc) if not seen[i]]
    need(not unreached, "%d nodes not reachable from node 0, e.g. node %d %r",
         len(unreached), unreached[0] if unreached else 0,
         strings[nodes[7 * unreached[0] + 1]][:60] if unreached else "")
    lua = snap["lua"]
    check_lua(lua, args)

    self_sum = sum(nodes[3::7])
    if lua["exact"]:
        need(self_sum <= lua["gc_count_bytes"],
             "exact sizes add up to %d bytes, more than the Lua heap's %d "
             "(gc_count_bytes): something counted twice", self_sum, lua["gc_count_bytes"])
    kinds = {}
    strmax, strname = 0, 0
    types, names, sizes = nodes[0::7], nodes[1::7], nodes[3::7]
    for (t, name), n in Counter(zip(types, names)).items():
        tn, nm = NODE_TYPES[t], strings[name]
        if tn == "string":
            strname = max(strname, len(nm))
        elif tn == "object":
            tn = "thread" if nm.startswith("thread") else "table"
        elif tn == "native":
            tn = "light userdata" if nm.startswith("light") else "userdata"
        elif tn == "hidden":
            tn = "cdata"
        kinds[tn] = kinds.get(tn, 0) + n
    strmax = max((sz for t, sz in zip(types, sizes) if t == T_STRING), default=0)
    weak = edges[0::3].count(E_WEAK)

    def want(key, have, what):
        if key in args:
            need(have >= int(args[key]), "%s: %d, at least %s expected", what, have, args[key])
    want("nodes_min", nc, "nodes")
    want("weak_min", weak, "weak edges")
    want("threads_min", kinds.get("thread", 0), "threads")
    want("udata_min", kinds.get("userdata", 0), "full userdata")
    want("cdata_min", kinds.get("cdata", 0), "cdata")
    want("bigstring", strmax, "the largest string's size")
    if "string_name_max" in args:
        need(strname <= int(args["string_name_max"]), "a string's name of %d characters", strname)
    if "file_max" in args:
        need(size <= int(args["file_max"]), "the file is %d bytes, at most %s expected "
             "(a name not cut?)", size, args["file_max"])
    summary = " ".join("%s=%d" % kv for kv in sorted(kinds.items()))
    return ("%d nodes, %d edges (%d weak), %d bytes; self sizes %d of gc_count_bytes %d "
            "(%.1f%%, exact=%s); %s" % (nc, ec, weak, size, self_sum, lua["gc_count_bytes"],
                                        100.0 * self_sum / lua["gc_count_bytes"],
                                        str(lua["exact"]).lower(), summary))


def main(argv):
    files, args = [], {}
    for a in argv[1:]:
        k, eq, v = a.partition("=")
        if eq and k.replace("_", "").isalpha() and k.islower():
            args[k] = v
        else:
            files.append(a)
    if not files:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    status = 0
    for path in files:
        try:
            print("ok %s: %s" % (os.path.basename(path), check(path, args)))
        except Bad as e:
            print("BAD %s: %s" % (path, e))
            status = 1
        except (OSError, KeyError, TypeError, IndexError) as e:
            print("BAD %s: %s: %s" % (path, type(e).__name__, e))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
