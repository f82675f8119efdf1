// Drives headless Chromium over the DevTools protocol (Node's built-in
// WebSocket; run with --experimental-websocket on Node 20) against a running
// `umwelt serve`: types a query into the search page, opens a thread page and
// a summary page, and keeps each page's DOM and a screenshot.
// With AUTH_BASE and TOKEN (a server with --auth), it also signs in through
// the form with a hostile `next` and reports where the browser landed.
// With PAGES_FILE (a JSON list of {path, need: [selectors], ask: question}),
// it then audits each page at 1280 and 390 px: the page's width against the
// screen's, the elements it must show, Markdown markers left in its text, its
// links on this server that do not answer 2xx (or point at no element on the
// page), and anything hostile text could have made live.
//   node --experimental-websocket cdp.mjs CHROMIUM BASE_URL SUMMARY_PATH OUT_DIR [AUTH_BASE TOKEN]
// Prints one JSON object with what it saw.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [chromium, base, summaryPath, outDir, authBase, token] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), 'umwelt-cdp-'));
const browser = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--remote-debugging-port=0', '--user-data-dir=' + profile, '--window-size=1280,1600', 'about:blank'],
  { stdio: ['ignore', 'ignore', 'pipe'] });
const fail = (why) => { console.log(JSON.stringify({ error: String(why) })); browser.kill('SIGKILL'); process.exit(1); };
setTimeout(() => fail('timed out'), 240000);

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
// 5. The page audit.
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const auditJs = `(() => {
  const main = document.querySelector('main');
  const shown = main ? main.cloneNode(true) : document.createElement('div');
  // Code listings and code spans show text as written; the rest is prose.
  for (const e of shown.querySelectorAll('.code, pre, code, kbd, textarea, input, select')) e.remove();
  const text = shown.textContent;
  const markers = [['a Markdown link', /\\]\\((https?:|\\/|#)/], ['bold', /\\*\\*\\S/], ['a backtick', /\u0060/],
                   ['a heading', /(^|\\s)#{2,6} \\S/], ['an escape', /\\\\[#*_\u0060\\[\\]]/]];
  const raw = [];
  for (const [name, re] of markers) { const m = text.match(re); if (m) raw.push(name + ' near ' + JSON.stringify(text.substr(Math.max(0, m.index - 30), 80))); }
  const links = [], anchors = [];
  for (const a of document.querySelectorAll('a[href]')) {
    const u = new URL(a.href, location.href);
    if (u.origin !== location.origin || u.pathname === '/logout') continue;
    if (u.pathname === location.pathname && u.search === location.search && u.hash) {
      if (!document.getElementById(decodeURIComponent(u.hash.slice(1)))) anchors.push(u.hash);
    } else { links.push(u.origin + u.pathname + u.search); }
  }
  const live = document.querySelectorAll('main script, main style, main iframe, main object, main embed, main [onerror], ' +
                                          'main [onclick], main [onload], main a[href^="javascript"], main img[src^="x"]').length;
  return {width: document.documentElement.scrollWidth, screen: window.innerWidth, raw, links: [...new Set(links)],
          anchors, live, pwned: typeof window.__pwned !== 'undefined'};
})()`;
if (process.env.PAGES_FILE) {
  const pages = JSON.parse(readFileSync(process.env.PAGES_FILE, 'utf8'));
  const checked = new Map();
  result.pages = [];
  for (const width of [1280, 390]) {
    await send('Emulation.setDeviceMetricsOverride', { width, height: 900, deviceScaleFactor: 1, mobile: width < 600 }, sessionId);
    for (const page of pages) {
      await navigate(base + page.path);
      if (page.ask) {
        await evaluate("document.getElementById('question').value = " + JSON.stringify(page.ask));
        await evaluate("document.querySelector('#ask button').click()");
        for (let i = 0; i < 240 && !(await evaluate("!!document.querySelector('.answer-part')")); ++i) await sleep(250);
      }
      const seen = await evaluate(auditJs);
      const missing = [];
      for (const sel of page.need || []) if (!(await evaluate('!!document.querySelector(' + JSON.stringify(sel) + ')'))) missing.push(sel);
      const broken = [];
      for (const link of seen.links) {
        if (!checked.has(link)) {
          checked.set(link, await evaluate('fetch(' + JSON.stringify(link) + ", {credentials: 'same-origin'}).then((r) => r.status, () => 0)"));
        }
        const status = checked.get(link);
        if (status < 200 || status >= 300) broken.push(link + ' ' + status);
      }
      for (const a of seen.anchors) broken.push(page.path + a + ' (no such element)');
      const name = 'page-' + page.path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').slice(0, 40) + '-' + width;
      await keep(name || 'page-root-' + width);
      result.pages.push({ path: page.path, width, page_width: seen.width, screen: seen.screen, raw: seen.raw,
                          missing, broken, live: seen.live, pwned: seen.pwned, links: seen.links.length });
    }
  }
  result.links_checked = checked.size;
}
result.console_errors = consoleErrors;
console.log(JSON.stringify(result));
ws.close();
browser.kill('SIGKILL');
process.exit(0);
