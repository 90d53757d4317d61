// wasm-clock.js -- emscripten --pre-js of every WebAssembly program of the
// build (cmake/Wasm.cmake, LI_WASM_COMMON_LINK): the profiler's clock, in
// ns: liClockInto(p), which the probes call (runtime/clock.c
// li_clock_js_into).
//
// performance.now() is the cheapest right clock WebAssembly can call, but a
// call costs about 44 ns in node and 166 ns in Chromium (which derives a
// jittered, coarsened time on every call), against 9.6 ns for rdtsc
// natively: two reads a profiled call.  So where a SharedArrayBuffer is
// allowed (node; a cross-origin isolated page) a worker spins writing
// performance.now() into one, the "clock word", and a read is a load of it
// (about 6 ns with the call).  The word is right only while the worker
// runs: every CHECK-th read is performance.now() itself, which renews the
// worker's lease and checks that the word lags it by at most LAG_MS; when
// it does not (the worker was not scheduled: a busy machine) the next
// CHECK reads are performance.now()'s, so a stall costs at most CHECK
// reads of a stale word, whose error is bounded by the stall as a coarse
// clock's is by its step (a page that is not isolated gets 100 us steps).
// The worker sleeps (Atomics.wait) when no read renewed its lease for
// IDLE_MS, so a page or a process that is not profiling keeps no core
// busy; a read that finds it asleep wakes it and reads performance.now()
// until a check finds the word fresh.  Reads between a check that finds
// the word stale and the next one are performance.now()'s, so a stall
// costs time, not truth.  When more than 1 check in 8 finds it stale over
// a window of WINDOW_MS, the worker is stopped for good: the machine has
// no core to spare.  Reads never go back in time.
//
// The word is used only where a core is to spare (4 or more, and in node a
// load average that leaves one).  LUAINSTR_WASM_CLOCK=now (node's
// environment) or Module.luainstrClock = "now" (a page's factory argument)
// keeps to performance.now(), no worker; "word" uses the word whatever the
// machine (it is still given up when it goes stale).
//
// A read is one call from WebAssembly into liClockInto, which stores the
// time into the C double it is given (runtime/clock.c): a number returned to
// WebAssembly that is not a small integer is a heap object made on every
// read, as is a double kept in a closure's variable (and its write
// barrier); the Float64Arrays below hold them without either.  Node's
// `performance` is a lazy getter of the global object: it is looked up
// once.  (fib under node: these were a fifth of the run's samples.)
var liClockInto = null;
(function () {
  var CHECK = 64, LAG_MS = 0.05, IDLE_MS = 100;
  var WINDOW_MS = 1000;     // more than 1 check in 8 stale in one stops it
  var isNode = typeof process === 'object' && typeof process.versions === 'object' &&
               typeof process.versions.node === 'string';
  var want = isNode ? process.env.LUAINSTR_WASM_CLOCK : Module['luainstrClock'];
  var perf = performance;
  var perfNow = function () { return perf.now(); };

  // The word's buffer: f[0] the time (ms, this thread's performance.now()
  // origin), written by the worker; f[8] the lease, the time of the last
  // check (its own cache line); s[32] 1 while the worker runs (0 asleep);
  // s[33] 1 once the worker has started.
  var sab = null, f = null, s = null, worker = null;
  // The worker's loop, as source: d turns its performance.now() into ours.
  // It stores a time only when it moved by more than STEP ms: every store
  // takes the word's cache line from the reading core, and node's clock
  // moves every 30-60 ns, so a probe's read, some 100 ns after the last,
  // found the line gone every time (fib: 17.7 ns a read in a loop, the run
  // 588 ms; with 1 us steps 10.2 ns, 516 ms; 4 us gave no more).  In a
  // browser the clock itself steps by 5 us (100 us not isolated).
  var LOOP = 'function loop(sab, d) { var STEP = ' + (isNode ? 0.001 : 0) + ';' +
    ' var f = new Float64Array(sab), s = new Int32Array(sab);' +
    ' Atomics.store(s, 33, 1);' +
    ' for (;;) {' +
    '  for (var n = 0; ; n++) {' +
    '   var t = performance.now() - d; if (t - f[0] > STEP) f[0] = t;' +
    '   if ((n & 1023) === 0 && t - f[8] > ' + IDLE_MS + ') break;' +
    '  }' +
    // (a wake between the store and the wait makes the wait return at
    // once; one before the store is lost, and the next check wakes it)
    '  Atomics.store(s, 32, 0); Atomics.wait(s, 32, 0);' +
    ' }' +
    '}';

  // A core to spare for the worker: 4 or more, and in node a load that
  // leaves one free (LUAINSTR_WASM_CLOCK=word: whatever the machine).
  function spareCore() {
    if (want === 'word') return true;
    if (!isNode) return (navigator.hardwareConcurrency || 1) >= 4;
    var os = require('os'), n = os.cpus().length;
    return n >= 4 && os.loadavg()[0] <= n - 2;
  }

  function start() {
    if (want === 'now' || typeof SharedArrayBuffer === 'undefined' ||
        typeof Atomics === 'undefined') return false;
    if (!isNode && !self.crossOriginIsolated) return false;
    if (!spareCore()) return false;
    try {
      sab = new SharedArrayBuffer(256);
      f = new Float64Array(sab);
      s = new Int32Array(sab);
      if (isNode) {
        var wt = require('worker_threads');
        worker = new wt.Worker(LOOP + ' var wt = require("worker_threads");' +
          ' loop(wt.workerData.sab, wt.workerData.origin - performance.timeOrigin);',
          { eval: true, workerData: { sab: sab, origin: performance.timeOrigin } });
        worker.unref();        // it never keeps the process alive
      } else {
        var url = URL.createObjectURL(new Blob([LOOP +
          ' onmessage = function (e) { loop(e.data.sab, e.data.origin - performance.timeOrigin); };'],
          { type: 'text/javascript' }));
        worker = new Worker(url);
        worker.postMessage({ sab: sab, origin: performance.timeOrigin });
      }
    } catch (e) {
      sab = f = s = worker = null;
      return false;
    }
    return true;
  }

  var word = false;         // the word is in use (a worker exists)
  var fresh = false;        // the last check found it fresh
  var k = 1;                // reads until the next check
  var last = new Float64Array(1);  // [0] the last time returned (ms)
  var stalls = 0;           // checks that found the word stale
  var checks = 0;           // checks made
  var wstart = 0;           // when this window began (ms)
  var wchecks = 0;          // checks in it
  var wstale = 0;           // stale ones
  var settling = false;     // (a start's or a wake's checks are not counted)
  var started = false;

  // The worker is not scheduled often enough for its word to be of use (a
  // busy machine): performance.now() from now on, and the core given back.
  function stop() {
    word = fresh = false;
    worker.terminate();
  }

  function check() {
    var t = perfNow();
    k = CHECK;
    checks++;
    if (!started) {         // (node: the first read starts the worker)
      started = true;
      word = start();
    }
    if (word) {
      f[8] = t;
      if (Atomics.load(s, 32) !== 1) {
        if (Atomics.load(s, 33) === 1) {   // asleep: wake it
          Atomics.store(s, 32, 1);
          Atomics.notify(s, 32);
        }
        fresh = false;
      } else {
        fresh = t - f[0] <= LAG_MS;
        if (!fresh) { stalls++; wstale++; }
      }
      wchecks++;
      if (t - wstart >= WINDOW_MS) {
        if (!settling && wstale * 8 > wchecks) stop();
        wstart = t;
        wstale = wchecks = 0;
      }
    }
    return t;
  }

  function read() {
    var t = --k > 0 && fresh && s[32] === 1 ? f[0] : (k > 0 ? perfNow() : check());
    if (t < last[0]) t = last[0];
    last[0] = t;
    return t * 1e6;
  }
  liClockInto = function (p) { HEAPF64[p >> 3] = read(); };

  Module['liClock'] = {
    // Before a profile starts: the worker started or woken, and up to ms
    // for the word to be fresh (node starts a worker in some 30 ms), so that
    // the resolution and the calibration are the word's; 1 if it is.
    settle: function (ms) {
      var end = perfNow() + ms, t;
      settling = true;
      check();
      while (word && !fresh && (t = perfNow()) < end) {
        while (perfNow() < t + 0.05) {}    // (the worker's start, or wake)
        check();
      }
      settling = false;
      // a word that is not running by now would come in later, under a
      // calibration made with performance.now(): none, then
      if (word && !fresh) stop();
      stalls = checks = wstale = wchecks = 0;
      wstart = perfNow();
      k = 1;
      return fresh ? 1 : 0;
    },
    word: function () { return word; },     // (the report's clock name)
    stalls: function () { return stalls + ' of ' + checks + ' checks stale'; },
  };

  // A browser starts a worker only when this thread is idle: start it now,
  // asleep until the first read, and hold main back until it runs.
  if (!isNode) {
    var pre = Module['preRun'];
    Module['preRun'] = pre === undefined ? [] : typeof pre === 'function' ? [pre] : pre;
    Module['preRun'].push(function () {
      started = true;
      word = start();
      if (!word) return;
      addRunDependency('liClock');
      (function wait() {
        if (Atomics.load(s, 33) === 1) removeRunDependency('liClock');
        else setTimeout(wait, 1);
      })();
    });
  }
})();
