// The page as a person uses it, in headless Chromium driven by Playwright
// (playwright-core): start a shell session, type, see the output, resize,
// join from a second page (snapshot, viewer count), chat between the two,
// upload a file with the file picker and another by drag and drop.
//
// node browser.js BASE_URL CHROMIUM UPLOAD_FILE SCREENSHOT
// Prints one JSON line: {"id": session id, "cols", "rows": the pty's size
// while both pages showed it, the smaller of each}; exits non-zero with
// the reason on failure.
'use strict';
const { chromium } = require('playwright-core');

const [base, executablePath, uploadFile, screenshot] = process.argv.slice(2);
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
    await a.goto(base + '/');
    await a.waitForSelector('#assistant option[value="custom"]', { state: 'attached', timeout: T });
    await a.selectOption('#assistant', 'custom');
    await a.click('#new-form button[type=submit]');
    await a.waitForSelector('#term .xterm-rows', { timeout: T });
    const id = decodeURIComponent(new URL(a.url()).hash.replace(/^#\/s\//, '').replace(/\?.*$/, ''));
    await waitMeta(a, /1 viewer · \d+×\d+/);
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
    if (errors.length) fail('page errors: ' + errors.join('; '));
    console.log(JSON.stringify({ id, cols: mc, rows: mr }));
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
