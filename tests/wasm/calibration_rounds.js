// calibration_rounds.js -- the probe pair's calibration in WebAssembly
// (runtime/calibrate.c) read back from its own rounds, in node: the web
// host (luainstr-web.js) runs a short script in two fresh states, each of
// which calibrates; Module.liCalTrace receives every round (ticks of the
// plain and the probed run, their calls), and the report's
// summary.probe_pair_ns must be what the rounds give (of the start's
// measurement and the report's, the least): the least, over
// every window of 16 rounds since the rounds were last sized, of the
// window's fastest probed round less its fastest plain one, over the
// calls; and the rounds went on for the minimum (64).  No timing is
// asserted: whatever the machine did, the figure must follow from the
// rounds it saw.
//
//   node tests/wasm/calibration_rounds.js BUILD_DIR
'use strict';
const path = require('path');

const build = process.argv[2];
if (!build) { console.error('usage: calibration_rounds.js BUILD_DIR'); process.exit(2); }
const factory = require(path.resolve(build, 'web', 'luainstr-web.js'));

const WINDOW = 16, MIN_ROUNDS = 64;
const SCRIPT = 'local function f(n) if n < 2 then return n end return f(n-1) + f(n-2) end print(f(15))';

let failed = 0, passed = 0;
function check(what, ok, detail) {
  if (ok) { passed++; console.log('ok   ' + what); }
  else { failed++; console.log('FAIL ' + what + (detail ? ': ' + detail : '')); }
}

// The figure the rounds give (ns: the wasm clock's ticks are ns), and the
// rounds of the last sizing, of one measurement.
function fromRounds(t) {
  const calls = t[t.length - 1][2];
  let first = t.length;
  while (first > 0 && t[first - 1][2] === calls) first--;
  const last = t.slice(first);
  let best = Infinity;
  for (let end = WINDOW; end <= last.length; end++) {
    const w = last.slice(end - WINDOW, end);
    const plain = Math.min(...w.map((r) => r[0])), probed = Math.min(...w.map((r) => r[1]));
    best = Math.min(best, Math.floor(Math.max(probed - plain, 0) / calls));
  }
  return { best, last, calls };
}

factory().then((M) => {
  for (const run of ['first', 'second']) {
    M.liCalTrace = [];
    const err = M.luainstr.run(SCRIPT, 'cal.lua');
    check(`${run} run: the script runs`, !err, err);
    let s = null;
    try { s = JSON.parse(M.luainstr.report('json')).summary; } catch (e) {
      check(`${run} run: json report`, false, e.message);
      continue;
    }
    const t = M.liCalTrace;
    check(`${run} run: the rounds were given to Module.liCalTrace`, t.length >= WINDOW,
          `${t.length} rounds`);
    if (t.length < WINDOW) continue;
    // the report measures again and keeps the least (round[4]: which
    // measurement, 0 the start's)
    const first = fromRounds(t.filter((r) => r[4] === 0));
    const again = t.filter((r) => r[4] > 0);
    check(`${run} run: the report measured again`, again.length >= WINDOW, `${again.length} rounds`);
    const { last, calls } = first;
    const best = again.length >= WINDOW ? Math.min(first.best, fromRounds(again).best) : first.best;
    check(`${run} run: at least ${MIN_ROUNDS} rounds`, last.length >= MIN_ROUNDS,
          `${last.length} rounds of ${calls} calls`);
    check(`${run} run: probe_pair_ns is the least window's fastest probed less fastest plain`,
          s.probe_pair_ns === best, `report ${s.probe_pair_ns} ns, rounds ${best} ns`);
    const per = last.map((r) => (r[1] - r[0]) / r[2]).sort((a, b) => a - b);
    const median = per[per.length >> 1];
    console.log(`     (${last.length} rounds of ${calls} calls, ${t.filter((r) => r[4] === 0).length - last.length} before ` +
                `they were last sized; pair ${s.probe_pair_ns} ns, median round ${median.toFixed(0)} ns)`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}).catch((e) => { console.error('calibration_rounds.js: ' + (e && e.stack || e)); process.exit(1); });
