// host_api.js -- the C host's API (samples/wasm/, luainstr-web.js) in node:
// a script that spins for known durations is run and profiled, and each
// report format is read back and checked.
//
//   node tests/wasm/host_api.js BUILD_DIR
//
// Timing is checked loosely on purpose: a spin must show at least 80% and
// at most 3 times (plus 30 ms) its known duration.  The wasm clock and its
// calibration are not settled yet (clock_gettime is node's hrtime through
// emscripten), so these checks catch a wrong attribution (time counted to
// the wrong function, lost, or counted twice), not a few percent.
'use strict';
const path = require('path');

const build = process.argv[2];
if (!build) { console.error('usage: host_api.js BUILD_DIR'); process.exit(2); }
const factory = require(path.resolve(build, 'web', 'luainstr-web.js'));

let failed = 0, passed = 0;
function check(what, ok, detail) {
  if (ok) { passed++; console.log('ok   ' + what); }
  else { failed++; console.log('FAIL ' + what + (detail ? ': ' + detail : '')); }
}

// Known answers: a spins 20 ms a call and is called 5 times (3 from the main
// chunk, 2 from b); b spins 40 ms and calls a: self 80, total 120 ms.
const SPIN = `
local clock = os.clock
local function spin(ms)
  local stop = clock() + ms / 1000
  while clock() < stop do end
end
local function a() spin(20) end
local function b() spin(40) a() end
for _ = 1, 3 do a() end
b() b()
print("spun")
io.write("a", 1, "\\n")
`;

function near(ms, ns) {
  const got = ns / 1e6;
  return got >= 0.8 * ms && got <= 3 * ms + 30;
}

function parseCsv(text) {
  const lines = text.trim().split('\n');
  const head = lines.shift().split(',');
  return lines.map((l) => {
    const f = l.split(',');   // no quoted fields in these names
    const row = {};
    head.forEach((h, i) => { row[h] = f[i]; });
    return row;
  });
}

factory().then((M) => {
  const { run, output, report, setOption, error, free } = M.luainstr;

  check('report before any run fails', report('text') === null && /no run/.test(error()));
  check('unknown option is refused', /unknown option/.test(setOption('colour', 'on') || ''));

  // --- the known-answer run, csv --------------------------------------------
  check('run succeeds', run(SPIN, 'spin.lua') === null, error());
  check('output captured', output() === 'spun\na1\n', JSON.stringify(output()));
  const csv = report('csv');
  check('csv report', csv !== null && csv.startsWith('name,source,line,'), error());
  const rows = parseCsv(csv || 'x\n');
  const byName = {};
  rows.forEach((r) => { byName[r.name] = r; });
  const a = byName['local a'], b = byName['local b'], main = byName['main chunk'];
  check('csv names the functions', a && b && main && byName['local spin'],
        rows.map((r) => r.name).join('; '));
  if (a && b && main) {
    check('a: 5 calls, source spin.lua:7', a.calls === '5' && a.source === 'spin.lua' && a.line === '7',
          JSON.stringify(a));
    check('b: 2 calls', b.calls === '2', JSON.stringify(b));
    check('a total ~100 ms', near(100, +a.total_ns), a.total_ns);
    check('b total ~120 ms', near(120, +b.total_ns), b.total_ns);
    check('spin total ~180 ms', near(180, +byName['local spin'].total_ns), byName['local spin'].total_ns);
    check('main total ~220 ms', near(220, +main.total_ns), main.total_ns);
    check('main total >= b total + 3 a calls', +main.total_ns >= +b.total_ns + 0.8 * 60e6);
  }

  // --- json: the same figures, as a parser reads them ------------------------
  const json = report('json');
  let doc = null;
  try { doc = JSON.parse(json); } catch (e) { check('json parses', false, e.message); }
  if (doc) {
    check('json parses', true);
    const fns = JSON.stringify(doc);
    check('json names a, b, spin', ['local a', 'local b', 'local spin'].every((n) => fns.includes(`"${n}"`)));
  }

  // --- text, html, folded ----------------------------------------------------
  check('text report', /luainstr profile:/.test(report('text') || ''), error());
  check('html report', /<html/i.test(report('html') || ''), error());
  const folded = report('folded') || '';
  check('folded has the path main;b;a', /main chunk \(spin\.lua\);local b \(spin\.lua:8\);local a \(spin\.lua:7\) \d+/.test(folded), folded);
  check('unknown format fails', report('nope') === null && error() !== '');
  // (helper-pprof) the WebAssembly build has no protobuf-c: pprof says so
  check('pprof: not in this build', report('pprof') === null &&
        /pprof: this build has no protobuf-c/.test(error()), error());

  // --- chrome needs trace mode, asked before the run ----------------------------
  check('trace option accepted', setOption('trace', 'on') === null);
  check('traced run succeeds', run(SPIN, 'spin.lua') === null, error());
  let trace = null;
  try { trace = JSON.parse(report('chrome')); } catch (e) { check('chrome parses', false, e.message); }
  if (trace) {
    const ev = trace.traceEvents || [];
    const begins = ev.filter((e) => e.ph === 'B' && /local a/.test(e.name)).length;
    check('chrome: 5 begins of a', begins === 5, 'got ' + begins);
  }
  setOption('clear', null);

  // --- errors, os.exit, a fresh state each run ---------------------------------
  const err = run('local x = 1\nerror("boom")\n', 'bad.lua');
  check('runtime error message with traceback', /^bad\.lua:2: boom\nstack traceback:/.test(err || ''), err);
  check('report after a failed run', /main chunk/.test(report('csv') || ''));
  const syn = run('x = = 1', '=(web)');
  check('syntax error message', /^\(web\):1: unexpected symbol near '='/.test(syn || ''), syn);
  check('os.exit(0) is a success', run('print(1) os.exit(0) print(2)', 'e.lua') === null && output() === '1\n');
  check('os.exit(3) is an error', run('os.exit(3)', 'e.lua') === 'os.exit(3)');
  check('globals do not survive', run('assert(rawget(_G, "y") == nil) y = 1', 'g.lua') === null &&
        run('assert(rawget(_G, "y") == nil)', 'g.lua') === null, error());
  check('require of a module in the in-memory file system', (() => {
    M.FS.writeFile('/m.lua', 'return { f = function () return 42 end }');
    const e = run('local m = require "m"; print(m.f())', 'r.lua');
    return e === null && output() === '42\n' && /m\.lua/.test(report('csv'));
  })(), error());
  free();
  check('after free, no report', report('csv') === null);
  check('cwrap works too', M.cwrap('li_wasm_run', 'number', ['string', 'string'])('return', 'c.lua') === 0);

  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}).catch((e) => { console.error(e); process.exit(1); });
