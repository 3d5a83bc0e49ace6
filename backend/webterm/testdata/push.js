// The page's Web Push side in headless Chromium: on a secure origin
// (127.0.0.1 is one) with a server that serves push, the page offers
// "Notify this device"; its service worker, given a push (delivered
// through the DevTools protocol, as a push service would deliver it),
// shows the notification with the message's title, body and the session's
// page to open; tapping it shows that session's page in the open window.
//
// node push.js BASE_URL TOKEN CHROMIUM
// Prints "ok"; exits non-zero with the reason on failure.
'use strict';
const { chromium } = require('playwright-core');

const [base, token, executablePath] = process.argv.slice(2);
const T = 20000;

function fail(msg) { throw new Error(msg); }

(async () => {
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const ctx = await browser.newContext();
    await ctx.grantPermissions(['notifications'], { origin: base });
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    const regs = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => regs.push(...e.registrations));
    await cdp.send('ServiceWorker.enable');
    await page.goto(base + '/?token=' + encodeURIComponent(token));
    await page.locator('#push').waitFor({ state: 'visible', timeout: T })
      .catch(async () => fail('no "Notify this device": ' + await page.locator('#inbox-sec').innerText()));
    await page.evaluate(() => navigator.serviceWorker.ready);
    const deadline = Date.now() + T;
    while (!regs.find((r) => r.scopeURL === base + '/') && Date.now() < deadline) await page.waitForTimeout(50);
    const reg = regs.find((r) => r.scopeURL === base + '/');
    if (!reg) fail('the service worker was not registered for the page: ' + JSON.stringify(regs));
    const msg = { title: 'heimdall', body: 'c1 needs input: Bash: rm -rf build', url: '/#/s/c1', tag: 'c1' };
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: base, registrationId: reg.registrationId, data: JSON.stringify(msg) });
    let shown = [];
    while (Date.now() < deadline) {
      shown = await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications())
        .map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url })));
      if (shown.length) break;
      await page.waitForTimeout(50);
    }
    const n = shown[0];
    if (!n || n.title !== msg.title || n.body !== msg.body || n.tag !== 'c1' || n.url !== '/#/s/c1') fail('notification shown: ' + JSON.stringify(shown));

    // The tap. No browser lets a test click a notification
    // (web-platform-tests issue 51125), so the test calls what the click
    // handler calls, inside the worker, with the browser's own clients: the
    // page already open is navigated to the session's page.
    let sw = ctx.serviceWorkers().find((w) => w.url() === base + '/sw.js');
    if (!sw) sw = await ctx.waitForEvent('serviceworker', { timeout: T });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: T })
      .catch(() => fail('the open page is not under the service worker'));
    await sw.evaluate((u) => openSession(u).then(() => null), n.url);
    await page.waitForFunction(() => location.hash === '#/s/c1' && !document.getElementById('term-view').hidden &&
      document.getElementById('title').textContent === 'c1', null, { timeout: T })
      .catch(async () => fail('the page after the tap: ' + page.url() + ' ' + await page.locator('#title').innerText()));
    if (await sw.evaluate(() => openSession('https://example.com/').then(() => 'opened', (e) => e.message)) !== 'not this page: https://example.com/') {
      fail('a tap opened another origin');
    }
    console.log('ok');
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e.message || String(e)); process.exit(1); });
