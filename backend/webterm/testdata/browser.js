// The page as a person uses it, in headless Chromium driven by Playwright
// (playwright-core): start a shell session, type, see the output, resize,
// join from a second page (snapshot, viewer count), chat between the two,
// upload a file with the file picker and another by drag and drop,
// rename, a third page joining (output after its snapshot that begins with
// the chunk marker), reconnect, the 30 s heartbeat, a phone-sized screen,
// the session list.
//
// Every browser context starts from the URL `web` prints (BASE/?token=…):
// the token becomes a cookie and leaves the address bar; the context's
// other pages open plain URLs. A context without it is refused.
//
// node browser.js BASE_URL TOKEN CHROMIUM UPLOAD_FILE SCREENSHOT
// Prints one JSON line: {"id": session id, "cols", "rows": the pty's size
// while both pages showed it, the smaller of each}; exits non-zero with
// the reason on failure.
'use strict';
const { chromium } = require('playwright-core');

const [base, token, executablePath, uploadFile, screenshot] = process.argv.slice(2);
// withToken is the printed URL, with a fragment to open.
const withToken = (fragment) => base + '/?token=' + encodeURIComponent(token) + (fragment || '');
const T = 20000; // every wait's bound

function fail(msg) { throw new Error(msg); }

async function termText(page) {
  return page.locator('#term .xterm-rows').innerText();
}

async function waitTerm(page, text) {
  await page.waitForFunction((t) => {
    const r = document.querySelector('#term .xterm-rows');
    return r && r.innerText.includes(t);
  }, text, { timeout: T }).catch(async () => fail('terminal never showed ' + JSON.stringify(text) + ': ' + JSON.stringify(await termText(page))));
}

async function waitMeta(page, re) {
  await page.waitForFunction((src) => new RegExp(src).test(document.getElementById('meta').textContent), re.source, { timeout: T })
    .catch(async () => fail('meta never matched ' + re + ': ' + await page.locator('#meta').textContent()));
  return page.locator('#meta').textContent();
}

