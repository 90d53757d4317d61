// check.mjs -- our .heapsnapshot files as Chrome DevTools sees them.
//
//   node check.mjs known                 the hand-written heaps beside this
//                                        file, against figures worked out
//                                        by hand
//   node check.mjs lua A B EXIT          the snapshots luaprof wrote of
//                                        heap.lua (run.sh), against the
//                                        files read plainly, and DevTools'
//                                        Comparison of A and B
//   node check.mjs luaheap FILE JSON     luaheap's summary of FILE (its
//                                        --json) against DevTools' figures
//
// Every figure below is what DevTools' own code (devtools.mjs) computed:
// node count, edge count, total size, its Summary view's classes, retained
// sizes (its dominator tree), distances, its Containment view's edges from
// the root, its Retainers view's shortest path, its Comparison view.  The
// file read plainly (JSON.parse, here) gives what DevTools should find;
// retained sizes are checked against an independent computation (the
// bytes that become unreachable from the root when a node is taken away,
// weak edges not counting, as DevTools does).
// Prints "ok ..." / "FAIL ..." lines; exits 1 on a failure.
import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {load} from './devtools.mjs';

const FILE_CHUNK = 10000000;
let failures = 0, passes = 0;
function ok(cond, what, detail = '') {
  if (cond) passes++;
  else failures++;
  console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}${!cond && detail ? ': ' + detail : ''}`);
}
function eq(got, want, what) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  ok(g === w, what, `got ${g}, want ${w}`);
}

// ---- the file read plainly (docs/heap.md) ------------------------------------
function plain(text) {
  const j = JSON.parse(text), NF = 7, EF = 3;
  const n = j.nodes.length / NF, e = j.edges.length / EF;
  const ntype = j.snapshot.meta.node_types[0], etype = j.snapshot.meta.edge_types[0];
  const first = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) first[i + 1] = first[i] + j.nodes[i * NF + 4];
  const node = i => ({
    type: ntype[j.nodes[i * NF]], name: j.strings[j.nodes[i * NF + 1]], id: j.nodes[i * NF + 2],
    self: j.nodes[i * NF + 3],
  });
  const edges = i => {
    const out = [];
    for (let k = first[i]; k < first[i + 1]; k++) {
      const t = etype[j.edges[k * EF]], v = j.edges[k * EF + 1];
      out.push({type: t, name: t === 'element' || t === 'hidden' ? String(v) : j.strings[v],
                to: j.edges[k * EF + 2] / NF});
    }
    return out;
  };
  let self = 0;
  for (let i = 0; i < n; i++) self += j.nodes[i * NF + 3];
  return {j, n, e, first, node, edges, self};
}

// Nodes reachable from the root over non-weak edges, without going through
// `skip`; retained(v) = bytes reachable from the root less those still
// reachable when v is taken away.
function reach(p, skip) {
  const seen = new Uint8Array(p.n), stack = [0];
  seen[0] = 1;
  if (skip >= 0) seen[skip] = 1;
  while (stack.length) {
    const v = stack.pop();
    for (const ed of p.edges(v)) {
      if (ed.type === 'weak' || seen[ed.to]) continue;
      seen[ed.to] = 1;
      stack.push(ed.to);
    }
  }
  if (skip >= 0) seen[skip] = 0;
  return seen;
}
function retainedPlain(p, v, all) {
  const without = reach(p, v);
  let sum = 0;
  for (let i = 0; i < p.n; i++) if (all[i] && !without[i]) sum += p.node(i).self;
  return sum;
}

// The node at the end of a path of edge names from the root, e.g.
// ['(registry)', '_G', 'Game'] (a synthetic root is named by its node's name).
function follow(p, names) {
  let v = 0;
  for (const name of names) {
    const out = p.edges(v);
    const ed = out.find(x => x.name === name) ??
               out.find(x => p.node(x.to).type === 'synthetic' && p.node(x.to).name === name);
    if (!ed) return -1;
    v = ed.to;
  }
  return v;
}

// ---- what DevTools computed ------------------------------------------------
async function devtools(text, chunk) {
  const s = await load(text, {chunk});
  const info = await s.call('updateStaticData');
  const objects = [];
  let edges = 0;
  for (let i = 0; i < info.nodeCount; i++) {
    const o = await s.call('getObjectInfo', i * 7);
    objects.push(o);
    edges += o.edgeCount;
  }
  return {s, info, objects, edges, stats: await s.call('getStatistics'),
          classes: await s.call('aggregatesWithFilter', {})};
}

// DevTools' Retainers view, nearest retainer first, from object i to a root
async function retainerPath(s, i) {
  const path = [];
  for (let guard = 0; guard < 64; guard++) {
    const r = await s.items('createRetainingEdgesProvider', [i * 7]);
    let best = null;
    for (const it of r.items) if (it.node.distance >= 0 && (!best || it.node.distance < best.node.distance)) best = it;
    if (!best) break;
    path.push(`${best.name} (${best.type}) <- ${best.node.name}`);
    if (best.node.distance <= 1) break;
    i = best.node.nodeIndex / 7;
  }
  return path;
}

// Checks that hold for any snapshot: DevTools' figures against the file's.
async function common(label, text, chunk) {
  const p = plain(text);
  const d = await devtools(text, chunk);
  eq(d.info.nodeCount, p.j.snapshot.node_count, `${label}: DevTools' node count is snapshot.node_count`);
  eq(d.info.nodeCount, p.n, `${label}: DevTools' node count is the nodes written`);
  eq(d.edges, p.e, `${label}: DevTools' edge count is the edges written`);
  eq(d.edges, p.j.snapshot.edge_count, `${label}: DevTools' edge count is snapshot.edge_count`);
  eq(d.info.totalSize, p.self, `${label}: DevTools' total size is the sum of self sizes`);
  eq(d.stats.total, p.self, `${label}: DevTools' statistics total`);
  const broken = d.s.events.filter(e => /Broken/i.test(e.name));
  eq(broken, [], `${label}: no BrokenSnapshot event`);
  const unreachable = d.s.problems.filter(m => /Still found/.test(m));
  eq(unreachable, [], `${label}: every node reachable from the root`);
  // names: DevTools shows ours as they are written
  const names = d.objects.map(o => o.name), pnames = [];
  for (let i = 0; i < p.n; i++) pnames.push(p.node(i).name);
  eq(names.filter((x, i) => x !== pnames[i]).length, 0, `${label}: DevTools shows every node's name as written`);
  eq(d.objects.filter((o, i) => o.type !== p.node(i).type).length, 0, `${label}: and every node's type`);
  eq(d.objects.filter((o, i) => o.id !== p.node(i).id % 2 ** 32).length, 0,
     `${label}: ids as DevTools keeps them (uint32: the address mod 2^32)`);
  const rootEdges = await d.s.items('createEdgesProvider', [0]);
  eq(rootEdges.items.map(e => e.node.name).sort(),
     ['(main thread)', '(registry)', '(threads)', '(type metatables)'],
     `${label}: Containment view: (GC roots) holds our four synthetic roots`);
  return {p, d};
}

