// Drives headless Chromium over the DevTools protocol (Node's built-in
// WebSocket; run with --experimental-websocket on Node 20) against a running
// `umwelt serve`: types a query into the search page, opens a thread page and
// a summary page, and keeps each page's DOM and a screenshot.
// With AUTH_BASE and TOKEN (a server with --auth), it also signs in through
// the form with a hostile `next` and reports where the browser landed.
//   node --experimental-websocket cdp.mjs CHROMIUM BASE_URL SUMMARY_PATH OUT_DIR [AUTH_BASE TOKEN]
// Prints one JSON object with what it saw.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [chromium, base, summaryPath, outDir, authBase, token] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), 'umwelt-cdp-'));
const browser = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--remote-debugging-port=0', '--user-data-dir=' + profile, '--window-size=1280,1600', 'about:blank'],
  { stdio: ['ignore', 'ignore', 'pipe'] });
const fail = (why) => { console.log(JSON.stringify({ error: String(why) })); browser.kill('SIGKILL'); process.exit(1); };
setTimeout(() => fail('timed out'), 60000);

const wsUrl = await new Promise((resolve, reject) => {
  let err = '';
  browser.stderr.on('data', (d) => {
    err += d;
    const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  browser.on('exit', () => reject(new Error('chromium exited: ' + err.slice(0, 500))));
}).catch(fail);

const ws = new WebSocket(wsUrl);
await new Promise((r) => ws.addEventListener('open', r));
let nextId = 1;
const pending = new Map();
const listeners = [];
ws.addEventListener('message', (ev) => {
  const msg = JSON.parse(ev.data);
  if (msg.id && pending.has(msg.id)) {
    const { resolve, reject } = pending.get(msg.id);
    pending.delete(msg.id);
    msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result);
  } else if (msg.method) {
    for (const l of listeners.slice()) l(msg);
  }
});
const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
  const id = nextId++;
  pending.set(id, { resolve, reject });
  ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
});
const once = (method, sessionId) => new Promise((resolve) => {
  const l = (msg) => {
    if (msg.method === method && msg.sessionId === sessionId) {
      listeners.splice(listeners.indexOf(l), 1);
      resolve(msg.params);
    }
  };
  listeners.push(l);
});

const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
await send('Page.enable', {}, sessionId);
await send('Runtime.enable', {}, sessionId);
const consoleErrors = [];
listeners.push((msg) => {
  if (msg.sessionId === sessionId && msg.method === 'Runtime.exceptionThrown') {
    consoleErrors.push(msg.params.exceptionDetails.text);
  }
});
const evaluate = async (expression) =>
  (await send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
const navigate = async (url) => {
  const loaded = once('Page.loadEventFired', sessionId);
  await send('Page.navigate', { url }, sessionId);
  await loaded;
};
const keep = async (name) => {
  writeFileSync(join(outDir, name + '.html'), await evaluate('document.documentElement.outerHTML'));
  const shot = await send('Page.captureScreenshot', { format: 'png' }, sessionId);
  writeFileSync(join(outDir, name + '.png'), Buffer.from(shot.data, 'base64'));
};
const key = (type, k, extra = {}) => send('Input.dispatchKeyEvent', { type, key: k, ...extra }, sessionId);

const result = {};
// 1. The search page: "/" focuses the box, the query is typed, Enter submits.
await navigate(base + '/');
await key('keyDown', '/', { code: 'Slash', text: '/', windowsVirtualKeyCode: 191 });
await key('keyUp', '/', { code: 'Slash', windowsVirtualKeyCode: 191 });
result.focused = await evaluate('document.activeElement && document.activeElement.id');
await send('Input.insertText', { text: 'MFU H100' }, sessionId);
const submitted = once('Page.loadEventFired', sessionId);
await key('keyDown', 'Enter', { code: 'Enter', text: '\r', windowsVirtualKeyCode: 13 });
await key('keyUp', 'Enter', { code: 'Enter', windowsVirtualKeyCode: 13 });
await submitted;
result.search_url = await evaluate('location.pathname + location.search');
result.result_count = await evaluate("(document.getElementById('result-count') || {}).textContent || ''");
result.hits = await evaluate("document.querySelectorAll('ol.hits > li').length");
result.cards = await evaluate("document.querySelectorAll('ol.hits .card').length");
await keep('serve-search');
// 2. A thread page, from the first hit's "thread" link.
const threadHref = await evaluate("(document.querySelector('ol.hits a[href^=\"/thread\"]') || {}).href || ''");
await navigate(threadHref);
result.thread_title = await evaluate("document.querySelector('h1.title').textContent");
result.thread_chunks = await evaluate("document.querySelectorAll('.chunk').length");
await keep('serve-thread');
// 3. A weekly summary page.
await navigate(base + summaryPath);
result.summary_title = await evaluate("document.querySelector('h1.title').textContent");
result.summary_strips = await evaluate("document.querySelectorAll('figure.activity svg').length");
await keep('serve-summary');
// 4. Sign-in: the form's `next` rewritten to "/<TAB>/evil.example" (browsers
// strip the tab from a Location, which made it "//evil.example").
if (authBase) {
  await navigate(authBase + '/login');
  await evaluate("document.querySelector('input[name=next]').value = '/\\t/evil.example'");
  await evaluate("document.querySelector('input[name=token]').value = " + JSON.stringify(token));
  const signedIn = once('Page.loadEventFired', sessionId);
  await evaluate("document.querySelector('form').submit()");
  await signedIn;
  result.login_origin = await evaluate('location.origin');
  result.login_path = await evaluate('location.pathname');
  await keep('serve-login');
}
result.console_errors = consoleErrors;
console.log(JSON.stringify(result));
ws.close();
browser.kill('SIGKILL');
process.exit(0);
