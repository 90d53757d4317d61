// states_test.js MULTISTATE BROWSER TMPDIR: several Lua states of one
// process in the live page, in headless Chromium over the DevTools protocol
// (tests/wasm/cdp.js).
//
// MULTISTATE (tests/live/multistate.c) runs 3 states on 3 threads, each
// attached to the one live server (port 0), until told to end:
//     multistate 127.0.0.1:0 3 0 60
// State k is named state-k; each frame it calls its own state_k_update k
// times, so a frame's calls and the table's functions say whose they are.
// The page at the printed URL:
//   1. lists every state by name (and the process's pid) in its chooser;
//   2. shows the state chosen there: the one it shows first, then each
//      other chosen in turn: the header names it, the table holds its
//      update function and no other state's, the frames' tooltips count its
//      calls, its frames keep coming;
//   3. Pause, clicked with the last of them chosen (the target), reaches
//      the target only: its status comes back paused, the others' stay
//      running (chosen in turn, their frames still advance); Resume brings
//      the target back;
//   4. Heap snapshot, clicked with the target chosen: the ack's download
//      link fetches a .heapsnapshot (its name) that parses as JSON with
//      snapshot.meta, of the target's heap (its function, not the others');
//   5. a line on MULTISTATE's stdin ends the games: the page says the state
//      ended, the process exits 0 and every state counted its marks.
// No exception and no Content-Security-Policy report in the console.
// Exits 0 when every check passed.
'use strict';
const path = require('path');
const { spawn } = require('child_process');
const { launch } = require(path.join(__dirname, '..', 'wasm', 'cdp.js'));