// DevTools' retained sizes against the independent computation, for the
// biggest retainers DevTools found and for the nodes named in `extra`.
function checkRetained(label, p, d, extra = []) {
  const all = reach(p, -1);
  const order = d.objects.map((o, i) => i).filter(i => i > 0)
    .sort((a, b) => d.objects[b].retainedSize - d.objects[a].retainedSize);
  const pick = [...new Set([...order.slice(0, 15), ...extra.filter(i => i >= 0)])];
  const bad = [];
  for (const i of pick) {
    const want = all[i] ? retainedPlain(p, i, all) : p.node(i).self;
    if (d.objects[i].retainedSize !== want) bad.push(`${p.node(i).name} #${i}: ${d.objects[i].retainedSize} != ${want}`);
  }
  eq(bad, [], `${label}: DevTools' retained sizes of ${pick.length} nodes (its 15 biggest and the named ones)`);
}

// ---- the hand-written heaps ------------------------------------------------
// known.heapsnapshot is the heap of this Lua 5.4 program (sizes made up but
// consistent), written by hand as docs/heap.md says:
//   local cache = {}                      -- the upvalue of remember
//   Game = {world = {entities = {{pos = {}}, {pos = {}}}}}
//   function Game.remember(k) cache[k] = true end
//   cache.hello = Game.world.entities[2]; weak = setmetatable({{}}, {__mode = 'v'})
//   file = io.stdout; ptr = <a light userdata>; co = coroutine.create(worker)
//   -- co is suspended in worker with local n = entities[1]; taken
//   -- after the main chunk returned (as luaprof --heap does)
// known2.heapsnapshot is the same heap later: three tables leaked into
// cache through remember (cache.leak1..3), held only through its upvalue.
async function known() {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const text = readFileSync(here + 'known.heapsnapshot', 'utf8');
  // DevTools reads a file in chunks of 10,000,000 bytes (HeapSnapshotView's
  // ChunkedFileReader); 1000 also cuts numbers and names across chunks
  for (const chunk of [1000, FILE_CHUNK]) {
    const {p, d} = await common(`known (chunks of ${chunk})`, text, chunk);
    if (chunk !== 1000) { d.s.close(); continue; }
    const id = name => follow(p, name);
    eq(d.info.totalSize, 5620, 'known: total size 5620 bytes');
    eq(d.info.nodeCount, 32, 'known: 32 nodes');
    eq(d.edges, 40, 'known: 40 edges');
    // the Summary view: one class a Lua type, tables under "table"
    const cls = Object.fromEntries(Object.values(d.classes).map(c => [c.name, [c.count, c.self, c.maxRet]]));
    eq(cls, {
      'thread (main)': [1, 1184, 1184], 'table': [16, 3512, 4012], 'Function': [2, 80, 468],
      '(compiled code)': [1, 236, 270], '(string)': [4, 120, 120], 'userdata FILE*': [1, 64, 214],
      'thread': [1, 424, 424],
    }, 'known: Summary view classes (count, self, retained)');
    eq(d.stats, {total: 5620, native: {total: 64, typedArrays: 0},
                 v8heap: {total: 5556, code: 236, jsArrays: 0, strings: 120, system: 0}},
       'known: Statistics view');
    // retained sizes worked out by hand
    const G = id(['(registry)', '_G']), Game = id(['(registry)', '_G', 'Game']);
    const world = id(['(registry)', '_G', 'Game', 'world']);
    const remember = id(['(registry)', '_G', 'Game', 'remember']);
    const gone = id(['(registry)', '_G', 'weak', '1']);
    const r = i => d.objects[i].retainedSize;
    // remember: itself, its prototype and source, cache (its upvalue) and
    // "hello"; Game: itself, world and entities, e2 and its pos (held by
    // entities[2] and cache.hello, both Game's), remember; not e1 (co's
    // local too); _G: Game, print, the userdata with its metatable and
    // __name, the weak table with its metatable and "v"; not the string
    // library (package.loaded's too), nor what only the weak table holds
    eq([r(G), r(Game), r(world), r(remember), r(0)], [2460, 924, 192, 436, 5620],
       'known: retained sizes of _G, Game, Game.world, Game.remember, the root');
    eq(d.objects[remember].name, 'function Game.remember (game.lua:3)', 'known: a Lua function\'s name comes through');
    eq([d.objects[G].distance, d.objects[world].distance, d.objects[gone].distance], [2, 4, -5],
       'known: distances (a node held only by a weak table has none)');
    ok(d.s.problems.length === 1 && /1 nodes are unreachable from the root/.test(d.s.problems[0]) &&
       /only weak retainers/.test(d.s.problems[0]),
       'known: DevTools notes the one node held only through a weak table', d.s.problems.join('; '));
    eq(d.objects[id(['(registry)', '_G', 'ptr'])].selfSize, 0, 'known: a light userdata weighs nothing');
    checkRetained('known', p, d, [G, Game, world, remember]);
    eq(await retainerPath(d.s, id(['(registry)', '_G', 'Game', 'world', 'entities'])),
       ['entities (property) <- table', 'world (property) <- table', 'Game (property) <- table',
        '_G (property) <- (registry)'], 'known: Retainers view of Game.world.entities');
    d.s.close();
  }
  // the harness can fail: a file cut short is refused by DevTools' loader
  let refused = null;
  try {
    (await load(text.slice(0, text.indexOf('"edges"') + 20))).close();
  } catch (e) {
    refused = String(e.message);
  }
  ok(refused !== null && /end of input/.test(refused), 'known: DevTools refuses the file cut in its edges',
     refused ?? 'it loaded');
  await comparison('known -> known2', readFileSync(here + 'known.heapsnapshot', 'utf8'),
                   readFileSync(here + 'known2.heapsnapshot', 'utf8'), 3, 3 * 88);
}

