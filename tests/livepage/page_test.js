// page_test.js URL BROWSER TMPDIR PID [SCREENSHOT]: the live page of a
// program running live (samples/game --live), in headless Chromium over the
// DevTools protocol (tests/wasm/cdp.js).
//
//   1. URL#selftest: the page's own self-test (report/html.c, liveSelftest)
//      waits for frames and a spike bar, clicks it, records the flame graph
//      and table of that frame, goes back to the live table, asks for an
//      html report and fetches the download its ack offers; checked here:
//      frames arrived, the spike bar is red, the planted spike's culprit
//      (AI.rebuild_flow_field) is in the frame's tree with the most self
//      time of its functions, the report downloads (200, an html report);
//   2. URL again: Pause and Resume round-trip (the status the page shows
//      follows), the spike rule set from the page comes back in the status,
//      a screenshot with a spike open (SCREENSHOT, else TMPDIR/live.png);
//   3. SIGINT to PID (the program ends): the page says so and keeps what
//      it shows.
// No exception and no Content-Security-Policy report in the console.
// Exits 0 when every check passed.
'use strict';
const path = require('path');
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
  await page.goto(url + '#selftest');
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
  check(f['spike-top-function'] === SPIKE_FN, `${SPIKE_FN} has the most self time of the spike's functions (${f['spike-top-function']})`);
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
  // a spike open, for the screenshot
  await page.waitFor("document.querySelector('#spikes button') !== null", 60000);
  await sleep(1500);
  await page.eval("document.querySelector('#spikes button').click()");
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

(async () => {
  const b = await launch(browserPath, { userDataDir: path.join(tmp, 'chrome'), width: 1280, height: 1100 });
  try {
    await selftest(b);
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
