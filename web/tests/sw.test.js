// The service worker (web/sw.js) in Node without a browser: its script run against a
// stand-in of the worker's global (`self`), its handlers called as the browser would.
// A push's JSON `{"title", "body", "url"}` (catan-notify's PushPayload, protocol 27.6)
// is shown with `registration.showNotification(title, {body, data: {url}, tag})`; a
// payload that is not that JSON still shows a notice; only the client's own
// addresses are opened; a tap focuses a page open at the notice's address, else opens
// one; and the worker has no fetch handler (it caches nothing).
// (In Chromium the push handler also runs for real: days.js delivers a push over the
// DevTools protocol and reads the notification back.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

const SOURCE = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'sw.js'), 'utf8');
const ORIGIN = 'https://catan.example';

/** The worker's script run in a stand-in global: its handlers and what it did. */
function worker({ windows = [] } = {}) {
  const handlers = {};
  const did = { shown: [], focused: [], opened: [], claimed: 0, skipped: 0 };
  // (Objects of the worker's realm, copied into this one to be compared.)
  const copy = (v) => JSON.parse(JSON.stringify(v));
  const self = {
    location: new URL(`${ORIGIN}/sw.js`),
    addEventListener: (type, fn) => { handlers[type] = [...(handlers[type] || []), fn]; },
    skipWaiting: () => { did.skipped++; return Promise.resolve(); },
    registration: { showNotification: (title, options) => { did.shown.push(copy({ title, options })); return Promise.resolve(); } },
    clients: {
      claim: () => { did.claimed++; return Promise.resolve(); },
      matchAll: async (o) => { did.matched = copy(o); return windows.map((url) => ({ url, focus: async () => { did.focused.push(url); } })); },
      openWindow: async (url) => { did.opened.push(url); },
    },
  };
  vm.runInNewContext(SOURCE, { self, URL, console });
  /** Dispatches an event of `type` with `fields`; resolves when its waitUntil does. */
  const fire = async (type, fields = {}) => {
    const waits = [];
    for (const fn of handlers[type] || []) fn({ ...fields, waitUntil: (p) => waits.push(p) });
    await Promise.all(waits);
  };
  return { handlers, did, fire };
}

/** A push's data as the browser hands it: `json()` parses, or throws. */
const data = (text) => ({ json: () => JSON.parse(text), text: () => text });

test('a push shows its title and body, with its url as data and tag', async () => {
  const w = worker();
  await w.fire('push', { data: data(JSON.stringify({ title: "It's your turn in Catan", body: 'Annie, the move is yours.', url: `${ORIGIN}/?room=5b1e` })) });
  assert.deepEqual(w.did.shown, [{
    title: "It's your turn in Catan",
    options: { body: 'Annie, the move is yours.', data: { url: `${ORIGIN}/?room=5b1e` }, tag: `${ORIGIN}/?room=5b1e` },
  }]);
});

test('a push that is not the JSON still shows a notice, opening the client', async () => {
  for (const d of [null, data('not json'), data('{"title": 7}')]) {
    const w = worker();
    await w.fire('push', { data: d });
    assert.equal(w.did.shown.length, 1, `one notice for ${d?.text()}`);
    assert.equal(w.did.shown[0].title, 'Catan');
    assert.deepEqual(w.did.shown[0].options.data, { url: `${ORIGIN}/` });
  }
});

test('only addresses of the client are opened; a relative one is made absolute', async () => {
  const w = worker();
  await w.fire('push', { data: data(JSON.stringify({ title: 'a', body: 'b', url: 'https://elsewhere.example/phish' })) });
  await w.fire('push', { data: data(JSON.stringify({ title: 'a', body: 'b', url: '/?room=9' })) });
  assert.deepEqual(w.did.shown.map((s) => s.options.data.url), [`${ORIGIN}/`, `${ORIGIN}/?room=9`]);
});

test('a tap focuses the page open at the notice\'s address, else opens it', async () => {
  const url = `${ORIGIN}/?room=5b1e`;
  let closed = 0;
  const notification = { data: { url }, close: () => { closed++; } };
  const open = worker({ windows: [`${ORIGIN}/`, url] });
  await open.fire('notificationclick', { notification });
  assert.deepEqual([open.did.focused, open.did.opened, closed], [[url], [], 1]);
  assert.deepEqual(open.did.matched, { type: 'window', includeUncontrolled: true });
  const none = worker({ windows: [`${ORIGIN}/`] });
  await none.fire('notificationclick', { notification });
  assert.deepEqual([none.did.focused, none.did.opened, closed], [[], [url], 2]);
});

test('the worker takes over at once and intercepts no request', async () => {
  const w = worker();
  assert.deepEqual(Object.keys(w.handlers).sort(), ['activate', 'install', 'notificationclick', 'push']);
  await w.fire('install');
  await w.fire('activate');
  assert.deepEqual([w.did.skipped, w.did.claimed], [1, 1]);
});
