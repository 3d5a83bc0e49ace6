// The page's service worker: it shows a Web Push's notification (what
// wants the user: a session's name, kind and reason), even with every
// page closed, and opens that session's page when it is tapped.
'use strict';

self.addEventListener('push', (event) => {
  let m = { title: 'heimdall', body: '', url: '/' };
  try { if (event.data) m = Object.assign(m, event.data.json()); } catch (e) { /* not JSON: the defaults */ }
  event.waitUntil(self.registration.showNotification(m.title, { body: m.body, tag: m.tag, renotify: !!m.tag, data: { url: m.url } }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL((event.notification.data && event.notification.data.url) || '/', self.location.origin).href;
  event.waitUntil((async () => {
    for (const c of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) {
      if (new URL(c.url).origin === self.location.origin && 'navigate' in c) {
        await c.focus();
        return c.navigate(url);
      }
    }
    return self.clients.openWindow(url);
  })());
});
