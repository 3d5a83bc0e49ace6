// The page's service worker: it shows a Web Push's notification (what
// wants the user: a session's name, kind and reason), even with every
// page closed, and opens that session's page when it is tapped.
'use strict';

// Pages open when the worker first starts are taken under its control,
// so that a tap can navigate them (a client may be navigated only by the
// worker that controls it).
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let m = { title: 'heimdall', body: '', url: '/' };
  try { if (event.data) m = Object.assign(m, event.data.json()); } catch (e) { /* not JSON: the defaults */ }
  event.waitUntil(self.registration.showNotification(m.title, { body: m.body, tag: m.tag, renotify: !!m.tag, data: { url: m.url } }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openSession(event.notification.data && event.notification.data.url));
});

// openSession shows the page at path (a session's: /#/s/ID) in a window of
// this origin that is already open, navigated there and brought forward,
// or else in a new window. Resolves to the window's client.
async function openSession(path) {
  const url = new URL(path || '/', self.location.origin);
  if (url.origin !== self.location.origin) throw new Error('not this page: ' + path);
  for (const c of await self.clients.matchAll({ type: 'window' })) {
    if (new URL(c.url).origin !== self.location.origin) continue;
    const shown = (await c.navigate(url.href)) || c;
    // Focus needs the tap's user activation; without it the page is
    // still there, navigated.
    await shown.focus().catch(() => {});
    return shown;
  }
  return self.clients.openWindow(url.href);
}
