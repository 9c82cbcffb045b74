// The client's service worker, served at the root (`/sw.js`) so that its scope is the
// whole client (`/`): with the manifest (manifest.webmanifest) it makes the client
// installable, and it shows the Web Push notices of games over days (protocol 27.6).
// It keeps nothing and intercepts nothing: with no fetch handler every request (the
// page, its files, the API, the WebSocket) goes to the server as without it, and
// nothing is ever cached here.

const worker = /** @type {any} */ (self);

// A new version takes over at once (there is nothing of the old one to keep).
worker.addEventListener('install', () => worker.skipWaiting());
worker.addEventListener('activate', (/** @type {any} */ e) => e.waitUntil(worker.clients.claim()));

/**
 * A push's notice: JSON `{"title", "body", "url"}` (catan-notify's `PushPayload`).
 * Anything else still shows something (a push must show a notification), opening
 * the client.
 * @param {any} data the event's `PushMessageData`, or null
 * @returns {{ title: string, body: string, url: string }}
 */
function notice(data) {
  /** @type {any} */
  let p = null;
  try { p = data ? data.json() : null; } catch { p = null; }
  const text = (v) => (typeof v === 'string' ? v : '');
  // Only an address of this client is opened (a relative one made absolute).
  const home = new URL('/', worker.location.origin).href;
  let url = home;
  try {
    const u = new URL(text(p?.url) || '/', worker.location.origin);
    if (u.origin === worker.location.origin) url = u.href;
  } catch { url = home; }
  return { title: text(p?.title) || 'Catan', body: text(p?.body), url };
}

// A notice: one per game (the tag is its address), a newer one replacing the older.
worker.addEventListener('push', (/** @type {any} */ e) => {
  const { title, body, url } = notice(e.data);
  e.waitUntil(worker.registration.showNotification(title, { body, data: { url }, tag: url }));
});

// A tap on it: the page already open at that address brought to the front, else a
// new one.
worker.addEventListener('notificationclick', (/** @type {any} */ e) => {
  e.notification.close();
  const url = e.notification.data?.url || new URL('/', worker.location.origin).href;
  e.waitUntil((async () => {
    const open = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const same = open.find((c) => c.url === url);
    if (same) return same.focus();
    return worker.clients.openWindow(url);
  })());
});
