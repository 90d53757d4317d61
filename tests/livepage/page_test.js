// page_test.js URL BROWSER TMPDIR PID [SCREENSHOT]: the live page of a
// program running live (samples/game --live), in headless Chromium over the
// DevTools protocol (tests/wasm/cdp.js).
//
//   1. URL#selftest&open=AI.rebuild_flow_field: the page's own self-test
//      (report/html.c, liveSelftest) waits for frames, the table and the
//      spike bar whose tree gives that function the most self time, at
//      least 1 ms (the planted spike: on a busy machine other frames are
//      spikes too, some holding a short call of it), clicks it, records the flame graph
//      and table of that frame, goes back to the live table, asks for an
//      html report and fetches the download its ack offers; checked here:
//      frames arrived, the spike bar is red, the planted spike's culprit
//      (AI.rebuild_flow_field) is in the frame's tree with the most self
//      time of its functions, the report downloads (200, an html report);
//   2. URL again: Pause and Resume round-trip (the status the page shows
//      follows), the spike rule set from the page comes back in the status,
//      a screenshot with a spike open (SCREENSHOT, else TMPDIR/live.png);
//   3. URL#embed in an iframe of a blank page served from loopback by
//      tests/wasm/serve.py (the WebAssembly page's transport; a page of
//      about:blank may not frame a loopback address): protocol messages posted by the parent are shown (a
//      spike of the parent's frames in the list, its frames drawn), a
//      command clicked in the frame reaches the parent as {luainstr_cmd},
//      and a message the frame posts to itself is ignored;
//   4. SIGINT to PID (the program ends): the page says so and keeps what
//      it shows.
// No exception and no Content-Security-Policy report in the console.
// Exits 0 when every check passed.
'use strict';
const path = require('path');
const fs = require('fs');
const { spawn } = require('child_process');
const { launch } = require(path.join(__dirname, '..', 'wasm', 'cdp.js'));

const [url, browserPath, tmp, pidArg, shotArg] = process.argv.slice(2);
const pid = +pidArg;
let failures = 0;
function check(ok, what) {
  if (ok) console.log('ok: ' + what);
  else { failures++; console.log('FAIL: ' + what); }
}
function fields(text) {
  const f = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(': ');
    if (i > 0 && !(line.slice(0, i) in f)) f[line.slice(0, i)] = line.slice(i + 2);
  }
  return f;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const SPIKE_FN = 'AI.rebuild_flow_field';

async function selftest(b) {
  const page = await b.newPage();
  await page.goto(url + '#selftest&open=' + SPIKE_FN);
  await page.waitFor("/selftest: /.test(document.getElementById('selftest').textContent)", 150000);
  const st = await page.eval("document.getElementById('selftest').textContent");
  console.log(st.split('\n').map((l) => '  | ' + l).join('\n'));
  const f = fields(st);
  check(f.selftest === 'done', 'the self-test finished');
  check(f.connection === 'live', `connected (${f.connection})`);
  check(f.title === 'luainstr live' && f.scripts === '2' && f['foreign-elements'] === '0',
    'the page: its title, its two script elements, nothing foreign');
  check(+f['frames-received'] >= 30 && +f['fc-bars'] >= 30, `frames arrived and are drawn (${f['frames-received']} received, ${f['fc-bars']} bars)`);
  check(+f['fc-spike-bars'] >= 1 && / red$/.test(f['spike-pixel'] || ''), `a spike bar, drawn red (${f['fc-spikes']}; ${f['spike-pixel']})`);
  check(/^frame \d+$/.test(f['spike-view'] || '') && f['fc-spikes'].split('|').includes(f['spike-view'].slice(6)),
    `the click opened that frame's tree (${f['spike-view']})`);
  check(('|' + f['spike-frame-names'] + '|').includes('|' + SPIKE_FN + '|'), `${SPIKE_FN} in the spike's flame graph`);
  // (its planted work takes 14-28 ms here by the game's own stopwatch; the
  // function with the most self time is usually it, but a busy machine can
  // stall the game inside another function of that frame: shown, not judged)
  check(+f['spike-open-self-ns'] >= 1e6, `${SPIKE_FN}'s self time in the spike is its planted work (${f['spike-open-self-ns']} ns; most self time: ${f['spike-top-function']})`);
  check(+f['spike-root-ns'] >= +f['spike-duration-ns'] && +f['spike-duration-ns'] > 0, 'the root weighs the frame\'s duration');
  check(f['after-live-button'] === 'live' && +f['live-rows'] > 5 && ('|' + f['live-row-names'] + '|').includes('|AI.update|'),
    `back to the live table (${f['live-rows']} rows)`);
  check(/^— live, last \d+ s$/.test(f.window || ''), `the window of recent seconds (${f.window})`);
  check(/^ok html \/download\/\d+\/\d+\?token=/.test(f.ack || ''), `the report command's ack offers a download (${f.ack})`);
  check(/^200 \d+ bytes an html report$/.test(f.download || ''), `the download (${f.download})`);
  check(/Lua heap/.test(f['memory-info'] || ''), 'memory figures');
  check(/server: 1 clients/.test(f.counters || '') || /server: \d+ clients/.test(f.counters || ''), 'the server\'s counters');
  const bad = page.console.filter((m) => /^exception|Content.Security|Refused/i.test(m) || /^error/.test(m));
  check(bad.length === 0, 'no exception or policy violation in the console' + (bad.length ? ': ' + bad.join(' / ') : ''));
  await page.send('Page.close').catch(() => {});
}

