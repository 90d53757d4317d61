// app.js -- the page: runs the editor's Lua script in luainstr-web.js (the
// WebAssembly build of luainstr + Lua 5.4, samples/wasm/), shows what it
// printed, shows the profile as luainstr's own html report in an iframe, and
// offers the run's Chrome trace as a download.  Live runs the script's
// tick(dt) on every requestAnimationFrame instead, with the live view (the
// html report's application in live mode) in a frame of its own, fed by
// postMessage (docs/live-protocol.md, "In the browser without a server").
//
// Everything runs on the page's thread: a Worker cannot be started from a
// file:// page, and the page must work from file:// too.
//
// <body data-state> says where the page is, for people and for the browser
// tests (tests/wasm/page_chromium.sh): loading, ready, running, done, or
// failed (the module could not be loaded); live while the game loop runs.
(function () {
  'use strict';

  var $ = function (id) { return document.getElementById(id); };
  var source = $('source'), runButton = $('run'), status = $('status');
  var liveButton = $('live'), stopButton = $('stop'), sample = $('sample');
  var output = $('output'), report = $('report'), liveview = $('liveview');
  var traceLink = $('trace'), reportLink = $('report-link');
  var M = null;            // the module, once loaded
  var urls = [];           // blob: URLs of the last run's downloads
  var samples = { run: source.value, live: $('live-sample').textContent.replace(/^\n/, '') };
  var shown = 'run';       // the sample the editor holds (edits kept per sample)
  var live = null;         // the live session: { raf, frames, ... }

  function setState(s, text) {
    document.body.dataset.state = s;
    if (text != null) status.textContent = text;
  }

  // A download link for text; the previous run's URL is released.
  function offer(link, text, type) {
    link.href = URL.createObjectURL(new Blob([text], { type: type }));
    urls.push(link.href);
    link.hidden = false;
  }

  function clearDownloads() {
    urls.forEach(function (u) { URL.revokeObjectURL(u); });
    urls = [];
    traceLink.hidden = reportLink.hidden = $('trace-note').hidden = true;
  }

  function fmtMs(ms) { return ms < 10 ? ms.toFixed(1) + ' ms' : Math.round(ms) + ' ms'; }

  // The report is a complete page with its own Content-Security-Policy (its
  // one script allowed by hash).  As an iframe's srcdoc it keeps that policy;
  // this page sets none, so nothing else restricts it.  srcdoc frames share
  // this page's origin, which lets the frame grow to its content's height.
  function showReport(html, done) {
    report.onload = function () {
      report.onload = null;
      try {
        var h = report.contentDocument.documentElement.scrollHeight;
        report.style.height = Math.max(400, h + 20) + 'px';
      } catch (e) { /* keep the style sheet's height */ }
      done();
    };
    report.srcdoc = html;
  }

  function busy() {
    return M === null || live !== null || document.body.dataset.state === 'running';
  }

  function enable(on) {
    runButton.disabled = liveButton.disabled = !on;
  }

  function run() {
    if (busy()) return;
    enable(false);
    liveview.hidden = true;
    liveview.src = 'about:blank';   // the last live view's document let go
    report.hidden = false;
    setState('running', 'Running\u2026');
    clearDownloads();
    // two frames, so "Running..." is painted before the script blocks the page
    requestAnimationFrame(function () { requestAnimationFrame(runNow); });
  }

  function runNow() {
    var L = M.luainstr;
    var t0 = performance.now();
    var err = L.run(source.value, 'main.lua');
    var ms = performance.now() - t0;
    output.textContent = L.output() || '';
    if (err !== null) showError(err);
    var html = L.report('html');
    var trace = L.report('chrome');
    var finished = function () {
      enable(true);
      setState('done', (err === null ? 'Ran' : 'Failed') + ' in ' + fmtMs(ms) +
        (self.crossOriginIsolated ? '' : ' (browser clock: 0.1 ms steps; cross-origin isolation gives 5 \u00b5s)'));
    };
    if (trace !== null) {
      offer(traceLink, trace, 'application/json');
      $('trace-note').hidden = false;
    }
    if (html !== null) {
      offer(reportLink, html, 'text/html');
      showReport(html, finished);
    } else {
      output.appendChild(document.createTextNode('\nno report: ' + L.error()));
      finished();
    }
  }

  // ---- Live ---------------------------------------------------------------
  // The script defines tick(dt); every animation frame calls it through the
  // module (an idle span until then, the tick, a frame mark), drains the
  // messages the runtime made (live mode "page") and posts them to the live
  // view.  The view is the page li_wasm_live_page writes, opened with #embed
  // (it then listens to its parent instead of a WebSocket, and posts its
  // commands back here) from a blob: URL (a srcdoc frame has no #embed).
  // Served, the frame has this page's origin; from file:// an opaque one,
  // which cannot be named: hence the target origin "*" (the frame is only
  // ever this page's own document).

  // An ack's download ("/download/S/N", a file the command wrote in the
  // module's memory file system): the view gets a blob: URL of its bytes
  // instead (it accepts one when embedded); released with the downloads.
  var downloadTypes = { html: 'text/html', json: 'application/json',
                        heapsnapshot: 'application/json', chrome: 'application/json' };
  function offerDownload(ack) {
    var m = /^\/download\/\d+\/(\d+)$/.exec(ack.download);
    var bytes = m ? M.luainstr.liveDownload(+m[1]) : null;
    if (bytes === null) { delete ack.download; return; }
    ack.download = URL.createObjectURL(new Blob([bytes], {
      type: downloadTypes[ack.format] || 'text/plain' }));
    urls.push(ack.download);
  }

  function postToView(text) {
    if (text === null || live === null || live.view === null) return;
    var msgs = JSON.parse(text);
    live.messages += msgs.length;
    for (var i = 0; i < msgs.length; i++) {
      if (msgs[i].type === 'frames') live.batches++;
      else if (msgs[i].type === 'spike') live.spikes++;
      else if (msgs[i].type === 'ack') {
        live.acks++;
        if (typeof msgs[i].download === 'string') offerDownload(msgs[i]);
      }
    }
    live.view.postMessage({ luainstr_live: msgs }, '*');
  }

  // The view's commands (from its frame only), applied at the next mark;
  // their acks come back in a later drain.
  window.addEventListener('message', function (ev) {
    if (live === null || live.view === null || ev.source !== live.view) return;
    var cmd = ev.data && ev.data.luainstr_cmd;
    if (cmd == null || typeof cmd !== 'object') return;
    live.commands++;
    var why = M.luainstr.liveCommand(cmd);
    if (why !== null) console.warn('live command refused: ' + why);
  });

  function liveStatus() {
    var s = live.frames > 1 ? (live.frames - 1) * 1000 / (live.last - live.first) : 0;
    setState('live', 'Live: frame ' + live.frames + ', ' + s.toFixed(0) + ' fps, ' +
      live.spikes + (live.spikes === 1 ? ' spike tree' : ' spike trees'));
  }

  function step(ts) {
    if (live === null) return;
    var L = M.luainstr;
    var dt = live.last ? Math.min((ts - live.last) / 1000, 0.1) : 1 / 60;
    if (!live.first) live.first = ts;
    live.last = ts;
    var err = L.liveTick(dt);
    live.frames++;
    postToView(L.liveDrain());
    if (err !== null || !L.liveRunning()) { stopLive(err); return; }
    if (ts - live.shown >= 250) {          // the status and the output, 4 times a second
      live.shown = ts;
      liveStatus();
      output.textContent = L.output() || '';
    }
    live.raf = requestAnimationFrame(step);
  }

  function startLive() {
    if (busy()) return;
    var L = M.luainstr;
    enable(false);
    clearDownloads();
    setState('running', 'Starting\u2026');
    var err = L.liveStart(source.value, 'main.lua');
    output.textContent = L.output() || '';
    var page = err === null ? L.livePage() : null;
    if (err !== null || page === null) {
      if (err === null) err = 'no live view: ' + L.error();
      L.liveStop();
      showError(err);
      enable(true);
      setState('done', 'Failed');
      return;
    }
    live = { raf: 0, frames: 0, first: 0, last: 0, shown: 0, messages: 0, batches: 0,
             spikes: 0, acks: 0, commands: 0, view: null,
             url: URL.createObjectURL(new Blob([page], { type: 'text/html' })) };
    report.hidden = true;
    liveview.hidden = false;
    stopButton.disabled = false;
    // the loop starts once the view listens (its script ran: load)
    liveview.onload = function () {
      liveview.onload = null;
      if (live === null) return;
      live.view = liveview.contentWindow;
      setState('live', 'Live');
      live.raf = requestAnimationFrame(step);
    };
    urls.push(live.url);   // (released with the downloads, at the next run)
    liveview.src = live.url + '#embed';
  }

  // Stops the loop (the Stop button, tick's error, os.exit): the last
  // messages go to the view, which stays as it is; the state is kept, so
  // the session's report and trace are offered as after Run.
  function stopLive(err) {
    if (live === null) return;
    var L = M.luainstr, s = live;
    cancelAnimationFrame(s.raf);
    L.liveStop();
    postToView(L.liveDrain());
    live = null;
    stopButton.disabled = true;
    output.textContent = L.output() || '';
    if (err) showError(err);
    var trace = L.report('chrome'), html = L.report('html');
    if (trace !== null) { offer(traceLink, trace, 'application/json'); $('trace-note').hidden = false; }
    if (html !== null) offer(reportLink, html, 'text/html');
    enable(true);
    setState('done', (err ? 'Failed' : 'Stopped') + ' after ' + s.frames + ' frames, ' +
      s.spikes + (s.spikes === 1 ? ' spike tree' : ' spike trees'));
  }

  function showError(err) {
    var e = document.createElement('span');
    e.className = 'error';
    e.textContent = err;
    output.appendChild(e);
  }

  // The sample select: the editor's text is kept per sample while switching.
  sample.addEventListener('change', function () {
    samples[shown] = source.value;
    shown = sample.value;
    source.value = samples[shown];
  });

  liveButton.addEventListener('click', startLive);
  stopButton.addEventListener('click', function () { stopLive(null); });
  runButton.addEventListener('click', run);
  source.addEventListener('keydown', function (ev) {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      run();
    } else if (ev.key === 'Tab' && !ev.shiftKey && !ev.altKey && !ev.ctrlKey && !ev.metaKey) {
      ev.preventDefault();   // indent instead of leaving the editor
      source.setRangeText('  ', source.selectionStart, source.selectionEnd, 'end');
    }
  });

  if (typeof LuainstrWeb !== 'function') {
    setState('failed', 'luainstr-web.js is missing: build it with scripts/wasm.sh, ' +
      'then web/build.sh puts this page next to it (web/README.md).');
    return;
  }
  LuainstrWeb().then(function (mod) {
    M = mod;
    // trace mode, for the Chrome trace; asked once, kept for every run
    var why = M.luainstr.setOption('trace', 'on');
    if (why !== null) output.textContent = 'trace mode: ' + why;
    // for the browser tests and the console: the module and the run
    window.luainstrPage = { module: M, run: run, live: startLive, stop: function () { stopLive(null); },
                            session: function () { return live; } };
    enable(true);
    setState('ready', 'Ready.');
  }, function (e) {
    setState('failed', 'luainstr-web.js failed to load: ' + e);
  });
})();
