// live_node.js -- the live view without a server (issue 22): the page's
// game loop as the web page runs it, in node.  The module
// (BUILD/web/luainstr-web.js, samples/wasm/) runs the page's own live
// sample (its <script id="live-sample"> in web/index.html) in live mode
// "page" for a few hundred frames, draining the runtime's messages after
// each, and the stream is checked against docs/live-protocol.md:
//   - hello first, then status; every function named by a spike or a table
//     row was described by an earlier "functions" message;
//   - every frame arrives once, in order, with its figures; the planted
//     spike (every 60th frame from 30) is flagged and its tree, rooted as
//     the protocol says, holds Level.rebuild_navgrid; the zone "render" is
//     listed as a zone;
//   - table rows and memory come while frames do;
//   - commands round-trip: an ack with the command's id, the status they
//     changed, pause and resume stop and restart frames, a bad command is
//     refused; the session's end and errors: a failing tick, os.exit.
//
//   node tests/wasm/live_node.js BUILD_DIR
'use strict';
const fs = require('fs');
const path = require('path');

const build = process.argv[2];
if (!build) { console.error('usage: live_node.js BUILD_DIR'); process.exit(2); }
const factory = require(path.resolve(build, 'web', 'luainstr-web.js'));

let failed = 0, passed = 0;
function check(what, ok, detail) {
  if (ok) { passed++; console.log('ok   ' + what + (detail ? ' (' + detail + ')' : '')); }
  else { failed++; console.log('FAIL ' + what + (detail ? ': ' + detail : '')); }
  return ok;
}

// The page's live sample, as the page takes it (app.js).
const html = fs.readFileSync(path.join(__dirname, '..', '..', 'web', 'index.html'), 'utf8');
const m = /<script type="text\/x-lua" id="live-sample">\n([\s\S]*?)<\/script>/.exec(html);
if (!m) { console.error('live_node.js: no live sample in web/index.html'); process.exit(1); }
const SAMPLE = m[1];
const FRAMES = 300;              // 5 spikes: frames 30, 90, 150, 210, 270
const PLANTED = 'Level.rebuild_navgrid';

// The stream's model, as a view keeps it: functions by id, frames, spikes.
function Stream() {
  this.msgs = [];
  this.funcs = new Map();
  this.undeclared = [];          // a function named before its description
  this.frames = [];
  this.spikes = [];
  this.tables = [];
  this.memory = [];
  this.acks = [];
  this.status = [];
  this.bad = [];                 // messages that break the protocol
}
Stream.prototype.need = function (id, where) {
  if (id !== -1 && !this.funcs.has(id)) this.undeclared.push(where + ' names function ' + id);
};
Stream.prototype.take = function (text) {
  if (text === null) return 0;
  let arr;
  try { arr = JSON.parse(text); } catch (e) { this.bad.push('not JSON: ' + e.message); return 0; }
  if (!Array.isArray(arr)) { this.bad.push('not an array: ' + text.slice(0, 80)); return 0; }
  for (const msg of arr) {
    this.msgs.push(msg);
    if (typeof msg.type !== 'string' || typeof msg.state !== 'number')
      this.bad.push('no type or state: ' + JSON.stringify(msg).slice(0, 80));
    switch (msg.type) {
      case 'functions':
        for (const f of msg.functions) this.funcs.set(f.id, f);
        break;
      case 'frames':
        this.frames.push(...msg.frames);
        break;
      case 'spike':
        this.spikes.push(msg);
        for (const n of msg.tree) this.need(n[0], 'spike ' + msg.index);
        break;
      case 'table':
        this.tables.push(msg);
        for (const r of msg.rows) this.need(r[0], 'table');
        break;
      case 'memory': this.memory.push(msg); break;
      case 'ack': this.acks.push(msg); break;
      case 'status': this.status.push(msg); break;
    }
  }
  return arr.length;
};
Stream.prototype.named = function (name) {
  for (const f of this.funcs.values()) if (f.name === name) return f;
  return null;
};