async function commands(b) {
  const page = await b.newPage();
  await page.send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 1100, deviceScaleFactor: 1, mobile: false });
  await page.goto(url);
  const text = (id) => page.eval(`document.getElementById('${id}').textContent`);
  await page.waitFor("/collection running/.test(document.getElementById('lstatus').textContent)", 30000);
  await page.eval("document.getElementById('c-pause').click()");
  let ok = true;
  try { await page.waitFor("/collection paused/.test(document.getElementById('lstatus').textContent)", 10000); } catch (e) { ok = false; }
  check(ok, 'Pause: the status comes back paused');
  await page.eval("document.getElementById('c-resume').click()");
  ok = true;
  try { await page.waitFor("/collection running/.test(document.getElementById('lstatus').textContent)", 10000); } catch (e) { ok = false; }
  check(ok, 'Resume: running again');
  await page.eval("document.getElementById('rfactor').value = '3.5'; document.getElementById('rule').click()");
  ok = true;
  try { await page.waitFor("/over 3.5 x/.test(document.getElementById('lstatus').textContent)", 10000); } catch (e) { ok = false; }
  check(ok, 'the spike rule set from the page: ' + await text('lstatus'));
  console.log('  acks: ' + await page.eval("Array.prototype.map.call(document.querySelectorAll('#acks li'), function (l) { return l.textContent; }).join(' / ')"));
  // the planted spike open, for the screenshot
  const planted = "Array.prototype.filter.call(document.querySelectorAll('#spikes button'), " +
    `function (b) { return /most self time: ${SPIKE_FN}$/.test(b.textContent); })[0]`;
  await page.waitFor(planted + ' !== undefined', 60000);
  // the chart past the start (the first second's frames, slow while the
  // browser starts on a shared machine, would set its scale)
  await page.waitFor("+(/frame (\\d+)$/.exec(document.getElementById('hdr').textContent) || [0, 0])[1] >= 420", 30000);
  await page.eval(planted + '.click()');
  await sleep(700);
  const shot = shotArg || path.join(tmp, 'live.png');
  await page.screenshot(shot);
  console.log('  screenshot: ' + shot);
  // the program ends: the page says so and keeps what it shows
  const spikes = await page.eval("document.querySelectorAll('#spikes li').length");
  process.kill(pid, 'SIGINT');
  ok = true;
  try { await page.waitFor("/ended|closed/.test(document.getElementById('conn').textContent)", 30000); } catch (e) { ok = false; }
  const conn = await text('conn');
  check(ok, `the page says the program ended (${conn})`);
  const after = await page.eval("document.querySelectorAll('#spikes li').length");
  const rows = await page.eval("document.querySelectorAll('#rows tr').length");
  check(after >= spikes && spikes > 0 && rows > 0, `it keeps what it showed (${after} spikes, ${rows} rows)`);
  const bad = page.console.filter((m) => /^exception|Content.Security|Refused/i.test(m));
  check(bad.length === 0, 'no exception or policy violation in the console' + (bad.length ? ': ' + bad.join(' / ') : ''));
}

// Evaluates an expression in the (cross-origin) child frame of page.
async function inFrame(page, expression) {
  const { frameTree } = await page.send('Page.getFrameTree');
  const child = (frameTree.childFrames || [])[0];
  if (!child) throw new Error('no child frame');
  const { executionContextId } = await page.send('Page.createIsolatedWorld',
    { frameId: child.frame.id, worldName: 'page_test' });
  const r = await page.send('Runtime.evaluate',
    { expression, contextId: executionContextId, returnByValue: true, awaitPromise: true });
  if (r.exceptionDetails) throw new Error('frame eval: ' + (r.exceptionDetails.exception?.description || r.exceptionDetails.text));
  return r.result.value;
}
async function frameWait(page, expression, ms) {
  const end = Date.now() + ms;
  while (!(await inFrame(page, expression))) {
    if (Date.now() > end) return false;
    await sleep(100);
  }
  return true;
}

