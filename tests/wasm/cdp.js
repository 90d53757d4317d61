// cdp.js -- a small Chrome DevTools Protocol client for the browser tests:
// headless Chromium started with --remote-debugging-pipe (the protocol as
// NUL-terminated JSON on file descriptors 3 and 4), so no WebSocket module
// and no port are needed.
//
//   const b = await launch(browserPath, { userDataDir, width, height });
//   const page = await b.newPage();          // a tab, attached
//   await page.goto(url);
//   await page.waitFor('document.body.dataset.state === "ready"', 30000);
//   const v = await page.eval('1 + 1');      // awaits promises, by value
//   const w = await page.frameEval((url) => url.startsWith('blob:'), 'document.title');
//   await page.screenshot('shot.png');
//   await b.close();
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');

class Browser {
  constructor(proc) {
    this.proc = proc;
    this.nextId = 1;
    this.pending = new Map();          // id -> { resolve, reject, method }
    this.listeners = [];               // (message) => void, for events
    this.stderr = '';
    let buf = Buffer.alloc(0);
    proc.stdio[4].on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      let end;
      while ((end = buf.indexOf(0)) >= 0) {
        const msg = JSON.parse(buf.subarray(0, end).toString('utf8'));
        buf = buf.subarray(end + 1);
        this.dispatch(msg);
      }
    });
    proc.stderr.on('data', (d) => { this.stderr = (this.stderr + d).slice(-20000); });
    this.exited = new Promise((resolve) => proc.on('exit', (code, sig) => {
      for (const p of this.pending.values())
        p.reject(new Error(`browser exited (${code ?? sig}) during ${p.method}`));
      this.pending.clear();
      resolve();
    }));
  }

  dispatch(msg) {
    if (msg.id !== undefined && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
      else p.resolve(msg.result);
    } else {
      this.listeners.forEach((f) => f(msg));
    }
  }

  send(method, params, sessionId) {
    const id = this.nextId++;
    const msg = { id, method, params: params || {} };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.proc.stdio[3].write(JSON.stringify(msg) + '\0');
    });
  }

  async newPage() {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(this, sessionId);
    await page.send('Page.enable');
    await page.send('Runtime.enable');
    return page;
  }

  async close() {
    try { await Promise.race([this.send('Browser.close'), this.exited]); } catch (e) { /* gone */ }
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(t);
  }
}

class Page {
  constructor(browser, sessionId) {
    this.browser = browser;
    this.sessionId = sessionId;
    this.console = [];                 // console messages and exceptions
    browser.listeners.push((m) => {
      if (m.sessionId !== sessionId) return;
      if (m.method === 'Runtime.consoleAPICalled')
        this.console.push(m.params.type + ': ' + m.params.args.map((a) => a.value ?? a.description).join(' '));
      else if (m.method === 'Runtime.exceptionThrown')
        this.console.push('exception: ' + (m.params.exceptionDetails.exception?.description ||
                                           m.params.exceptionDetails.text));
    });
  }

  send(method, params) { return this.browser.send(method, params, this.sessionId); }

  async goto(url) {
    const loaded = new Promise((resolve) => {
      const f = (m) => {
        if (m.sessionId === this.sessionId && m.method === 'Page.loadEventFired') {
          this.browser.listeners.splice(this.browser.listeners.indexOf(f), 1);
          resolve();
        }
      };
      this.browser.listeners.push(f);
    });
    const r = await this.send('Page.navigate', { url });
    if (r.errorText) throw new Error(`navigate ${url}: ${r.errorText}`);
    await loaded;
  }

  // The value of an expression (a promise is awaited); throws what it threw.
  async eval(expression) {
    const r = await this.send('Runtime.evaluate',
      { expression, awaitPromise: true, returnByValue: true, userGesture: true });
    if (r.exceptionDetails)
      throw new Error('eval: ' + (r.exceptionDetails.exception?.description || r.exceptionDetails.text));
    return r.result.value;
  }

  // The value of an expression in a child frame, the first whose URL
  // passes test.  A frame in this page's process is evaluated in an
  // isolated world of it (its DOM, not its scripts' variables); one in a
  // process of its own (an out-of-process frame: a blob: frame of a file://
  // page, whose origin is opaque) is a target of its own, attached to.
  async frameEval(test, expression) {
    const { frameTree } = await this.send('Page.getFrameTree');
    const find = (t) => (t.frame.parentId && test(t.frame.url) ? t.frame
      : (t.childFrames || []).map(find).find((f) => f) || null);
    const frame = find(frameTree);
    const params = { expression, awaitPromise: true, returnByValue: true, userGesture: true };
    let r;
    if (frame) {
      const { executionContextId } = await this.send('Page.createIsolatedWorld',
        { frameId: frame.id, worldName: 'cdp-test' });
      r = await this.send('Runtime.evaluate', Object.assign({ contextId: executionContextId }, params));
    } else {
      const { targetInfos } = await this.browser.send('Target.getTargets');
      const t = targetInfos.find((i) => i.type === 'iframe' && test(i.url));
      if (!t) throw new Error('frameEval: no such frame');
      if (!this.frameSessions) this.frameSessions = new Map();
      if (!this.frameSessions.has(t.targetId)) {
        const { sessionId } = await this.browser.send('Target.attachToTarget', { targetId: t.targetId, flatten: true });
        this.frameSessions.set(t.targetId, sessionId);
      }
      r = await this.browser.send('Runtime.evaluate', params, this.frameSessions.get(t.targetId));
    }
    if (r.exceptionDetails)
      throw new Error('frameEval: ' + (r.exceptionDetails.exception?.description || r.exceptionDetails.text));
    return r.result.value;
  }

  // Polls until the expression is truthy; throws after ms.
  async waitFor(expression, ms) {
    const end = Date.now() + ms;
    for (;;) {
      if (await this.eval(expression)) return;
      if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${expression}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async screenshot(path) {
    const { data } = await this.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: false });
    fs.writeFileSync(path, Buffer.from(data, 'base64'));
  }
}

// Starts headless Chromium with its own profile directory and no network
// beyond what the pages load; opts.args: more command-line switches.
async function launch(browserPath, opts) {
  const args = [
    '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-dev-shm-usage', '--hide-scrollbars',
    '--disable-extensions', '--mute-audio',
    `--user-data-dir=${opts.userDataDir}`,
    `--window-size=${opts.width || 1280},${opts.height || 900}`,
    ...(opts.args || []),
    '--remote-debugging-pipe', 'about:blank',
  ];
  const proc = spawn(browserPath, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  const b = new Browser(proc);
  await b.send('Browser.getVersion');    // the pipe answers: it is up
  return b;
}

module.exports = { launch };
