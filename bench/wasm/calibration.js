// calibration.js -- how much the probe pair's calibration moves from one
// load of the module to the next: the web host (luainstr-web.js) loaded N
// times, in headless Chromium (a fresh browser each time, from a server
// with COOP/COEP, cross-origin isolated, and from file://) and in node (a
// fresh process each time); each load profiles a short script and reads
// the json report's summary.probe_pair_ns (the calibration of that load).
// Each load runs it twice (the second in a warm engine).  Prints every
// value, then min, median, max and the spread (max/min - 1), and the
// rounds of the load farthest from the median: each round's pair figure
// (probed less plain, over the calls, ns), what the calibration saw
// (runtime/calibrate.c gives them to Module.liCalTrace); --rounds prints
// every load's.  LUAINSTR_WASM_CLOCK=now|word chooses the clock
// (cmake/wasm-clock.js); LUAINSTR_CAL_FLAGS, more Chromium switches (the
// control: --js-flags=--no-liftoff).
//
//   node calibration.js [--rounds] MODULE.js [N] [chromium|node|all]
//                                               (default 10, all)
'use strict';
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { launch } = require('../../tests/wasm/cdp');

const argv = process.argv.slice(2);
const allRounds = argv[0] === '--rounds';
if (allRounds) argv.shift();
const [moduleArg, nArg, whereArg] = argv;
if (!moduleArg) {
  console.error('usage: calibration.js [--rounds] MODULE.js [N] [chromium|node|all]');
  process.exit(2);
}
const modulePath = path.resolve(moduleArg);
const N = Number(nArg || 10);
const where = whereArg || 'all';

const SCRIPT = 'local function f(n) if n < 2 then return n end return f(n-1) + f(n-2) end print(f(18))';
// What one load does, in the page or in node: run SCRIPT, give back the
// summary's calibration.
// Twice: the first run calibrates in a cold engine, the second (a fresh
// state, calibrated again) in one that has compiled the hot code.
const RUN = `(function (M) {
  var r = [], rounds = [];
  for (var i = 0; i < 2; i++) {
    M.liCalTrace = [];
    var err = M.luainstr.run(${JSON.stringify(SCRIPT)}, 'cal.lua');
    if (err) throw new Error(err);
    var s = JSON.parse(M.luainstr.report('json')).summary;
    r.push(s.probe_pair_ns);
    rounds.push(M.liCalTrace);
  }
  return { pair: r[0], pair2: r[1], clock: s.clock, rounds: rounds };
})`;
// The factory's argument: the clock (cmake/wasm-clock.js), as
// LUAINSTR_WASM_CLOCK says.
const ARG = JSON.stringify({ luainstrClock: process.env.LUAINSTR_WASM_CLOCK || '' });
const flags = (process.env.LUAINSTR_CAL_FLAGS || '').split(' ').filter((f) => f);

// A load's rounds, one line: each round's pair figure, ns (a round whose
// plain run read longer than its probed one shows negative), "|" where the
// rounds were sized again, and the calls a round at the end.
function roundsLine(t) {
  if (!t || t.length === 0) return '(no rounds: a build without Module.liCalTrace)';
  let out = '', calls = t[0][2];
  for (const [plain, probed, c] of t) {
    if (c !== calls) { out += '| '; calls = c; }
    out += ((probed - plain) / c).toFixed(0) + ' ';
  }
  return `${t.length} rounds of ${calls} calls: ${out.trim()}`;
}

// v: the loads' figures; rounds: each load's rounds.
function stats(name, v, rounds) {
  const s = v.slice().sort((a, b) => a - b);
  const med = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  console.log(`${name}: ${v.map((x) => x.toFixed(0)).join(' ')} ns`);
  console.log(`  min ${s[0].toFixed(0)} median ${med.toFixed(0)} max ${s[s.length - 1].toFixed(0)} ns, ` +
              `spread (max/min - 1) ${((s[s.length - 1] / s[0] - 1) * 100).toFixed(1)} %`);
  let far = 0;
  v.forEach((x, i) => { if (Math.abs(x - med) > Math.abs(v[far] - med)) far = i; });
  v.forEach((x, i) => {
    if (allRounds || i === far)
      console.log(`    load ${i + 1} (${x.toFixed(0)} ns), ${roundsLine(rounds[i])}`);
  });
}

async function chromium(isolated) {
  const browserPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
  if (!browserPath) throw new Error('no chromium');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'li-cal-'));
  fs.copyFileSync(modulePath, path.join(dir, 'm.js'));
  fs.writeFileSync(path.join(dir, 'index.html'),
    '<!doctype html><html><body><script src="m.js"></script></body></html>');
  let server = null, url = 'file://' + path.join(dir, 'index.html');
  if (isolated) {
    server = http.createServer((req, res) => {
      const name = req.url === '/m.js' ? 'm.js' : 'index.html';
      res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Type', name === 'm.js' ? 'text/javascript' : 'text/html');
      res.end(fs.readFileSync(path.join(dir, name)));
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${server.address().port}/index.html`;
  }
  const v = [], v2 = [], t = [], t2 = [];
  let clock = '';
  try {
    for (let i = 0; i < N; i++) {
      const b = await launch(browserPath, { userDataDir: path.join(dir, 'profile' + i), args: flags });
      try {
        const p = await b.newPage();
        await p.goto(url);
        const r = await p.eval(`LuainstrWeb(${ARG}).then(${RUN})`);
        v.push(r.pair);
        v2.push(r.pair2);
        t.push(r.rounds[0]);
        t2.push(r.rounds[1]);
        clock = r.clock;
      } finally {
        await b.close();
      }
    }
  } finally {
    if (server) server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  stats(`chromium ${isolated ? 'cross-origin isolated' : 'file://'} (${clock})` +
        `${flags.length ? ' ' + flags.join(' ') : ''}, first run`, v, t);
  stats(`  second run in the same page`, v2, t2);
}

function node() {
  const v = [], v2 = [], t = [], t2 = [];
  let clock = '';
  for (let i = 0; i < N; i++) {
    const out = execFileSync(process.execPath, ['-e',
      `require(${JSON.stringify(modulePath)})().then(${RUN}).then((r) => console.log(JSON.stringify(r)))`]);
    const r = JSON.parse(out.toString().trim().split('\n').pop());
    v.push(r.pair);
    v2.push(r.pair2);
    t.push(r.rounds[0]);
    t2.push(r.rounds[1]);
    clock = r.clock;
  }
  stats(`node (${clock}), first run`, v, t);
  stats(`  second run in the same process`, v2, t2);
}

(async () => {
  if (where === 'node' || where === 'all') node();
  if (where === 'chromium' || where === 'all') {
    await chromium(true);
    await chromium(false);
  }
})().catch((e) => { console.error('calibration.js: ' + e.message); process.exit(1); });