const [multi, browserPath, tmp] = process.argv.slice(2);
const N = 3;
const WAIT = 30000;        // ms: the most any single wait may take
let failures = 0;
function check(ok, what) {
  if (ok) console.log('ok: ' + what);
  else { failures++; console.log('FAIL: ' + what); }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// --- the program ------------------------------------------------------------
const proc = spawn(multi, ['127.0.0.1:0', String(N), '0', '60'], { stdio: ['pipe', 'pipe', 'pipe'] });
const out = { stdout: '', stderr: '' };
proc.stdout.on('data', (d) => { out.stdout += d; });
proc.stderr.on('data', (d) => { out.stderr += d; });
const exited = new Promise((resolve) => proc.on('exit', (code, sig) => resolve(code === null ? sig : code)));
let exitStatus;
exited.then((s) => { exitStatus = s; });
async function waitOutput(which, re, what) {
  const end = Date.now() + WAIT;
  for (;;) {
    const m = re.exec(out[which]);
    if (m) return m;
    if (exitStatus !== undefined || Date.now() > end)
      throw new Error(`${what}: ${exitStatus !== undefined ? 'the program ended first' : 'not within ' + WAIT / 1000 + ' s'}` +
        ` (stderr: ${out.stderr.trim()})`);
    await sleep(50);
  }
}

// --- the page ---------------------------------------------------------------
const byId = (id) => `document.getElementById('${id}')`;
const text = (page, id) => page.eval(`${byId(id)}.textContent`);
async function waitFor(page, expression, what) {
  try {
    await page.waitFor(expression, WAIT);
    return true;
  } catch (e) {
    console.log(`  (${what}: waited ${WAIT / 1000} s; header '${await text(page, 'hdr')}', status '${await text(page, 'lstatus')}')`);
    return false;
  }
}
// the frame index the header shows (0: none yet)
const frameShown = `+((/, frame (\\d+)$/.exec(${byId('hdr')}.textContent) || [0, 0])[1])`;
// the names in the live table's first column
const rowNames = `Array.prototype.map.call(document.querySelectorAll('#rows tr'), function (tr) {
  return tr.firstElementChild ? tr.firstElementChild.textContent : ''; })`;

// Chooses state NAME in the page's chooser, as a user does (the change
// event); its option's value (the state's id).
async function choose(page, name) {
  const id = await page.eval(`(function () {
    var sel = ${byId('lstate')};
    for (var q = 0; q < sel.options.length; q++)
      if (sel.options[q].textContent.indexOf(${JSON.stringify(name + ' (')}) === 0) {
        sel.value = sel.options[q].value;
        sel.dispatchEvent(new Event('change', { bubbles: true }));
        return sel.options[q].value;
      }
    return null;
  })()`);
  if (id === null) throw new Error(`no ${name} in the chooser`);
  return id;
}

// The tooltips of bars across the frame chart: [{frame, calls}].
function hoverBars(page) {
  return page.eval(`(function () {
    var frc = ${byId('frc')}, tip = ${byId('tip')}, r = frc.getBoundingClientRect(), got = [];
    for (var q = 1; q <= 8; q++) {
      frc.dispatchEvent(new MouseEvent('mousemove', { bubbles: true,
        clientX: r.left + r.width * q / 9, clientY: r.bottom - 2 }));
      var t = tip.style.display === 'block' ? tip.textContent : '';
      var f = /^frame (\\d+)/.exec(t), c = /calls +(\\d+)/.exec(t);
      if (f && c) got.push({ frame: +f[1], calls: +c[1] });
    }
    frc.dispatchEvent(new MouseEvent('mouseleave'));
    return got;
  })()`);
}

// State k shown (after choosing it, unless it is shown already): the
// header names it, the table holds its function and no other state's, the
// frames are its own, they advance.
async function shows(page, k, chosen) {
  const name = `state-${k}`, fn = `state_${k}_update`;
  if (chosen) await choose(page, name);
  const named = await waitFor(page, `/ ${name} \\(pid \\d+\\), frame \\d+$/.test(${byId('hdr')}.textContent) && ` +
    `${byId('lstate')}.selectedOptions[0].textContent.indexOf('${name} (') === 0`, `${name} in the header`);
  check(named, `${name} ${chosen ? 'chosen' : 'shown first'}: the header names it (${await text(page, 'hdr')})`);
  const tabled = await waitFor(page, `${rowNames}.some(function (n) { return n.indexOf('${fn}') >= 0; })`,
    `${fn} in the table`);
  const names = await page.eval(rowNames);
  const others = names.filter((n) => /state_\d+_update/.test(n) && n.indexOf(fn) < 0);
  check(tabled && others.length === 0, `${name}: the table holds ${fn} and no other state's (${names.join(', ')})`);
  // the frames drawn are this state's: k + 1 entries a frame, its k calls
  // and the idle span (wait()'s, an entry of its own); frame 1 holds the
  // main chunk's entry too
  await waitFor(page, `${frameShown} > 30`, `${name}'s frames`);
  const bars = (await hoverBars(page)).filter((b) => b.frame > 1);
  check(bars.length >= 4 && bars.every((b) => b.calls === k + 1),
    `${name}: the frames drawn are its own, ${k} calls and the idle span each (${bars.map((b) => `frame ${b.frame}: ${b.calls}`).join(', ')})`);
  return name;
}

// The status shown for state NAME, once it has come (after choosing it).
async function statusOf(page, name) {
  await choose(page, name);
  await waitFor(page, `/ ${name} \\(pid/.test(${byId('hdr')}.textContent) && /^collection /.test(${byId('lstatus')}.textContent)`,
    `${name}'s status`);
  return /^collection (\w+)/.exec(await text(page, 'lstatus'))?.[1] || '-';
}

// The ack line the page shows first, once it is about WHAT.
async function ackOf(page, what) {
  await waitFor(page, `/^${what}: /.test((${byId('acks')}.firstChild || {}).textContent || '')`, `the ${what} ack`);
  return page.eval(`(function () {
    var li = ${byId('acks')}.firstChild, a = li ? li.querySelector('a') : null;
    return { text: li ? li.textContent : '', href: a ? a.getAttribute('href') : null,
      download: a ? a.hasAttribute('download') : false };
  })()`);
}

async function run(b, url, pid) {
  const page = await b.newPage();
  await page.send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 1100, deviceScaleFactor: 1, mobile: false });
  await page.goto(url);

  // 1. every state listed by name
  await waitFor(page, `${byId('lstate')}.options.length >= ${N} && /^collection /.test(${byId('lstatus')}.textContent)`,
    'the states listed');
  const opts = await page.eval(`Array.prototype.map.call(${byId('lstate')}.options, function (o) { return o.textContent; })`);
  console.log('  chooser: ' + opts.join(' / '));
  const listed = opts.map((o) => /^(state-\d+) \(pid (\d+), state \d+\)$/.exec(o));
  check(opts.length === N && listed.every((m) => m && +m[2] === pid) &&
    listed.map((m) => m[1]).sort().join() === [1, 2, 3].map((k) => `state-${k}`).join(),
  `the chooser lists the ${N} states by name, of pid ${pid}`);
  check(/^live$/.test(await text(page, 'conn')), `connected (${await text(page, 'conn')})`);

  // 2. the state shown first (the first listed), then each other chosen
  const first = +/^state-(\d+) /.exec(await page.eval(`${byId('lstate')}.selectedOptions[0].textContent`))[1];
  const order = [first].concat([1, 2, 3].filter((k) => k !== first));
  console.log('  shown first: state-' + first);
  for (const k of order) await shows(page, k, k !== first);

  // 3. Pause with the target chosen: the target only
  const target = order[N - 1], tname = `state-${target}`;
  await page.eval(`${byId('c-pause')}.click()`);
  const ack = await ackOf(page, 'pause');
  check(/^pause: done$/.test(ack.text), `the pause ack (${ack.text})`);
  check(await waitFor(page, `/^collection paused/.test(${byId('lstatus')}.textContent)`, `${tname} paused`),
    `${tname} paused: ${await text(page, 'lstatus')}`);
  for (const k of order.slice(0, N - 1)) {
    const st = await statusOf(page, `state-${k}`);
    const before = await page.eval(frameShown);
    const moving = await waitFor(page, `${frameShown} > ${before + 10}`, `state-${k}'s frames advancing`);
    check(st === 'running' && moving, `state-${k} still running (${st}; frames past ${before}: ${await page.eval(frameShown)})`);
  }
  check(await statusOf(page, tname) === 'paused', `${tname} still paused when chosen again`);
  await page.eval(`${byId('c-resume')}.click()`);
  check(await waitFor(page, `/^collection running/.test(${byId('lstatus')}.textContent)`, `${tname} resumed`),
    `Resume: ${tname} running again (${await text(page, 'lstatus')})`);

  // 4. a heap snapshot of the target, downloaded through its ack's link
  await page.eval(`${byId('snapgc')}.checked = true; ${byId('snap')}.click()`);
  const snap = await ackOf(page, 'heap snapshot');
  check(/^heap snapshot: done download \(heapsnapshot\)$/.test(snap.text) && snap.download &&
    /^\/download\/\d+\/\d+\?token=[0-9a-f]{32}$/.test(snap.href || ''),
  `the snapshot's ack offers a download (${snap.text}; ${snap.href})`);
  if (snap.href) {
    const got = await page.eval(`fetch(${JSON.stringify(snap.href)}).then(function (r) {
      return r.text().then(function (body) {
        var res = { status: r.status, disposition: r.headers.get('content-disposition') || '', bytes: body.length };
        try {
          var j = JSON.parse(body), s = j.snapshot || {};
          res.meta = s.meta ? Object.keys(s.meta) : null;
          res.nodes = s.node_count;
          res.fields = s.meta && Array.isArray(s.meta.node_fields) ? s.meta.node_fields.length : 0;
          res.nodeValues = Array.isArray(j.nodes) ? j.nodes.length : -1;
          var str = Array.isArray(j.strings) ? j.strings : [];
          res.own = str.some(function (x) { return x.indexOf('state_${target}_update') >= 0; });
          res.others = str.filter(function (x) {
            return /state_\\d+_update/.test(x) && x.indexOf('state_${target}_update') < 0; });
        } catch (e) { res.error = e.message; }
        return res;
      });
    }, function (e) { return { error: 'fetch: ' + e.message }; })`);
    console.log('  snapshot: ' + JSON.stringify(got));
    check(got.status === 200 && /filename="?[^"]*\.heapsnapshot"?/.test(got.disposition),
      `the download is a .heapsnapshot (${got.status}, ${got.disposition})`);
    check(!got.error && Array.isArray(got.meta) && got.meta.includes('node_fields') && got.nodes > 0 &&
      got.fields > 0 && got.nodeValues === got.nodes * got.fields,
    `it parses as JSON with snapshot.meta (${got.error || got.nodes + ' nodes of ' + got.fields + ' fields'})`);
    check(got.own && got.others && got.others.length === 0,
      `it is ${tname}'s heap: its function, no other state's (${got.others ? got.others.join(', ') : '-'})`);
  }

  // 5. the games end
  proc.stdin.write('quit\n');
  check(await waitFor(page, `/ended/.test(${byId('conn')}.textContent)`, 'the end'),
    `the page says the state ended (${await text(page, 'conn')})`);
  const bad = page.console.filter((m) => /^exception|Content.Security|Refused/i.test(m) || /^error/.test(m));
  check(bad.length === 0, 'no exception or policy violation in the console' + (bad.length ? ': ' + bad.join(' / ') : ''));
}