// DevTools' Comparison view of B against A: the tables new in B, and the
// Retainers view of one of them through the upvalue that holds it.
async function comparison(label, ta, tb, wantTables, wantBytes) {
  const a = await load(ta), b = await load(tb);
  const defs = await b.call('interfaceDefinitions');
  const base = await a.call('aggregatesForDiff', defs);
  const diff = await b.call('calculateSnapshotDiff', 'A', base);
  const tables = Object.values(diff).find(x => x.name === 'table');
  ok(tables && tables.addedCount === wantTables && tables.addedSize === wantBytes,
     `${label}: Comparison view: ${wantTables} new tables, ${wantBytes} bytes`,
     JSON.stringify(tables && {added: tables.addedCount, size: tables.addedSize, removed: tables.removedCount}));
  const others = Object.values(diff).filter(x => x.name !== 'table' && x.addedCount > 0);
  eq(others.map(x => x.name), [], `${label}: nothing else new`);
  if (tables?.addedIndexes.length) {
    const path = await retainerPath(b, tables.addedIndexes[0] / 7);
    ok(path.some(s => s.includes('(context) <- function Game.remember')),
       `${label}: Retainers view of a new table goes through remember's upvalue`, path.join(' / '));
  }
  a.close();
  b.close();
}

// ---- real snapshots of heap.lua -------------------------------------------
// Each snapshot: DevTools' figures against the file; the names heap.lua
// gave (Game.world.entities, Game.remember) and their retained sizes; the
// Retainers view of an entity's pos.  Then DevTools' Comparison of A and
// B: the 50 tables heap.lua leaked into remember's upvalue between them.
async function lua(files) {
  const texts = files.map(f => readFileSync(f, 'utf8'));
  for (let k = 0; k < files.length; k++) {
    const label = files[k].replace(/.*\/([^/]+\/[^/]+)$/, '$1');
    const {p, d} = await common(label, texts[k], FILE_CHUNK);
    const at = path => follow(p, ['(registry)', '_G', ...path]);
    const Game = at(['Game']), entities = at(['Game', 'world', 'entities']), remember = at(['Game', 'remember']);
    ok(Game >= 0 && entities >= 0 && remember >= 0, `${label}: _G.Game, Game.world.entities and Game.remember found`);
    if (Game < 0 || entities < 0 || remember < 0) { d.s.close(); continue; }
    ok(/^function Game\.remember \(.*heap\.lua:16\)$/.test(d.objects[remember].name),
       `${label}: DevTools names Game.remember 'function Game.remember (...heap.lua:16)'`, d.objects[remember].name);
    const ents = await d.s.items('createEdgesProvider', [entities * 7]);
    eq(ents.items.filter(e => e.type === 'element').map(e => e.name).sort((x, y) => x - y).join(','),
       Array.from({length: 100}, (_, i) => i + 1).join(','),
       `${label}: Containment view: Game.world.entities holds elements 1..100`);
    checkRetained(label, p, d, [Game, entities, remember]);
    const pos = at(['Game', 'world', 'entities', '3', 'pos']);
    // (world may be nearer a root through a stack slot the main chunk
    // left it in than through _G.Game: LuaJIT keeps dead registers)
    const rp = pos >= 0 ? await retainerPath(d.s, pos) : [];
    eq(rp.slice(0, 4), ['pos (property) <- table', '3 (element) <- table', 'entities (property) <- table',
                        'world (property) <- table'],
       `${label}: Retainers view of Game.world.entities[3].pos`);
    ok(/ <- \((registry|main thread|threads)\)$/.test(rp[rp.length - 1] ?? ''),
       `${label}: ...up to a root`, rp.join(' / '));
    d.s.close();
  }
  // the leak between A and B, as the files say: tables whose id is not in A
  const pa = plain(texts[0]), pb = plain(texts[1]);
  const ida = new Set();
  for (let i = 0; i < pa.n; i++) ida.add(pa.node(i).id % 2 ** 32);
  let bytes = 0, count = 0;
  for (let i = 0; i < pb.n; i++) {
    const nd = pb.node(i);
    if (nd.type === 'object' && nd.name === 'table' && !ida.has(nd.id % 2 ** 32)) { count++; bytes += nd.self; }
  }
  eq(count, 50, 'the files: 50 tables in B that are not in A');
  await comparison('A -> B', texts[0], texts[1], 50, bytes);
}

