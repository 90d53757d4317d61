// host_api.js -- the C host's API (samples/wasm/, luainstr-web.js) in node:
// a script that spins for known durations is run and profiled, and each
// report format is read back and checked.
//
//   node tests/wasm/host_api.js BUILD_DIR
//
// The known answers are the script's own times: it times every call it
// checks with the profiler's clock (require "luainstr".clock), so a busy
// machine that stretches a spin stretches the answer too; the profile must
// agree within 5 % (or 2 ms: the probes' cost inside the script's spans,
// which the profile takes out).  A wrong attribution (time counted to the
// wrong function, lost, or counted twice) is off by far more.
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
// chunk, 2 from b); b spins 40 ms and calls a.  The script sums each
// function's calls as the caller sees them: T.a (all 5 calls of a), T.b,
// T.ba (the calls of a inside b), T.chunk (the chunk, first to last line).
const SPIN = `
local clock = os.clock
local now = require("luainstr").clock
local T = { a = 0, b = 0, ba = 0 }
local t_start = now()
local function spin(ms)
  local stop = clock() + ms / 1000
  while clock() < stop do end
end
local function a() spin(20) end
local function b() spin(40) local t = now() a() T.ba = T.ba + (now() - t) end
local t
for _ = 1, 3 do t = now() a() T.a = T.a + (now() - t) end
for _ = 1, 2 do t = now() b() T.b = T.b + (now() - t) end
T.a = T.a + T.ba
print("spun")
io.write("a", 1, "\\n")
print(("timed: a %d b %d ba %d chunk %d ns"):format(T.a, T.b, T.ba, now() - t_start))
`;

// got (ns) agrees with the script's own want (ns).
function near(want, got) {
  return Math.abs(got - want) <= Math.max(0.05 * want, 2e6);
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
  const out = output();
  const m = /^spun\na1\ntimed: a (\d+) b (\d+) ba (\d+) chunk (\d+) ns\n$/.exec(out);
  check('output captured', m !== null, JSON.stringify(out));
  const [tA, tB, tBA, tChunk] = m ? m.slice(1).map(Number) : [NaN, NaN, NaN, NaN];
  const csv = report('csv');
  check('csv report', csv !== null && csv.startsWith('name,source,line,'), error());
  const rows = parseCsv(csv || 'x\n');
  const byName = {};
  rows.forEach((r) => { byName[r.name] = r; });
  const a = byName['local a'], b = byName['local b'], main = byName['main chunk'];
  check('csv names the functions', a && b && main && byName['local spin'],
        rows.map((r) => r.name).join('; '));
  if (a && b && main) {
    check('a: 5 calls, source spin.lua:10', a.calls === '5' && a.source === 'spin.lua' && a.line === '10',
          JSON.stringify(a));
    check('b: 2 calls', b.calls === '2', JSON.stringify(b));
    const spin = byName['local spin'];
    const vs = (got, want) => `${(got / 1e6).toFixed(3)} ms, the script's ${(want / 1e6).toFixed(3)} ms`;
    check('a total (5 spins of 20 ms)', near(tA, +a.total_ns), vs(+a.total_ns, tA));
    check('b total (40 ms and a call of a)', near(tB, +b.total_ns), vs(+b.total_ns, tB));
    check('spin total (all 7 spins)', near(tA + tB - tBA, +spin.total_ns), vs(+spin.total_ns, tA + tB - tBA));
    // the chunk's own span also holds its loops and the probes' cost,
    // which the report takes out (summary overhead): 10 % here
    check('main total (the chunk)', Math.abs(+main.total_ns - tChunk) <= 0.1 * tChunk,
          vs(+main.total_ns, tChunk));
  }

  // --- json: the same figures, as a parser reads them ------------------------
  const json = report('json');
  let doc = null;
  try { doc = JSON.parse(json); } catch (e) { check('json parses', false, e.message); }
  if (doc) {
    check('json parses', true);
    const fns = JSON.stringify(doc);
    check('json names a, b, spin', ['local a', 'local b', 'local spin'].every((n) => fns.includes(`"${n}"`)));
    console.log(`     (clock ${doc.summary.clock}, probe pair ${doc.summary.probe_pair_ns} ns)`);
  }

  // --- text, html, folded ----------------------------------------------------
  check('text report', /luainstr profile:/.test(report('text') || ''), error());
  check('html report', /<html/i.test(report('html') || ''), error());
  const folded = report('folded') || '';
  check('folded has the path main;b;a', /main chunk \(spin\.lua\);local b \(spin\.lua:11\);local a \(spin\.lua:10\) \d+/.test(folded), folded);
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