(async () => {
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  try {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const a = await ctx.newPage();
    const errors = [];
    a.on('pageerror', (e) => errors.push(String(e)));
    a.on('dialog', (d) => d.accept('Alice'));
    // No token: refused, nothing of the page served.
    const stranger = await browser.newPage();
    const refused = await stranger.goto(base + '/');
    if (refused.status() !== 401) fail('a page without the token got ' + refused.status());
    await stranger.close();
    await a.goto(withToken());
    if (a.url() !== base + '/') fail('the token stayed in the address bar: ' + a.url());
    await a.waitForSelector('#assistant option[value="custom"]', { state: 'attached', timeout: T });
    await a.selectOption('#assistant', 'custom');
    await a.click('#new-form button[type=submit]');
    await a.waitForSelector('#term .xterm-rows', { timeout: T });
    const id = decodeURIComponent(new URL(a.url()).hash.replace(/^#\/s\//, '').replace(/\?.*$/, ''));
    await waitMeta(a, /1 viewer · \d+×\d+/);
    // Named as the dashboard names its sessions, and titled by that name.
    if (id !== 'custom-1') fail('a session started from the page is named ' + JSON.stringify(id) + ', not custom-1');
    await a.waitForFunction(() => document.getElementById('title').textContent.startsWith('custom-1 · '), null, { timeout: T })
      .catch(async () => fail('title ' + JSON.stringify(await a.locator('#title').textContent())));
    await a.click('#term');
    await a.keyboard.type('echo hello-$((6*7))\n');
    await waitTerm(a, 'hello-42');

    // Resize the window: the terminal fits, the pty follows.
    const before = await a.locator('#meta').textContent();
    await a.setViewportSize({ width: 700, height: 500 });
    const after = await waitMeta(a, /1 viewer · \d+×\d+/).then(async () => {
      await a.waitForFunction((b) => document.getElementById('meta').textContent !== b, before, { timeout: T });
      return a.locator('#meta').textContent();
    });
    const [, cols, rows] = after.match(/(\d+)×(\d+)/);
    await a.keyboard.type('stty size\n');
    await waitTerm(a, rows + ' ' + cols);

    // A second page joins: the snapshot shows what was there, two viewers.
    const b = await ctx.newPage();
    b.on('pageerror', (e) => errors.push(String(e)));
    b.on('dialog', (d) => d.accept('Bob'));
    await b.setViewportSize({ width: 900, height: 700 });
    await b.goto(base + '/#/s/' + encodeURIComponent(id));
    await waitTerm(b, 'hello-42');
    await waitMeta(b, /2 viewers/);
    await waitMeta(a, /2 viewers/);

    // Chat from a to b.
    await a.click('#chat-toggle');
    await a.fill('#chat-input', 'hi from a');
    await a.press('#chat-input', 'Enter');
    await b.click('#chat-toggle');
    await b.waitForFunction(() => document.getElementById('chat-log').textContent.includes('Alice: hi from a'), null, { timeout: T })
      .catch(() => fail('chat did not reach the second page'));

    // Upload with the file picker, then by dropping a file on the terminal.
    await a.setInputFiles('#file', uploadFile);
    await a.waitForFunction(() => /File uploaded: /.test(document.getElementById('notice').textContent), null, { timeout: T })
      .catch(async () => fail('no upload notice: ' + await a.locator('#notice').textContent()));
    await a.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['dropped content'], 'dropped.txt', { type: 'text/plain' }));
      const wrap = document.getElementById('term-wrap');
      wrap.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      wrap.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await a.waitForFunction(() => document.getElementById('notice').textContent.includes('dropped.txt'), null, { timeout: T })
      .catch(async () => fail('no notice for the dropped file: ' + await a.locator('#notice').textContent()));
    await waitTerm(b, 'dropped.txt'); // its path was typed into the session

    // The pty is the smallest of the two terminals.
    const size = (p) => p.evaluate(() => [view.term.rows, view.term.cols]);
    const [[ar, ac], [br, bc]] = [await size(a), await size(b)];
    const [mr, mc] = [Math.min(ar, br), Math.min(ac, bc)];
    await waitMeta(a, new RegExp('2 viewers · ' + mc + '×' + mr));
    await a.click('#term');
    await a.keyboard.type('clear; stty size\n');
    await waitTerm(a, mr + ' ' + mc);
    if (screenshot) await a.screenshot({ path: screenshot });

    // Rename from one page: the other's title shows the name.
    await a.fill('#rename', 'web review');
    await a.click('#rename-btn');
    await b.waitForFunction(() => document.getElementById('title').textContent === 'web review · Custom', null, { timeout: T })
      .catch(async () => fail('rename did not reach the second page: ' + await b.locator('#title').textContent()));

    // A page joining gets the snapshot once: output that follows and
    // begins with 0x02 (the chunk marker) is output. The program prints it
    // (a subshell in the foreground: it gets the SIGWINCH) when the
    // newcomer's smaller terminal resizes the pty.
    await a.click('#term');
    await a.keyboard.type("(trap 'printf \"\\002\\000\\002winch-%s\\n\" ok' WINCH; echo loop-$((5*5)); while :; do sleep 0.2; done)\n");
    await waitTerm(a, 'loop-25');
    const c = await ctx.newPage();
    c.on('pageerror', (e) => errors.push(String(e)));
    await c.setViewportSize({ width: 500, height: 400 });
    await c.goto(base + '/#/s/' + encodeURIComponent(id));
    await waitTerm(c, 'winch-ok');
    await a.keyboard.press('Control+C');
    await c.close();

    // A dropped connection: the page reconnects by itself, with a fresh
    // snapshot, and goes on.
    await b.evaluate(() => view.ws.close());
    await b.waitForFunction(() => /retrying/.test(document.getElementById('conn').textContent), null, { timeout: T })
      .catch(() => fail('no retry shown after the connection dropped'));
    await b.waitForFunction(() => document.getElementById('conn').textContent === 'connected', null, { timeout: T })
      .catch(async () => fail('did not reconnect: ' + await b.locator('#conn').textContent()));
    await waitMeta(a, /2 viewers/);
    await a.keyboard.type('echo back-$((2*3))\n');
    await waitTerm(b, 'back-6');

    // The heartbeat: a ping with data.ts every 30 s (on a fake clock).
    const h = await browser.newPage();
    h.on('pageerror', (e) => errors.push(String(e)));
    await h.addInitScript(() => {
      window.__pings = [];
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (d) {
        if (typeof d === 'string') { const m = JSON.parse(d); if (m.type === 'ping') window.__pings.push(m); }
        return send.call(this, d);
      };
    });
    await h.clock.install();
    await h.goto(withToken('#/s/' + encodeURIComponent(id)));
    await h.waitForFunction(() => document.getElementById('conn').textContent === 'connected', null, { timeout: T, polling: 100 })
      .catch(() => fail('heartbeat page not connected'));
    const pings = () => h.evaluate(() => window.__pings);
    await h.clock.runFor(29000);
    if ((await pings()).length !== 0) fail('a ping before 30 s: ' + JSON.stringify(await pings()));
    await h.clock.runFor(1000);
    let got = await pings();
    if (got.length !== 1 || typeof got[0].data.ts !== 'number') fail('pings at 30 s: ' + JSON.stringify(got));
    await h.clock.runFor(30000);
    if ((got = await pings()).length !== 2) fail('pings at 60 s: ' + JSON.stringify(got));
    await h.close();

    // A phone-sized screen: the terminal fills the width without the
    // page scrolling sideways, the extra keys show, the chat fits.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const p = await phone.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    p.on('dialog', (d) => d.accept('Carol'));
    await p.goto(withToken('#/s/' + encodeURIComponent(id)));
    await waitTerm(p, 'back-6');
    const lay = await p.evaluate(() => {
      const r = (id) => document.getElementById(id).getBoundingClientRect();
      return { sw: document.documentElement.scrollWidth, w: innerWidth, h: innerHeight, cols: view.term.cols, rows: view.term.rows,
        keys: r('keys'), toolbar: r('toolbar'), term: r('term') };
    });
    if (lay.sw > lay.w || lay.toolbar.right > lay.w || lay.term.right > lay.w) fail('wider than a phone: ' + JSON.stringify(lay));
    if (lay.cols < 40 || lay.rows < 20) fail('a phone terminal of ' + lay.cols + '×' + lay.rows);
    if (lay.keys.height === 0 || lay.keys.bottom > lay.h) fail('the extra keys do not show: ' + JSON.stringify(lay.keys));
    await p.tap('#keys button[data-key="esc"]');
    await p.tap('#chat-toggle');
    await p.fill('#chat-input', 'from a phone');
    await p.tap('#chat-form button[type=submit]');
    await a.waitForFunction(() => document.getElementById('chat-log').textContent.includes('Carol: from a phone'), null, { timeout: T })
      .catch(() => fail('the phone\'s chat did not arrive'));
    const chatBox = await p.evaluate(() => document.getElementById('chat-input').getBoundingClientRect().toJSON());
    if (chatBox.right > lay.w || chatBox.bottom > lay.h || chatBox.width < 100) fail('the chat input on a phone: ' + JSON.stringify(chatBox));
    await phone.close();

    // The list: the session, its name and its state.
    await a.goto(base + '/#');
    await a.waitForFunction((sid) => [...document.querySelectorAll('#sessions a')].some((e) => e.dataset.id === sid), id, { timeout: T })
      .catch(() => fail('the session is not listed'));
    const item = await a.evaluate((sid) => {
      const e = [...document.querySelectorAll('#sessions a')].find((e) => e.dataset.id === sid);
      return { name: e.querySelector('.name').textContent, state: e.querySelector('.state').textContent, cls: e.querySelector('.state').className };
    }, id);
    if (item.name !== 'web review' || !item.state || item.cls === 'state') fail('listed as ' + JSON.stringify(item));

    if (errors.length) fail('page errors: ' + errors.join('; '));
    console.log(JSON.stringify({ id, cols: mc, rows: mr }));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
