#!/usr/bin/env python3
"""check.py DOM JSON NAME -- speedscope's Sandwich table (DOM, dumped by
headless Chromium) against the json report of the same snapshot: one row
per function on a sampled path, its Total and Self the sums of the json
tree's self_ns over the paths it is on and over its own paths, as shown
(speedscope prints 2 decimals in ns, us, ms or s); the title names the
file.  Exits 1 when a check failed."""
import collections
import html
import json
import re
import sys

dom, doc, name = open(sys.argv[1], encoding='utf-8').read(), \
    json.load(open(sys.argv[2], encoding='utf-8')), sys.argv[3]
failed = False


def check(ok, what, detail=''):
    global failed
    print(('pass  ' if ok else 'FAIL  ') + what + ('' if ok else ': ' + str(detail)))
    failed = failed or not ok


title = re.search(r'<title>(.*?)</title>', dom)
check(title and html.unescape(title.group(1)) == name + ' - speedscope',
      'speedscope imported the file (title "%s")' % (title.group(1) if title else ''))

# speedscope shows pprof's function names: `name (source:line)`,
# `name (source)` for a main chunk (report/pprof.c)
fname = ['%s (%s:%d)' % (f['name'], f['source'], f['line']) if f['line'] else
         '%s (%s)' % (f['name'], f['source']) for f in doc['functions']]
tree = doc['tree']
self_ = collections.Counter()
total = collections.Counter()
for n in tree[1:]:
    on, k = set(), n
    while k['parent'] is not None:
        on.add(fname[k['function']])
        k = tree[k['parent']]
    self_[fname[n['function']]] += n['self_ns']
    for f in on:
        total[f] += n['self_ns']

UNIT = {'ns': 1, 'us': 1e3, 'µs': 1e3, 'ms': 1e6, 's': 1e9}
# a row: <td>160.94ms (100%)<div>bar</div></td> twice, then the name
cell = r'<td[^>]*>([\d.]+)(ns|us|µs|ms|s) \([^)]*\)(?:(?!</td>).)*</td>'
rows = re.findall(r'<tr[^>]*>\s*' + cell + r'\s*' + cell + r'\s*<td[^>]*>(.*?)</td>',
                  dom, flags=re.S)
rows = [r[:4] + (re.sub(r'<[^>]+>', '', r[4]),) for r in rows]
table = {html.unescape(re.sub(r'<[^>]+>', '', r[4])).strip():
         (float(r[0]) * UNIT[r[1]], float(r[2]) * UNIT[r[3]], UNIT[r[1]], UNIT[r[3]])
         for r in rows}
want = {n for n, v in total.items() if v > 0}
check(set(table) == want, 'Sandwich table: %d functions, those on a timed path' % len(table),
      (sorted(set(table) - want), sorted(want - set(table))))
bad = {}
for n in set(table) & want:
    t, s, tu, su = table[n]
    # shown to 2 decimals of its unit
    if abs(t - total[n]) > 0.0051 * tu or abs(s - self_[n]) > 0.0051 * su:
        bad[n] = ((t, total[n]), (s, self_[n]))
check(not bad, 'Sandwich table: Total and Self = json tree sums, as shown', bad)
first = rows[0][4] if rows else ''
# (sorted by Self, speedscope's default)
check(rows and self_[html.unescape(first).strip()] == max(self_.values()),
      'Sandwich table: first row has the largest self (%s)' % html.unescape(first).strip())
sys.exit(1 if failed else 0)