// ---- luaheap (heap/, C) and DevTools agree ------------------------------------
// luaheap's summary (luaheap summary --json --top N FILE) of the same file:
// its totals, and each object it lists (the largest, the biggest retained
// sizes) has in DevTools the same name, self size and retained size.  Two
// dominator trees written apart, one analysis checked by the other.
// Objects held only weakly are left out: DevTools hangs them under the
// root and counts what they dominate there, luaheap gives them their own
// size only (docs/heap.md).
async function againstLuaheap(file, summaryFile) {
  const text = readFileSync(file, 'utf8'), lh = JSON.parse(readFileSync(summaryFile, 'utf8'));
  const label = 'luaheap ' + file.replace(/.*\/([^/]+\/[^/]+)$/, '$1');
  const s = await load(text);
  const info = await s.call('updateStaticData');
  eq([lh.nodes, lh.bytes], [info.nodeCount, info.totalSize], `${label}: nodes and bytes as DevTools counts them`);
  const listed = [...lh.largest, ...lh.retainers].filter(o => o.path !== null);
  const bad = [];
  for (const o of listed) {
    const d = await s.call('getObjectInfo', o.node * 7);
    if (d.name !== o.name || d.selfSize !== o.self_size || d.retainedSize !== o.retained_size || d.id !== o.id % 2 ** 32)
      bad.push(`node ${o.node} ${o.path}: luaheap ${o.name}/${o.self_size}/${o.retained_size},` +
               ` DevTools ${d.name}/${d.selfSize}/${d.retainedSize}`);
  }
  ok(listed.length >= Math.min(10, lh.nodes - 5) && bad.length === 0,
     `${label}: ${listed.length} objects luaheap lists: the same name, self and retained size in DevTools`,
     bad.slice(0, 5).join('; ') || `only ${listed.length} listed`);
  s.close();
}

const [mode, ...files] = process.argv.slice(2);
if (mode === 'known') {
  await known();
} else if (mode === 'lua' && files.length === 3) {
  await lua(files);
} else if (mode === 'luaheap' && files.length === 2) {
  await againstLuaheap(files[0], files[1]);
} else {
  console.error('usage: node check.mjs known | lua A B EXIT | luaheap FILE SUMMARY_JSON');
  process.exit(2);
}
console.log(`check.mjs: ${passes} passed, ${failures} failed`);
process.exit(failures > 0 ? 1 : 0);
