// The client's service worker, served at the root (`/sw.js`) so that its scope is the
// whole client (`/`): with the manifest (manifest.webmanifest) it makes the client
// installable. It keeps nothing and intercepts nothing: with no fetch handler every
// request (the page, its files, the API, the WebSocket) goes to the server as
// without it, and nothing is ever cached here.

const worker = /** @type {any} */ (self);

// A new version takes over at once (there is nothing of the old one to keep).
worker.addEventListener('install', () => worker.skipWaiting());
worker.addEventListener('activate', (/** @type {any} */ e) => e.waitUntil(worker.clients.claim()));