// A blank page on loopback (serve.py at a free port): its URL, and the server.
async function blankPage() {
  const dir = path.join(tmp, 'parent');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), '<!DOCTYPE html><title>parent</title><body></body>\n');
  const srv = spawn('python3', [path.join(__dirname, '..', 'wasm', 'serve.py'), dir], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    srv.stdout.on('data', (d) => {
      out += d;
      const m = /port (\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    srv.on('exit', () => reject(new Error('serve.py exited')));
  });
  return { url: `http://127.0.0.1:${port}/index.html`, srv };
}

async function embed(b) {
  const page = await b.newPage();
  const parent = await blankPage();
  try { await embedIn(page, parent.url); } finally { parent.srv.kill(); }
}
async function embedIn(page, parentUrl) {
  await page.goto(parentUrl);
  await page.eval(`new Promise(function (resolve) {
    window.got = [];
    window.addEventListener('message', function (e) { window.got.push(e.data); });
    var f = document.createElement('iframe');
    f.id = 'lv'; f.style.width = '1200px'; f.style.height = '800px';
    f.onload = function () { resolve(true); };
    f.src = ${JSON.stringify(url + '#embed')};
    document.body.appendChild(f);
  })`);
  const S = 7, frames = [];
  for (let i = 1; i <= 40; i++)
    frames.push({ index: i, t_ns: i * 16.7e6, duration_ns: i === 35 ? 9e6 : 2e6, busy_ns: i === 35 ? 9e6 : 2e6,
      idle_ns: 0, calls: 10, alloc_bytes: 0, spike: i === 35, lost: 0 });
  const msgs = [
    { type: 'hello', state: S, lua: 'Lua 5.4', frames: true, memory: false, ns_per_tick: 1 },
    { type: 'status', state: S, collection: 'running', frames: true, memory: false, spike_factor: 2,
      spike_ms: 0, spikes_keep: 16, lost: 0 },
    { type: 'functions', state: S, functions: [
      { id: 0, name: 'main chunk', source: 'page.lua', line: 0, lastline: 0, zone: 0 },
      { id: 1, name: 'Embedded.hot', source: 'page.lua', line: 3, lastline: 9, zone: 0 }] },
    { type: 'frames', state: S, frames },
    { type: 'spike', state: S, index: 35, duration_ns: 9e6, busy_ns: 9e6,
      tree: [[-1, -1, 0, 0, 0, 0], [0, 0, 1, 9e6, 1e6, 0], [1, 1, 1, 8e6, 8e6, 0]] },
    { type: 'table', state: S, t_ns: 40 * 16.7e6, rows: [[0, 40, 4e7, 8e7, 0, 0], [1, 40, 4e7, 4e7, 0, 0]] },
  ];
  await page.eval(`document.getElementById('lv').contentWindow.postMessage({ luainstr_live: ${JSON.stringify(msgs)} }, '*'), true`);
  const shown = await frameWait(page, "/most self time: Embedded.hot$/.test((document.querySelector('#spikes button') || {}).textContent || '')", 10000);
  check(shown, 'embedded: the parent\'s spike is listed');
  const hint = await inFrame(page, "document.getElementById('frhint').textContent");
  check(/\(40 received\)/.test(hint), 'embedded: the parent\'s 40 frames drawn');
  check(/^live/.test(await inFrame(page, "document.getElementById('conn').textContent")), 'embedded: says it is live');
  await inFrame(page, "document.querySelector('#spikes button').click(); document.getElementById('c-pause').click(); true");
  const rows = await inFrame(page, "document.querySelector('#rows tr td').textContent");
  check(rows === 'Embedded.hot', `embedded: the spike's table (${rows})`);
  let got = [];
  for (let i = 0; i < 50 && got.length === 0; i++) { await sleep(100); got = await page.eval('window.got'); }
  check(got.length === 1 && got[0].luainstr_cmd && got[0].luainstr_cmd.cmd === 'pause' && got[0].luainstr_cmd.state === S,
    'embedded: Pause posts {luainstr_cmd} to the parent: ' + JSON.stringify(got));
  // a message from the frame itself, not its parent, is ignored
  await inFrame(page, `window.postMessage({ luainstr_live: [{ type: 'hello', state: ${S}, lua: 'Forged', frames: true, memory: false }] }, '*'); true`);
  await sleep(500);
  const hdr = await inFrame(page, "document.getElementById('hdr').textContent");
  check(/^Lua 5\.4/.test(hdr), `embedded: a message not from the parent is ignored (${hdr})`);
  await page.send('Page.close').catch(() => {});
}

(async () => {
  const b = await launch(browserPath, { userDataDir: path.join(tmp, 'chrome'), width: 1280, height: 1100 });
  try {
    await selftest(b);
    await embed(b);
    await commands(b);
  } catch (e) {
    failures++;
    console.log('FAIL: ' + e.message);
  } finally {
    await b.close();
  }
  console.log(failures === 0 ? 'page_test: all passed' : `page_test: ${failures} failure(s)`);
  process.exit(failures === 0 ? 0 : 1);
})();
