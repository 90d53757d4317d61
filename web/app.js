// app.js -- the page: runs the editor's Lua script in luainstr-web.js (the
// WebAssembly build of luainstr + Lua 5.4, samples/wasm/), shows what it
// printed, shows the profile as luainstr's own html report in an iframe, and
// offers the run's Chrome trace as a download.
//
// Everything runs on the page's thread: a Worker cannot be started from a
// file:// page, and the page must work from file:// too.
//
// <body data-state> says where the page is, for people and for the browser
// tests (tests/wasm/page_chromium.sh): loading, ready, running, done, or
// failed (the module could not be loaded).
(function () {
  'use strict';

  var $ = function (id) { return document.getElementById(id); };
  var source = $('source'), runButton = $('run'), status = $('status');
  var output = $('output'), report = $('report');
  var traceLink = $('trace'), reportLink = $('report-link');
  var M = null;            // the module, once loaded
  var urls = [];           // blob: URLs of the last run's downloads

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

  function run() {
    if (M === null || document.body.dataset.state === 'running') return;
    runButton.disabled = true;
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
    if (err !== null) {
      var e = document.createElement('span');
      e.className = 'error';
      e.textContent = err;
      output.appendChild(e);
    }
    var html = L.report('html');
    var trace = L.report('chrome');
    var finished = function () {
      runButton.disabled = false;
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
    window.luainstrPage = { module: M, run: run };
    runButton.disabled = false;
    setState('ready', 'Ready.');
  }, function (e) {
    setState('failed', 'luainstr-web.js failed to load: ' + e);
  });
})();
