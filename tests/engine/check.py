#!/usr/bin/env python3
"""check.py -- checks the json profile of one run of tests/engine/engine.

    check.py PROFILE_JSON ENGINE_STDOUT [--probe NAME] [--memory]

ENGINE_STDOUT is what the engine printed: what it did ("calls NAME N",
"errors NAME N"), how long its loop took by its own clock, how many tables
its builder coroutine made.  Checks, from the report:

  calls    every script function the engine made run has exactly the
           entries the engine counted (a coroutine's body once, however
           many times it was resumed), and exactly the exits by an error
           (faulty and faulty_step: one each, nothing else)
  nesting  every node of a coroutine body the scheduler resumes hangs under
           the zone "resume" (under "scheduler" under "tick"), and the task
           the director resumes through a C function hangs under
           director; no script function but a main chunk is a root
  time     the sum of every node's self time (the time measured, each
           nanosecond once) plus the probes' cost the profiler subtracted
           is the profiler's wall time within 5 %; the zone "tick" lasts
           the engine's loop by its own stopwatch within 5 %; the zones
           "resume" and "director" have little self time of their own
           (under 10 % of their total): the coroutines' time is theirs, not
           also the zone's
  memory   (--memory) make_tables, run in the builder coroutine, made at
           least one allocation for each table the engine asked for, and
           the zones made fewer in all than one resume of the builder
  report   no warning names luainstr_wrap.h; the probe is the one asked
           for (--probe); one frame per tick

Exits 0 when all pass, 1 otherwise (every failure is printed), and 3 when
the only failures are of the time checks (the engine's loop and the
profiler's wall time hold the host's C between zones, and a zone's self
time the C of lua_resume, which a busy machine can stretch): check.sh runs
the engine again; a coroutine counted twice fails every run.
"""
import json
import re
import sys

failures = []
timing = []     # the failures of the time checks


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def time_fail(msg):
    timing.append(msg)
    fail(msg)


def ok(msg):
    print("ok: " + msg)


def parse_stdout(text):
    facts = {"calls": {}, "errors": {}}
    for line in text.splitlines():
        m = re.match(r"^(calls|errors) (\S+) (\d+)$", line)
        if m:
            facts[m.group(1)][m.group(2)] = int(m.group(3))
            continue
        m = re.match(r"^(ticks|loop_ms|build_tables|builder_resumes) (\S+)$", line)
        if m:
            facts[m.group(1)] = float(m.group(2))
    return facts


class Profile:
    def __init__(self, doc):
        self.doc = doc
        self.funcs = doc.get("functions") or []
        self.tree = doc.get("tree") or []
        self.by_name = {}
        for f in self.funcs:
            self.by_name.setdefault(f.get("name"), []).append(f)

    def func(self, name):
        """The one function of that name, or None."""
        fs = self.by_name.get(name) or []
        return fs[0] if len(fs) == 1 else None

    def name_of(self, node):
        fid = node.get("function")
        return "(root)" if fid is None else self.funcs[fid].get("name")

    def nodes_of(self, name):
        f = self.func(name)
        if f is None:
            return []
        return [n for n in self.tree if n.get("function") == f["id"]]

    def path(self, node):
        """Names from the node up to (not including) the root."""
        names = []
        while node.get("parent") is not None:
            names.append(self.name_of(node))
            node = self.tree[node["parent"]]
        return names


def check_calls(p, facts):
    for name, want in sorted(facts["calls"].items()):
        fs = p.by_name.get(name) or []
        if len(fs) != 1:
            fail("%s: %d functions of that name in the report, expected 1"
                 % (name, len(fs)))
            continue
        f = fs[0]
        errs = facts["errors"].get(name, 0)
        if f.get("calls") != want or f.get("errors") != errs:
            fail("%s: %s calls, %s errors; the engine made %d and %d"
                 % (name, f.get("calls"), f.get("errors"), want, errs))
        else:
            ok("%s: %d calls%s" % (name, want,
                                   ", %d by an error" % errs if errs else ""))


def check_nesting(p):
    bodies = {"patrol": "zone resume", "cutscene": "zone resume",
              "faulty": "zone resume", "builder": "zone resume",
              "task_body": "director"}
    for body, parent in sorted(bodies.items()):
        nodes = p.nodes_of(body)
        if not nodes:
            fail("%s has no node in the tree" % body)
            continue
        for n in nodes:
            up = p.path(n)[1:]
            want = ["zone scheduler", "zone tick"] if parent == "zone resume" \
                else ["zone director", "zone tick"]
            if not up or up[0] != parent or not all(z in up for z in want):
                fail("%s: a node under %s, expected under %s > %s"
                     % (body, " > ".join(reversed(up)) or "the root",
                        " > ".join(reversed(want)), parent))
                break
        else:
            ok("%s: %d node(s), each under %s" % (body, len(nodes), parent))
    roots = [n for n in p.tree if n.get("parent") == 0
             and p.name_of(n) not in ("main chunk", "zone tick")]
    if roots:
        fail("roots other than the main chunks and zone tick: %s"
             % sorted({p.name_of(n) for n in roots}))
    else:
        ok("the root's children are the main chunks and zone tick")


