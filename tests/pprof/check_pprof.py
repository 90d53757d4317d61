#!/usr/bin/env python3
"""check_pprof.py -- what `go tool pprof` reads from a pprof report, against
the other reports of the same snapshot (pprof_host.c writes them all).

usage: check_pprof.py [--memory] OUT
       (reads OUT.pb.gz, OUT.csv, OUT.json, OUT.folded-calls)

A pprof sample is a call path (a node of the call tree) with its own
figures, so pprof's flat figure of a function is the sum over its paths,
and its cum figure the sum over the paths it is on.  For counts and bytes
that is the function's own figure: calls, self_ns, alloc_bytes and
alloc_count must equal the csv's (a path's self time is never below 0,
and the snapshot settles the paths of a function to add up to its self
time).  A function's total is measured rather than summed: so cum wall
must equal the sums of the json report's tree (exactly).  pprof shows a
function as `name (source:line)`, `name (source)` for a main chunk, as
the folded reports write frames.

  -raw      sample types, the "luainstr VERSION" comment, one location per
            function, flat and cum per function (above)
  -top      every function's flat (and wall's cum) for each sample type,
            and the top rows in the order of the figures above
  -traces   the stacks with their call counts = folded-calls' lines

Prints one line per check; exits 1 when one failed.
"""
import collections
import csv
import json
import re
import subprocess
import sys

memory = sys.argv[1] == '--memory'
out = sys.argv[-1]
pb = out + '.pb.gz'
failed = False


def check(ok, what, detail=''):
    global failed
    print(('pass  ' if ok else 'FAIL  ') + what + ('' if ok else ': ' + str(detail)))
    failed = failed or not ok


