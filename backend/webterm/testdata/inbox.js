// The inbox of the page, in headless Chromium driven by Playwright: two
// fake Claude sessions wait — a Bash permission with Claude's three
// options, a question with four — and the page lists both with their
// options as buttons; an answer to a question the screen no longer shows
// is refused with the reason; "1. Yes" and "3. DynamoDB" answer them,
// each said in the notice, and the items move on. An ACP agent's
// permission request (a1) is listed with its options and no link to a
// terminal, and "1. Allow" answers it; its page, opened by hand, says it
// has no terminal instead of retrying.
//
// node inbox.js BASE_URL TOKEN CHROMIUM
// Prints "ok"; exits non-zero with the reason on failure.
'use strict';
const { chromium } = require('playwright-core');

const [base, token, executablePath] = process.argv.slice(2);
const T = 20000;

function fail(msg) { throw new Error(msg); }

(async () => {
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage(); // a phone
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(base + '/?token=' + encodeURIComponent(token));
    const item = (id) => page.locator('#inbox li[data-session="' + id + '"]');
    await item('c1').locator('button', { hasText: '1. Yes' }).waitFor({ timeout: T })
      .catch(async () => fail('no Yes for c1: ' + await page.locator('#inbox-sec').innerText()));
    await item('c2').locator('button', { hasText: '3. DynamoDB' }).waitFor({ timeout: T })
      .catch(async () => fail('no DynamoDB for c2: ' + await page.locator('#inbox-sec').innerText()));
    const c1 = await item('c1').innerText();
    if (!c1.includes('Bash: rm -rf build') || !c1.includes('Do you want to proceed?')) fail('c1 item: ' + c1);
    if ((await item('c2').locator('input').count()) !== 1) fail('c2 has no free-text answer');
    if ((await item('c1').locator('a[href="#/s/c1"]').count()) !== 1) fail('c1 has no link to its terminal');

    // An ACP agent's permission: its options, no link to a terminal.
    await item('a1').locator('button', { hasText: '1. Allow' }).waitFor({ timeout: T })
      .catch(async () => fail('no Allow for a1: ' + await page.locator('#inbox-sec').innerText()));
    if ((await item('a1').locator('a').count()) !== 0) fail('a1 links to a terminal it does not have');
    await item('a1').locator('button', { hasText: '1. Allow' }).click();
    await page.waitForFunction(() => document.getElementById('notice').textContent.includes('answered a1: 1. Allow'), null, { timeout: T })
      .catch(async () => fail('no notice for a1: ' + await page.locator('#notice').textContent()));
    // Its page, typed by hand: said to have no terminal, no retrying.
    await page.evaluate(() => { location.hash = '#/s/a1'; });
    await page.waitForFunction(() => !document.getElementById('ended').hidden &&
      document.getElementById('ended-text').textContent.includes('No terminal for a1'), null, { timeout: T })
      .catch(async () => fail('a1 page: ' + await page.locator('#conn').textContent()));
    await page.evaluate(() => { location.hash = ''; });

    // A stale question: refused (409) with the reason, nothing typed.
    const stale = await page.evaluate(async () => {
      const r = await fetch('/api/sessions/c1/answer', { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ choice: 'allow', question: 'Do you want to delete it?' }) });
      return r.status + ' ' + await r.text();
    });
    if (!stale.startsWith('409 ') || !stale.includes('no longer shows that prompt')) fail('stale answer: ' + stale);

    await item('c1').locator('button', { hasText: '1. Yes' }).click();
    await page.waitForFunction(() => document.getElementById('notice').textContent.includes('answered c1: 1. Yes'), null, { timeout: T })
      .catch(async () => fail('no notice for c1: ' + await page.locator('#notice').textContent()));
    await item('c2').locator('button', { hasText: '3. DynamoDB' }).click();
    await page.waitForFunction(() => document.getElementById('notice').textContent.includes('answered c2: 3. DynamoDB'), null, { timeout: T })
      .catch(async () => fail('no notice for c2: ' + await page.locator('#notice').textContent()));
    // Both turns end: done items, no buttons.
    await page.waitForFunction(() => {
      const t = document.getElementById('inbox').innerText;
      return t.includes('Done with rm -rf build.') && t.includes('You chose DynamoDB.') && !document.querySelector('#inbox button');
    }, null, { timeout: T }).catch(async () => fail('items did not move on: ' + await page.locator('#inbox').innerText()));
    if (errors.length) fail('page errors: ' + errors.join('; '));
    console.log('ok');
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e.message || String(e)); process.exit(1); });