(async () => {
  let b = null;
  try {
    const url = (await waitOutput('stderr', /^luainstr: live view at (\S+)$/m, "the live view's URL"))[1];
    console.log('url: ' + url);
    check(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*\/\?token=[0-9a-f]{32}$/.test(url), 'the URL: loopback, a port, 32 hex digits of token');
    await waitOutput('stderr', new RegExp(`^multistate: ${N} states attached$`, 'm'), 'the states attached');
    proc.stdin.write('go\n');
    b = await launch(browserPath, { userDataDir: path.join(tmp, 'chrome'), width: 1280, height: 1100 });
    await run(b, url, proc.pid);
  } catch (e) {
    failures++;
    console.log('FAIL: ' + e.message);
  } finally {
    if (b) await b.close();
  }
  // the program: ends on the line (sent above) or the end of its stdin
  proc.stdin.end();
  const t = setTimeout(() => proc.kill('SIGTERM'), WAIT);
  const st = await exited;
  clearTimeout(t);
  check(st === 0, `the program exited 0 (${st})`);
  for (let k = 1; k <= N; k++) {
    const m = new RegExp(`^multistate: state-${k} marks=(\\d+)$`, 'm').exec(out.stdout);
    check(m && +m[1] > 30, `state-${k} ran and ended (${m ? m[0] : 'no marks line'})`);
  }
  const others = out.stderr.split('\n').filter((l) => l && !/^luainstr: live view at |^luainstr: live: |^multistate: \d+ states attached$/.test(l));
  check(others.length === 0, 'nothing else on stderr' + (others.length ? ': ' + others.join(' / ') : ''));
  console.log(failures === 0 ? 'states_test: all passed' : `states_test: ${failures} failure(s)`);
  process.exit(failures === 0 ? 0 : 1);
})();
