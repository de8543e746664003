// A small Chrome DevTools Protocol client over --remote-debugging-pipe
// (file descriptors 3 and 4, messages separated by NUL): enough to open a
// page in headless Chromium, move the mouse, click, evaluate and take a
// screenshot. No npm packages.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class Browser {
  static async launch(executable, { width = 1400, height = 900 } = {}) {
    const profile = mkdtempSync(join(tmpdir(), 'binschema-view-'));
    const proc = spawn(executable, [
      '--headless=new', '--remote-debugging-pipe', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--no-default-browser-check', '--disable-extensions', '--disable-dev-shm-usage', '--hide-scrollbars',
      `--user-data-dir=${profile}`, `--window-size=${width},${height}`, 'about:blank',
    ], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d) => { stderr += d; });
    const b = new Browser(proc, profile, () => stderr);
    const { targetId } = await b.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await b.send('Target.attachToTarget', { targetId, flatten: true });
    b.session = sessionId;
    await b.page('Page.enable');
    await b.page('Runtime.enable');
    await b.page('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    return b;
  }

  constructor(proc, profile, stderr) {
    Object.assign(this, { proc, profile, stderr, next: 1, pending: new Map(), waiters: [], buf: '' });
    this.out = proc.stdio[3];
    proc.stdio[4].on('data', (d) => {
      this.buf += d.toString('utf8');
      let i;
      while ((i = this.buf.indexOf('\0')) >= 0) {
        const msg = JSON.parse(this.buf.slice(0, i));
        this.buf = this.buf.slice(i + 1);
        this.dispatch(msg);
      }
    });
    proc.on('exit', (code) => {
      for (const [, p] of this.pending) p.reject(new Error(`chromium exited (${code}): ${stderr().slice(-2000)}`));
      this.pending.clear();
    });
  }

  dispatch(msg) {
    if (msg.id && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
      else p.resolve(msg.result);
      return;
    }
    if (msg.method) this.waiters = this.waiters.filter((w) => !(w.method === msg.method && (w.resolve(msg.params), true)));
  }

  send(method, params = {}, sessionId) {
    const id = this.next++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.out.write(JSON.stringify(msg) + '\0');
    });
  }
  page(method, params = {}) { return this.send(method, params, this.session); }
  event(method, timeoutMs = 60000) {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out waiting for ${method}`)), timeoutMs);
      this.waiters.push({ method, resolve: (p) => { clearTimeout(t); resolve(p); } });
    });
  }

  // Opens a URL and waits for its load event.
  async open(url) {
    const loaded = this.event('Page.loadEventFired');
    await this.page('Page.navigate', { url });
    await loaded;
  }
  // The value of a JavaScript expression in the page (exceptions rethrown).
  async eval(expression) {
    const r = await this.page('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`page: ${expression}: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
    return r.result.value;
  }
  // Real mouse input at the centre of the element the selector finds.
  async center(selector) {
    const box = await this.eval(`(() => { const e = document.querySelector(${JSON.stringify(selector)});
      if (!e) return null; const r = e.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()`);
    if (!box) throw new Error(`no element ${selector} in the page`);
    return box;
  }
  async hover(selector) {
    const { x, y } = await this.center(selector);
    await this.page('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
  }
  async click(selector) {
    const { x, y } = await this.center(selector);
    await this.page('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
    await this.page('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', clickCount: 1 });
    await this.page('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', clickCount: 1 });
  }
  async screenshot() {
    const { data } = await this.page('Page.captureScreenshot', { format: 'png' });
    return Buffer.from(data, 'base64');
  }
  async close() {
    try { await this.send('Browser.close'); } catch { /* gone already */ }
    await new Promise((r) => { if (this.proc.exitCode !== null) r(); else { this.proc.on('exit', r); setTimeout(() => { this.proc.kill('SIGKILL'); r(); }, 5000); } });
    rmSync(this.profile, { recursive: true, force: true });
  }
}
