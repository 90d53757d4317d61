// chromium.js -- runs an emscripten program built for the web (one .js
// file, the wasm inside: bench_host_web.js, clock_cost_web.js) in a page of
// headless Chromium, as `node PROGRAM.js ARGS...` runs the node build: its
// stdout and stderr here, its exit status ours.  bench/run.sh --wasm runs
// the bench's Chromium columns through it.
//
//   node chromium.js [--file] [--clock now|word] PROGRAM.js [ARGS...]
//
// Every ARG that names a file on disk is put into the page's in-memory file
// system at the same absolute path before main runs, so the program finds
// its script where node's NODERAWFS would.  The page is served by a server
// of this process on 127.0.0.1 with COOP/COEP headers (cross-origin
// isolated: performance.now() steps by 5 us, as a site that sets them gets;
// 100 us without); --file loads it from file:// instead (not isolated).
// --clock sets Module.luainstrClock, the profiler's clock in the page
// (cmake/wasm-clock.js; by default LUAINSTR_WASM_CLOCK of this process).
// Each run is a fresh browser (own profile directory), so that every run
// starts cold as a node process does.  Needs chromium (scripts/deps.sh).
'use strict';
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { launch } = require('../../tests/wasm/cdp');

function usage() {
  console.error('usage: chromium.js [--file] [--clock now|word] PROGRAM.js [ARGS...]');
  process.exit(2);
}

let argv = process.argv.slice(2);
let useFile = false, clock = process.env.LUAINSTR_WASM_CLOCK || '';
while (argv.length && argv[0].startsWith('--')) {
  const o = argv.shift();
  if (o === '--file') useFile = true;
  else if (o === '--clock' && argv.length) clock = argv.shift();
  else usage();
}
if (argv.length < 1) usage();
const program = path.resolve(argv[0]);
const args = argv.slice(1);
if (!fs.existsSync(program)) {
  console.error(`chromium.js: ${program} not found`);
  process.exit(2);
}
const browserPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser']
  .find((p) => fs.existsSync(p));
if (!browserPath) {
  console.error('chromium.js: no chromium (scripts/deps.sh installs it)');
  process.exit(2);
}

// The files the program is given, as [absolute path, base64 content].
const files = args.filter((a) => {
  try { return fs.statSync(a).isFile(); } catch (e) { return false; }
}).map((a) => [path.resolve(a), fs.readFileSync(a).toString('base64')]);
const progArgs = args.map((a) => (files.some(([p]) => p === path.resolve(a)) ? path.resolve(a) : a));

// The page: Module set up before the program's script, which runs main once
// loaded; its end (exit() or main's return) is reported in window.__done.
const page = `<!doctype html><html><body><script>
var __out = [], __err = [];
window.__done = null;
var Module = {
  arguments: ${JSON.stringify(progArgs)},
  luainstrClock: ${JSON.stringify(clock)},
  print: function (s) { __out.push(s); },
  printErr: function (s) { __err.push(s); },
  preRun: [function () {
    if (typeof FS === 'undefined') return;    // (a program with no files)
    // bench_host writes its report to /dev/null, which emscripten's
    // device cannot seek: a plain file of that name takes it
    FS.unlink('/dev/null');
    FS.writeFile('/dev/null', '');
    ${JSON.stringify(files)}.forEach(function (f) {
      var dir = f[0].substring(0, f[0].lastIndexOf('/'));
      if (dir) FS.mkdirTree(dir);
      var bin = atob(f[1]), bytes = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      FS.writeFile(f[0], bytes);
    });
  }],
  onExit: function (status) { window.__done = { status: status, out: __out, err: __err }; },
  onAbort: function (what) { __err.push('aborted: ' + what); window.__done = { status: 134, out: __out, err: __err }; }
};
window.addEventListener('error', function (e) {
  __err.push('error: ' + e.message);
  window.__done = window.__done || { status: 1, out: __out, err: __err };
});
window.addEventListener('unhandledrejection', function (e) {
  __err.push('error: ' + (e.reason && e.reason.message || e.reason));
  window.__done = window.__done || { status: 1, out: __out, err: __err };
});
</script><script src="program.js"></script></body></html>`;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'li-chromium-'));
  let server = null, b = null, status = 1;
  try {
    fs.writeFileSync(path.join(dir, 'index.html'), page);
    fs.copyFileSync(program, path.join(dir, 'program.js'));
    let url = 'file://' + path.join(dir, 'index.html');
    if (!useFile) {
      server = http.createServer((req, res) => {
        const name = req.url === '/program.js' ? 'program.js' : 'index.html';
        res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
        res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('Content-Type', name.endsWith('.js') ? 'text/javascript' : 'text/html');
        res.end(fs.readFileSync(path.join(dir, name)));
      });
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${server.address().port}/index.html`;
    }
    // V8's optimizing tier for all the wasm from the start, as bench/run.sh
    // runs node (--no-liftoff): V8 has no on-stack replacement for wasm, so
    // a program that is one long call of luaV_execute (plain: never
    // re-entered) would otherwise run all its life in the baseline tier,
    // while a profiled run re-enters it in the probe's calibration and runs
    // optimized code: full/plain read as low as 0.3 (issue 24).
    b = await launch(browserPath, { userDataDir: path.join(dir, 'profile'),
                                    args: ['--js-flags=--no-liftoff'] });
    const p = await b.newPage();
    await p.goto(url);
    // a run of the bench takes seconds to minutes on a busy machine
    await p.waitFor('window.__done !== null', 30 * 60 * 1000);
    const done = await p.eval('window.__done');
    if (done.out.length) process.stdout.write(done.out.join('\n') + '\n');
    if (done.err.length) process.stderr.write(done.err.join('\n') + '\n');
    status = done.status;
  } catch (e) {
    console.error('chromium.js: ' + e.message);
    status = 1;
  } finally {
    if (b) await b.close();
    if (server) server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.exit(status);
}
main();