def within(got, want, tol):
    return want > 0 and abs(got - want) <= tol * want


def check_time(p, facts):
    s = p.doc.get("summary") or {}
    wall, over = s.get("wall_ns") or 0, s.get("overhead_ns") or 0
    selfsum = sum(n.get("self_ns") or 0 for n in p.tree)
    if within(selfsum + over, wall, 0.05):
        ok("self times %.1f ms + probes %.1f ms = %.1f%% of the wall time %.1f ms"
           % (selfsum / 1e6, over / 1e6, 100.0 * (selfsum + over) / wall, wall / 1e6))
    else:
        time_fail("self times %.1f ms + probes %.1f ms against the wall time %.1f ms "
             "(%.1f%%): more than 5%% off" % (selfsum / 1e6, over / 1e6,
                                             wall / 1e6, 100.0 * (selfsum + over) / max(wall, 1)))
    tick = p.func("zone tick")
    loop = facts.get("loop_ms", 0) * 1e6
    if tick is None:
        fail("no zone tick")
    elif within((tick.get("total_ns") or 0) + over, loop, 0.05):
        ok("zone tick %.1f ms, the engine's loop %.1f ms"
           % (tick["total_ns"] / 1e6, loop / 1e6))
    else:
        time_fail("zone tick %.1f ms, the engine's loop %.1f ms: more than 5%% off"
             % ((tick.get("total_ns") or 0) / 1e6, loop / 1e6))
    for name in ("zone resume", "zone director", "zone scheduler", "zone tick"):
        z = p.func(name)
        if z is None:
            fail("no %s" % name)
            continue
        total, own = z.get("total_ns") or 0, z.get("self_ns") or 0
        if total > 0 and own < 0.10 * total:
            ok("%s: self %.2f ms of %.1f ms" % (name, own / 1e6, total / 1e6))
        else:  # (a preempted resume can stretch it: retried as timing)
            time_fail("%s: self %.2f ms of %.1f ms: the Lua it ran is counted in "
                 "its own time" % (name, own / 1e6, total / 1e6))


def check_memory(p, facts):
    want = int(facts.get("build_tables", 0) * facts.get("builder_resumes", 0))
    mk = p.func("make_tables")
    if mk is None:
        fail("no make_tables")
        return
    if mk.get("alloc_count", 0) >= want > 0:
        ok("make_tables: %d allocations for %d tables"
           % (mk["alloc_count"], want))
    else:
        fail("make_tables: %s allocations, fewer than the %d tables it built"
             % (mk.get("alloc_count"), want))
    zones = sum(f.get("alloc_count", 0) for f in p.funcs if f.get("zone"))
    if zones < facts.get("build_tables", 0):
        ok("the zones made %d allocations themselves" % zones)
    else:
        fail("the zones made %d allocations themselves: the builder's charged "
             "to them?" % zones)


def check_report(p, facts, probe, inferred):
    s = p.doc.get("summary") or {}
    warns = [w for w in p.doc.get("warnings") or [] if "luainstr_wrap.h" in w]
    if inferred and not warns:
        fail("no warning names luainstr_wrap.h, though the resumes were "
             "Lua's own lua_resume")
    elif inferred:
        ok("the report says the resumes were inferred: %s..." % warns[0][:100])
    elif warns:
        fail("warnings: %s" % warns)
    if probe is not None and s.get("probe") != probe:
        fail("probe %r, asked for %r" % (s.get("probe"), probe))
    elif probe is not None:
        ok("probe %s" % probe)
    if s.get("frames_marked") != int(facts.get("ticks", -1)):
        fail("%s frames marked, %d ticks" % (s.get("frames_marked"), facts.get("ticks", -1)))


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    probe = None
    if "--probe" in argv:
        probe = argv[argv.index("--probe") + 1]
        args.remove(probe)
    if len(args) != 2:
        sys.exit(__doc__)
    with open(args[1], encoding="utf-8") as fh:
        facts = parse_stdout(fh.read())
    if not facts["calls"] or "loop_ms" not in facts:
        fail("the engine's output says nothing of what it did")
        return 1
    with open(args[0], encoding="utf-8") as fh:
        p = Profile(json.load(fh))
    check_calls(p, facts)
    check_nesting(p)
    check_time(p, facts)
    if "--memory" in argv:
        check_memory(p, facts)
    check_report(p, facts, probe, "--inferred" in argv)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 3 if len(failures) == len(timing) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