factory().then((M) => {
  const L = M.luainstr;

  // ---- before a session, and a script without tick ---------------------------
  check('no session: tick refused', /no live session/.test(L.liveTick(1 / 60) || ''), L.error());
  check('no session: nothing to drain', L.liveDrain() === null);
  check('a script without tick is refused', /defines no tick function/.test(L.liveStart('local x = 1', 'n.lua') || ''));
  check('... and no session runs', L.liveRunning() === false);

  // ---- the sample, FRAMES frames --------------------------------------------------
  const err = L.liveStart(SAMPLE, 'main.lua');
  if (!check('the live sample starts', err === null && L.liveRunning(), err)) process.exit(1);
  const page = L.livePage();
  check('the live view page', page !== null && /^<!DOCTYPE html>/i.test(page), page === null ? L.error() : page.length + ' bytes');
  const s = new Stream();
  const t0 = Date.now();
  let tickErr = null, drains = 0;
  for (let i = 0; i < FRAMES && tickErr === null; i++) {
    tickErr = L.liveTick(1 / 60);
    if (s.take(L.liveDrain()) > 0) drains++;
  }
  // the table and memory come a few times a second: frames go on (ticking
  // the same game) until one of each came after the spikes, at most 5 s
  const lastSpikeFrame = 270;
  while (tickErr === null && Date.now() - t0 < 5000 &&
         !(s.tables.length > 1 && s.memory.length > 1 &&
           s.frames.length && s.frames[s.frames.length - 1].index > lastSpikeFrame &&
           s.tables[s.tables.length - 1].t_ns > 0 && s.frames.length >= FRAMES + 30)) {
    tickErr = L.liveTick(1 / 60);
    if (s.take(L.liveDrain()) > 0) drains++;
  }
  const ms = Date.now() - t0;
  check('ticks ran', tickErr === null, tickErr);
  check('the stream is JSON arrays of protocol messages', s.bad.length === 0, s.bad.slice(0, 3).join('; '));
  console.log(`     ${s.frames.length} frames in ${ms} ms, ${s.msgs.length} messages in ${drains} drains: ` +
    Object.entries(s.msgs.reduce((a, x) => { a[x.type] = (a[x.type] || 0) + 1; return a; }, {}))
      .map(([k, v]) => k + ' ' + v).join(', '));

  const types = s.msgs.map((x) => x.type);
  check('hello first', types[0] === 'hello', types.slice(0, 4).join(' '));
  const hello = s.msgs[0];
  check('hello: the Lua, frames and memory on', /^Lua 5\.[34]$/.test(hello.lua) && hello.frames === true &&
        hello.memory === true && hello.ns_per_tick > 0, JSON.stringify(hello));
  check('status after hello, running', s.status.length > 0 && types.indexOf('status') > 0 &&
        s.status[0].collection === 'running', JSON.stringify(s.status[0]));
  check('one state throughout', s.msgs.every((x) => x.state === hello.state), 'state ' + hello.state);
  check('functions described before any message names them', s.undeclared.length === 0,
        s.undeclared.slice(0, 3).join('; '));

  // frames: each once, in order, figures that add up
  const idx = s.frames.map((f) => f.index);
  check('frames: every one, once, in order from 1', idx.length >= FRAMES && idx.every((v, i) => v === i + 1),
        `${idx.length} frames, first ${idx[0]}, last ${idx[idx.length - 1]}`);
  const badFrame = s.frames.find((f) => !(f.duration_ns > 0 && f.busy_ns >= 0 && f.idle_ns >= 0 &&
    f.busy_ns + f.idle_ns <= f.duration_ns + 1 && f.calls > 0 && f.alloc_bytes > 0 && f.t_ns > 0 &&
    typeof f.spike === 'boolean'));
  check('frames: duration, busy + idle, calls, allocated bytes', !badFrame, JSON.stringify(badFrame));
  check('frames: times increase', s.frames.every((f, i) => i === 0 || f.t_ns >= s.frames[i - 1].t_ns));

  // the planted spike
  const spikeIdx = s.frames.filter((f) => f.spike).map((f) => f.index);
  const planted = [30, 90, 150, 210, 270];
  check('frames: the planted frames are spikes', planted.every((i) => spikeIdx.includes(i)),
        'spike frames ' + spikeIdx.join(' '));
  const pf = s.named(PLANTED);
  check('functions: the planted function, with its source and line', pf && pf.source === 'main.lua' && pf.line > 0 &&
        pf.lastline > pf.line && pf.zone === 0, JSON.stringify(pf));
  const zone = [...s.funcs.values()].find((f) => f.zone === 1);
  check('functions: the zone "render"', zone && /render/.test(zone.name), JSON.stringify(zone));
  check('spikes: a tree for a planted frame', s.spikes.some((x) => planted.includes(x.index)),
        'spikes ' + s.spikes.map((x) => x.index).join(' '));
  const sp = s.spikes.find((x) => planted.includes(x.index));
  if (sp) {
    const root = sp.tree[0];
    check('spike: tree[0] is the root (func and parent -1)', root && root[0] === -1 && root[1] === -1, JSON.stringify(root));
    check('spike: parents come before their children',
          sp.tree.every((n, i) => i === 0 || (n[1] >= 0 && n[1] < i)));
    const node = pf && sp.tree.find((n) => n[0] === pf.id);
    check('spike: the planted function in its tree, 1 call', node && node[2] === 1, JSON.stringify(node));
    // the node with the most self time: the rebuild, or the sort's
    // comparator it calls (a function of its own, its child in the tree)
    let most = 1;
    for (let i = 2; i < sp.tree.length; i++) if (sp.tree[i][4] > sp.tree[most][4]) most = i;
    const mn = sp.tree[most];
    check('spike: the most self time is in the planted rebuild', pf && mn &&
          (mn[0] === pf.id || sp.tree[mn[1]][0] === pf.id),
          mn && (s.funcs.has(mn[0]) ? s.funcs.get(mn[0]).name : mn[0]) + ', self ' + (mn[4] / 1e6).toFixed(2) + ' ms');
    const fr = s.frames.find((f) => f.index === sp.index);
    check('spike: its figures are its frame\'s', fr && sp.duration_ns === fr.duration_ns && sp.busy_ns === fr.busy_ns,
          `spike ${sp.duration_ns}/${sp.busy_ns}, frame ${fr && fr.duration_ns}/${fr && fr.busy_ns}`);
  }

  // the table: cumulative rows that only grow
  check('table: messages with rows', s.tables.length > 0 && s.tables.some((t) => t.rows.length > 0),
        s.tables.length + ' tables');
  const calls = new Map();
  let shrank = null;
  for (const t of s.tables)
    for (const r of t.rows) {
      if (calls.has(r[0]) && r[1] < calls.get(r[0])) shrank = r;
      calls.set(r[0], r[1]);
    }
  check('table: figures since start never shrink', shrank === null, JSON.stringify(shrank));
  const sep = s.named('Entity:separate');
  const lastTable = s.tables[s.tables.length - 1];
  const framesThen = lastTable ? s.frames.filter((f) => f.t_ns <= lastTable.t_ns).length : 0;
  check('table: Entity:separate, 40 calls a frame', sep && calls.get(sep.id) > 0 && calls.get(sep.id) % 40 === 0 &&
        calls.get(sep.id) <= 40 * s.frames.length, `${sep && calls.get(sep.id)} calls, ${framesThen} frames by then`);
  check('table: the planted function, once per 60 frames', pf && calls.get(pf.id) >= 1 && calls.get(pf.id) <= 1 + s.frames.length / 60,
        String(pf && calls.get(pf.id)));
  check('memory: the Lua heap', s.memory.length > 0 && s.memory.every((x) => x.lua_bytes > 0 && x.alloc_total > 0),
        s.memory.length + ' messages, last ' + JSON.stringify(s.memory[s.memory.length - 1]));

  // ---- commands -----------------------------------------------------------------
  // run a few frames and collect what comes
  function frames(n) {
    const before = s.msgs.length;
    for (let i = 0; i < n; i++) { L.liveTick(1 / 60); s.take(L.liveDrain()); }
    return s.msgs.slice(before);
  }
  let r = L.liveCommand({ cmd: 'spike_rule', factor: 3.5, ms: 1, id: 7 });
  check('command: spike_rule taken', r === null, r);
  let got = frames(2);
  const ack7 = got.find((x) => x.type === 'ack' && x.id === 7);
  check('command: its ack, ok, with its id', ack7 && ack7.ok === true, JSON.stringify(ack7));
  const st = got.filter((x) => x.type === 'status').pop();
  check('command: the status shows the new rule', st && st.spike_factor === 3.5 && st.spike_ms === 1, JSON.stringify(st));

  r = L.liveCommand('{"cmd":"pause","id":8}');
  check('command: pause taken (JSON text)', r === null, r);
  got = frames(3);
  const paused = got.filter((x) => x.type === 'status').pop();
  check('command: paused', got.some((x) => x.type === 'ack' && x.id === 8 && x.ok) && paused && paused.collection === 'paused',
        JSON.stringify(paused));
  const lastBefore = s.frames[s.frames.length - 1].index;
  got = frames(10);
  check('paused: no frames', !got.some((x) => x.type === 'frames' && x.frames.length > 0),
        got.map((x) => x.type).join(' '));
  r = L.liveCommand({ cmd: 'resume', id: 9 });
  check('command: resume taken', r === null, r);
  got = frames(70);    // (frames batch every 50 ms: enough ticks for one)
  const resumed = got.filter((x) => x.type === 'status').pop();
  check('command: resumed', got.some((x) => x.type === 'ack' && x.id === 9 && x.ok) && resumed &&
        resumed.collection === 'running', JSON.stringify(resumed));
  const after = got.filter((x) => x.type === 'frames').flatMap((x) => x.frames);
  check('resumed: frames again, numbered on', after.length > 0 && after[0].index === lastBefore + 1,
        after.length + ' frames from ' + (after[0] && after[0].index) + ', the last before the pause ' + lastBefore);
  const nacks = s.acks.length;
  r = L.liveCommand('{"cmd":"launch","id":10}');
  check('command: an unknown one is refused', r !== null, r);
  r = L.liveCommand('{"cmd":');
  check('command: not JSON is refused', r !== null, r);
  got = frames(2);
  check('refused commands: no ack, the game goes on', s.acks.length === nacks && L.liveRunning(),
        got.map((x) => x.type).join(' '));

  // a report: made on the Lua thread at the next mark, offered as a download
  // (in the page the file is in the module's memory file system)
  r = L.liveCommand({ cmd: 'report', format: 'csv', id: 11 });
  got = frames(2);
  const ack11 = got.find((x) => x.type === 'ack' && x.id === 11);
  check('command: a report, acknowledged with its download', r === null && ack11 && ack11.ok === true &&
        /^\/download\/\d+\/1$/.test(ack11.download) && ack11.format === 'csv', r || JSON.stringify(ack11));
  // its file, as the page reads it for the view's link: the csv report
  const dl1 = ack11 ? L.liveDownload(1) : null;
  const dl1Text = dl1 ? Buffer.from(dl1).toString('utf8') : '';
  check('download 1: the csv report\'s bytes', dl1 !== null && dl1Text.startsWith('name,source,') &&
        dl1Text.includes("Level.rebuild_navgrid"), dl1Text.slice(0, 120));
  check('download 2: none yet', L.liveDownload(2) === null && /no download 2/.test(L.error()), L.error());

  // ---- the end ---------------------------------------------------------------------
  check('stop', L.liveStop() === null && L.liveRunning() === false);
  const nmsgs = s.msgs.length;
  s.take(L.liveDrain());
  const last = s.msgs.slice(nmsgs);
  const stopped = last.filter((x) => x.type === 'status').pop();
  check('stop: the view is told collection stopped', stopped && stopped.collection === 'stopped',
        last.map((x) => x.type).join(' '));
  check('after stop: no tick', /no live session/.test(L.liveTick(1 / 60) || ''));
  const csv = L.report('csv') || '';
  check('after stop: the session\'s report', new RegExp('^' + PLANTED.replace('.', '\\.') + ',main\\.lua,', 'm').test(csv),
        csv.split('\n').slice(0, 3).join(' | '));

  const failing = 'local n = 0\nfunction tick(dt)\n  n = n + 1\n  if n == 5 then error("boom at " .. n) end\nend\n';
  check('a failing tick: starts', L.liveStart(failing, 'bad.lua') === null);
  let e = null, n = 0;
  while (e === null && n < 10) { e = L.liveTick(1 / 60); n++; }
  check('a failing tick: its error with a traceback, at its frame', n === 5 && /^bad\.lua:4: boom at 5\nstack traceback:/.test(e || ''),
        n + ': ' + e);
  check('a failing tick: the session ended', L.liveRunning() === false);
  check('os.exit(0) in tick ends it as a success', L.liveStart('return function () os.exit(0) end', 'e.lua') === null &&
        L.liveTick(1 / 60) === null && L.liveRunning() === false);
  L.free();
  check('after free: nothing to drain', L.liveDrain() === null);

  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}).catch((e) => { console.error(e); process.exit(1); });
