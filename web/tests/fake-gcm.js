// A fake of Google's GCM device service (what Chromium's push subscriptions go
// through), in Node, on the loopback: so that `pushManager.subscribe` succeeds in
// headless Chromium offline, for real (the browser's own code, not a hook).
//
// Why: Chromium's Web Push rides on its GCM client. A subscription first checks the
// browser in with Google (a device id and a secret), then registers the worker's
// scope with the `applicationServerKey` as sender and gets a token; the
// subscription's endpoint is Google's push URL with that token. With no network to
// Google the promise never settles. Chromium's switches `--gcm-checkin-url`,
// `--gcm-registration-url` and `--gcm-mcs-endpoint` (google_apis/gcm/engine,
// gservices_switches) point its GCM client elsewhere: here. Plain http on
// 127.0.0.1 is taken for the first two.
//
// What it fakes (as Chromium 156 asks it, seen by this file's server):
// - the check-in, `POST /checkin` with a protobuf `AndroidCheckinRequest`: answered
//   with an `AndroidCheckinResponse` of `stats_ok` (1), `android_id` (7, fixed64),
//   `security_token` (8, fixed64) and `settings_diff` false (9), hand-encoded;
//   nothing of the request is decoded;
// - the registrations, `POST /register`, form-encoded (`app`, `X-subtype` (for a
//   push subscription `wp:<origin>/#<id>`), `device`, `sender` (the
//   applicationServerKey, base64url), `appid`, `scope`...) under `Authorization:
//   AidLogin <android_id>:<security_token>`: answered `token=<a new token>`, or
//   `Error=AUTHENTICATION_FAILED` to another device's credentials. Chromium also
//   registers an app of its own (`com.google.android.gms`); only `wp:` ones are
//   push subscriptions;
// - the MCS endpoint (the long-lived connection pushes would come down, TLS with a
//   protobuf login): a socket that is closed at once. A subscription does not wait
//   for it (the client is ready once checked in); Chromium retries with backoff. So
//   no push comes this way: the tests deliver pushes over the DevTools protocol.
//
// The subscription's endpoint stays Google's (Chromium builds it:
// `https://jmt17.google.com/fcm/send/<token>` with these switches), with the token
// this fake handed out as its last segment.

import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';

/** Protobuf's base-128 varint of `n`. */
function varint(n) {
  let v = BigInt(n);
  const out = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}

/** A protobuf field: its key (number and wire type) then `bytes`. */
const field = (number, wire, bytes) => Buffer.concat([varint((number << 3) | wire), bytes]);
const boolField = (number, v) => field(number, 0, varint(v ? 1 : 0));
function fixed64Field(number, v) {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  return field(number, 1, b);
}

/** A random non-zero unsigned 63-bit number (as Chromium keeps it signed). */
const id63 = () => (randomBytes(8).readBigUInt64LE() >> 1n) | 1n;

/**
 * Starts the fake on the loopback. Answers its switches for Chromium (`args`), what
 * it was asked (`checkins`, `registrations`: each with its form fields and whether
 * it was answered with a token), the device it made up, and `close()`.
 */
export async function startFakeGcm() {
  const device = { androidId: id63(), securityToken: id63() };
  const checkins = [];
  const registrations = [];
  const mcsConnections = [];

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = new URL(req.url, 'http://fake').pathname;
      if (req.method === 'POST' && path === '/checkin') {
        checkins.push({ contentType: req.headers['content-type'], bytes: body.length });
        const answer = Buffer.concat([
          boolField(1, true), // stats_ok
          fixed64Field(7, device.androidId), // android_id
          fixed64Field(8, device.securityToken), // security_token
          boolField(9, false), // settings_diff: no G-services settings
        ]);
        res.writeHead(200, { 'content-type': 'application/x-protobuf' });
        res.end(answer);
        return;
      }
      if (req.method === 'POST' && path === '/register') {
        const form = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
        const authorized = req.headers.authorization === `AidLogin ${device.androidId}:${device.securityToken}`;
        const token = authorized ? `fake-gcm-${randomBytes(12).toString('base64url')}` : null;
        registrations.push({ form, authorized, token });
        res.writeHead(authorized ? 200 : 401, { 'content-type': 'text/plain' });
        res.end(authorized ? `token=${token}` : 'Error=AUTHENTICATION_FAILED');
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not faked here');
    });
  });
  const mcs = net.createServer((socket) => {
    mcsConnections.push(Date.now());
    socket.destroy();
  });
  const listen = (s) => new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(s.address().port));
  });
  const port = await listen(server);
  const mcsPort = await listen(mcs);
  const origin = `http://127.0.0.1:${port}`;
  return {
    device,
    checkins,
    registrations,
    mcsConnections,
    /** Chromium's switches to use this fake. */
    args: [
      `--gcm-checkin-url=${origin}/checkin`,
      `--gcm-registration-url=${origin}/register`,
      `--gcm-mcs-endpoint=https://127.0.0.1:${mcsPort}`,
    ],
    /** The push subscriptions registered (`X-subtype` `wp:<origin>/#...`) and granted a token. */
    pushTokens: () => registrations.filter((r) => r.token && r.form['X-subtype']?.startsWith('wp:')),
    close: () => Promise.all([server, mcs].map((s) => new Promise((r) => {
      s.closeAllConnections?.();
      s.close(() => r());
    }))),
  };
}