def pprof(*args):
    r = subprocess.run(['go', 'tool', 'pprof'] + list(args) + [pb],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        check(False, 'go tool pprof ' + ' '.join(args), r.stderr.strip())
        sys.exit(1)
    return r.stdout


def diff(got, want):
    return {n: (got.get(n), want.get(n)) for n in set(got) | set(want)
            if got.get(n) != want.get(n)}


# ---- the other reports: csv (functions), json (the tree)
def label(name, source, line):
    return '%s (%s:%s)' % (name, source, line) if int(line) else \
        '%s (%s)' % (name, source)


rows = list(csv.DictReader(open(out + '.csv', encoding='utf-8', newline='')))
for r in rows:
    r['label'] = label(r['name'], r['source'], r['line'] or 0)
names = [r['label'] for r in rows]
check(len(names) == len(set(names)), 'csv: every function once', names)
fig = {r['label']: {k: int(r[k]) for k in ('calls', 'self_ns', 'total_ns',
                                           'alloc_bytes', 'alloc_count')}
       for r in rows}
doc = json.load(open(out + '.json', encoding='utf-8'))
fname = [label(f['name'], f['source'], f['line']) for f in doc['functions']]
tree = doc['tree']
path_self = collections.Counter()     # wall: sum over the function's paths
path_cum = collections.Counter()      # sum over the paths it is on
for n in tree[1:]:
    on = set()
    k = n
    while k['parent'] is not None:
        on.add(fname[k['function']])
        k = tree[k['parent']]
    path_self[fname[n['function']]] += n['self_ns']
    for f in on:
        path_cum[f] += n['self_ns']

# ---- -raw
raw = pprof('-raw')
section = None
types, samples, locs, comments, sysname = [], [], {}, [], {}
for line in raw.splitlines():
    if line.startswith('Comment: '):
        comments.append(line[len('Comment: '):])
    if line in ('Samples:', 'Locations', 'Mappings'):
        section = line
        continue
    if section == 'Samples:' and not types:
        types = line.split()
        continue
    if section == 'Samples:':
        m = re.match(r'^\s*([\d\s]+):\s*([\d\s]*)$', line)
        if m:
            samples.append(([int(v) for v in m.group(1).split()],
                            [int(x) for x in m.group(2).split()]))
    elif section == 'Locations':
        # pprof adds the system name (luainstr's own name) when it differs
        m = re.match(r'^\s*(\d+): 0x[0-9a-f]+ M=\d+ (.*) (\S+):(\d+) s=(\d+)\((.*)\)$', line)
        if m:
            locs[int(m.group(1))] = m.group(2)
            sysname[m.group(2)] = m.group(6)
want_types = ['calls/count', 'wall/nanoseconds[dflt]'] + \
    (['alloc_space/bytes', 'alloc_objects/count'] if memory else [])
check(types == want_types, '-raw: sample types ' + ' '.join(types), want_types)
check(any(re.fullmatch(r'luainstr \d+\.\d+\.\d+.*', c) for c in comments),
      '-raw: comment "luainstr VERSION"', comments)
check(sorted(locs.values()) == sorted(fname),
      '-raw: one location per function (%d)' % len(locs), (locs, fname))
plain = {label(f['name'], f['source'], f['line']): f['name'] for f in doc['functions']}
check(sysname == plain, '-raw: system names = the functions\' own names',
      diff(sysname, plain))
shared = len(plain) - len(set(plain.values()))
print('info  %d function%s share%s a name with another, kept apart' %
      (shared, '' if shared == 1 else 's', 's' if shared == 1 else ''))
flat = collections.defaultdict(lambda: [0] * len(types))
cum = collections.defaultdict(lambda: [0] * len(types))
for values, stack in samples:
    for i, v in enumerate(values):
        flat[locs[stack[0]]][i] += v
    for name in {locs[x] for x in stack}:
        for i, v in enumerate(values):
            cum[name][i] += v
kinds = [t.split('/')[0] for t in types]


def column(table, kind):
    i = kinds.index(kind)
    return {n: v[i] for n, v in table.items() if v[i] > 0}


def nonzero(d):
    return {n: v for n, v in d.items() if v > 0}


check(column(flat, 'calls') == nonzero({n: fig[n]['calls'] for n in names}),
      '-raw: flat calls = csv calls',
      diff(column(flat, 'calls'), {n: fig[n]['calls'] for n in names}))
check(column(flat, 'wall') == nonzero(path_self),
      '-raw: flat wall = json tree, sum of self_ns over the paths',
      diff(column(flat, 'wall'), nonzero(path_self)))
check(column(cum, 'wall') == nonzero(path_cum),
      '-raw: cum wall = json tree, sum of self_ns over the paths it is on',
      diff(column(cum, 'wall'), nonzero(path_cum)))
check(column(flat, 'wall') == nonzero({n: fig[n]['self_ns'] for n in names}),
      '-raw: flat wall = csv self_ns',
      diff(column(flat, 'wall'), nonzero({n: fig[n]['self_ns'] for n in names})))
if memory:
    for kind, key in (('alloc_space', 'alloc_bytes'), ('alloc_objects', 'alloc_count')):
        want = nonzero({n: fig[n][key] for n in names})
        check(column(flat, kind) == want, '-raw: flat %s = csv %s' % (kind, key),
              diff(column(flat, kind), want))


# ---- -top


def top(index, unit, want_flat, want_cum=None):
    """-top of one sample type; unit '' for counts, which pprof prints bare"""
    args = ['-top', '-nodefraction=0', '-nodecount=100000', '-sample_index=' + index]
    text = pprof(*(args + (['-unit=' + unit] if unit else [])))
    rows_top = []
    for line in text.splitlines():
        # (a figure of 0 is printed bare, without its unit)
        m = re.match(r'^\s*(\d+)(?:%s)?\s+\S+\s+\S+\s+(\d+)(?:%s)?\s+\S+\s+(.*)$' % (unit, unit), line)
        if m:
            rows_top.append((m.group(3), int(m.group(1)), int(m.group(2))))
    got = {n: f for n, f, c in rows_top if f > 0}
    check(got == nonzero(want_flat), '-top -sample_index=%s: flat of %d functions'
          % (index, len(got)), diff(got, nonzero(want_flat)))
    if want_cum is not None:
        got = {n: c for n, f, c in rows_top if c > 0}
        check(got == nonzero(want_cum), '-top -sample_index=%s: cum of %d functions'
              % (index, len(got)), diff(got, nonzero(want_cum)))
    # the top rows: the largest figures, in order (equal ones either way)
    top_got = [f for n, f, c in rows_top][:5]
    top_want = sorted(want_flat.values(), reverse=True)[:len(top_got)]
    check(top_got == top_want, '-top -sample_index=%s: top %d = %s' %
          (index, len(top_got), ', '.join(n for n, f, c in rows_top[:5])),
          (top_got, top_want))
    return [n for n, f, c in rows_top]


order = top('wall', 'ns', path_self, path_cum)
csv_top = [r['label'] for r in rows[:3]]
print('info  -top wall: %s; csv by self_ns: %s' % (', '.join(order[:3]), ', '.join(csv_top)))
top('calls', '', {n: fig[n]['calls'] for n in names})
if memory:
    top('alloc_space', 'B', {n: fig[n]['alloc_bytes'] for n in names})
    top('alloc_objects', '', {n: fig[n]['alloc_count'] for n in names})

# ---- -traces: call counts per stack = folded-calls' lines
text = pprof('-traces', '-sample_index=calls')
traces = collections.Counter()
for block in re.split(r'^-+\+-+$', text, flags=re.M):
    lines = [l for l in block.splitlines() if l.strip()]
    m = re.match(r'^\s*(\d+)\s+(.*)$', lines[0]) if lines else None
    if not m:
        continue
    stack = [m.group(2).strip()] + [l.strip() for l in lines[1:]]
    traces[(tuple(reversed(stack)), int(m.group(1)))] += 1
folded = collections.Counter()
for line in open(out + '.folded-calls', encoding='utf-8'):
    stack, value = line.rstrip('\n').rsplit(' ', 1)
    frames = tuple(stack.split(';'))
    folded[(frames, int(value))] += 1
check(traces == folded and len(traces) > 0,
      '-traces -sample_index=calls: %d stacks = folded-calls' % sum(traces.values()),
      (traces - folded, folded - traces))
sys.exit(1 if failed else 0)
