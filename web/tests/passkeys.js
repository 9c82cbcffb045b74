// Passkeys (protocol.md 25.10) on a phone (390x844), in Traditional Chinese, with
// Chromium's virtual authenticator (DevTools' WebAuthn domain: a platform
// authenticator that keeps discoverable credentials and verifies its user).
//
// - A guest sees no passkeys panel (passkeys belong to accounts).
// - At the server's address (127.0.0.1, not its domain) adding one is refused by the
//   browser, and the page says why in words.
// - At http://localhost (the server's relying party when it has no public origins):
//   an account adds a passkey; the list shows it, not yet used; signed out, the
//   sign-in button signs in to the account without a name or password typed; the
//   list then shows it used; the signed-in devices name this one. Its signature
//   altered on the way, or its answer sent a second time, it is refused.
// - The passkey removed, the same authenticator's answer is refused in words (as a
//   wrong password is), and nobody is signed in.
// - Every page fits: nothing overflows sideways, every tap target at least 44 px.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { measure } from './scenario.js';
import { tr } from './lobby.js';

/** The page's answer to `method path` (its cookie sent): status and body. */
const call = (tab, method, p, body) => tab.evaluate(async ([m, u, b]) => {
  const r = await fetch(u, { method: m, headers: b ? { 'content-type': 'application/json' } : {}, body: b ? JSON.stringify(b) : undefined });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}, [method, p, body]);

async function fits(tab, where) {
  const m = await measure(tab);
  assert.ok(m.scrollWidth <= 390, `${where}: no horizontal scrolling (${m.scrollWidth} px)`);
  assert.deepEqual(m.small, [], `${where}: every tap target is at least 44 px`);
}

/** Marks `tab`'s browser as holding a session made over the API (as the page does). */
const markSignedIn = (tab) => tab.evaluate(() => localStorage.setItem('catan.signed_in', '1'));

/** Waits until `#account-said` says `key`'s translation. */
async function said(tab, key, params = {}) {
  const want = await tr(tab, key, params);
  await tab.waitForFunction((x) => document.querySelector('#account-said')?.textContent === x, want, 15000)
    .catch(async (e) => { throw new Error(`the account page says "${await tab.text('#account-said')}", not "${want}" (${key})`, { cause: e }); });
}

/** The account page of `tab` shows `kind` ('guest', 'account', 'none') signed in. */
async function showsKind(tab, kind) {
  await tab.waitForFunction((k) => document.querySelector('#me-line')?.dataset.kind === k, kind, 15000)
    .catch(async (e) => { throw new Error(`the account page shows ${await tab.attr('#me-line', 'data-kind')}, not ${kind}`, { cause: e }); });
}

/** A virtual platform authenticator in `tab`'s page: its id. */
async function authenticator(tab) {
  const cdp = await tab.page.createCDPSession();
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport: 'internal', hasResidentKey: true,
      hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

/**
 * The whole life of a passkey, in Chromium against the server at `base` (an
 * `http://127.0.0.1:PORT` address). Answers what it saw, for the log.
 */
export async function passkeys(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const size = { width: 390, height: 844 };
  const name = `金鑰${Math.floor(Math.random() * 1e6)}`;
  const password = 'correct horse battery';

  // 1. At the address: a guest has no passkeys panel; an account's is refused by the
  // browser (the relying party is a domain), in words.
  const atAddress = await browser.newTab({ ...size, isolated: true });
  await authenticator(atAddress);
  await atAddress.goto(`${base}/?lang=zh-Hant`);
  await atAddress.waitFor('#play-bots');
  assert.equal((await call(atAddress, 'POST', '/api/guests', { name })).status, 201);
  await markSignedIn(atAddress);
  await atAddress.goto(`${base}/?account&lang=zh-Hant`);
  await showsKind(atAddress, 'guest');
  assert.equal(await atAddress.count('#passkeys-panel'), 0, 'a guest has no passkeys');
  const claimed = await call(atAddress, 'POST', '/api/me/claim', { name, password });
  assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
  await atAddress.reload();
  await showsKind(atAddress, 'account');
  await atAddress.waitFor('#no-passkeys');
  await atAddress.click('#add-passkey');
  await said(atAddress, 'err.passkeys_unavailable');
  assert.equal((await call(atAddress, 'GET', '/api/me/passkeys')).body.passkeys.length, 0, 'nothing registered');
  await atAddress.close();

  // 2. At localhost: the same account adds a passkey.
  const local = base.replace('://127.0.0.1:', '://localhost:');
  const tab = await browser.newTab({ ...size, isolated: true });
  const auth = await authenticator(tab);
  await tab.goto(`${local}/?account&lang=zh-Hant`);
  await showsKind(tab, 'none');
  assert.equal(await tab.count('#passkey-sign-in'), 1, 'a passkey sign-in is offered');
  assert.equal((await call(tab, 'POST', '/api/sessions', { name, password })).status, 201);
  await markSignedIn(tab);
  await tab.reload();
  await showsKind(tab, 'account');
  await tab.waitFor('#no-passkeys');
  await fits(tab, 'an account without a passkey');
  await tab.click('#add-passkey');
  await said(tab, 'account.passkey_added');
  await tab.waitFor('#passkeys li[data-passkey]');
  const listed = (await call(tab, 'GET', '/api/me/passkeys')).body.passkeys;
  assert.equal(listed.length, 1, 'one passkey kept');
  assert.equal(listed[0].last_used_at, null, 'not used yet');
  assert.match(listed[0].id, /^[0-9a-f]+$/, 'its id is its credential id in hex');
  const creds = (await auth.cdp.send('WebAuthn.getCredentials', { authenticatorId: auth.id })).credentials;
  assert.equal(creds.length, 1, 'the authenticator holds one credential');
  assert.ok(creds[0].isResidentCredential, 'a discoverable credential (the sign-in names nobody)');
  assert.equal(Buffer.from(creds[0].credentialId, 'base64').toString('hex'), listed[0].id, 'the one the server keeps');
  assert.ok((await tab.text('#passkeys li .device b')).trim().length > 0, 'labelled by its device');
  await tab.page.screenshot({ path: path.join(out, 'passkeys-390-zh-Hant.png'), fullPage: true });
  await fits(tab, 'an account with a passkey');

  // 3. Signed out, the passkey signs in: no name, no password. First with its
  // signature altered on the way (refused as a wrong password is), then as it is;
  // that same answer sent again is refused (a ceremony is finished once).
  await tab.click('#sign-out');
  await showsKind(tab, 'none');
  await tab.evaluate(() => {
    const real = window.fetch;
    window.__finishes = [];
    window.__tamper = true;
    window.fetch = (u, o) => {
      if (String(u).endsWith('/api/sessions/passkey/finish')) {
        const b = JSON.parse(o.body);
        if (window.__tamper) {
          const sig = b.credential.response.signature;
          b.credential.response.signature = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
        }
        o = { ...o, body: JSON.stringify(b) };
        window.__finishes.push(o.body);
      }
      return real(u, o);
    };
  });
  await tab.click('#passkey-sign-in');
  await said(tab, 'err.invalid_credentials');
  await showsKind(tab, 'none');
  await tab.evaluate(() => { window.__tamper = false; });
  await tab.click('#passkey-sign-in');
  await showsKind(tab, 'account');
  const replayed = await tab.evaluate(async () => {
    const r = await fetch('/api/sessions/passkey/finish', { method: 'POST', headers: { 'content-type': 'application/json' }, body: window.__finishes[1] });
    return { status: r.status, body: await r.json() };
  });
  assert.deepEqual([replayed.status, replayed.body.error.code], [401, 'invalid_credentials'], 'an answer replayed is refused');
  assert.equal(await tab.text('#me-name'), name, 'signed in to the account');
  await said(tab, 'account.signed_in', { name });
  const after = (await call(tab, 'GET', '/api/me/passkeys')).body.passkeys;
  assert.ok(after[0].last_used_at >= after[0].created_at, 'the list shows it used');
  const sessions = (await call(tab, 'GET', '/api/sessions')).body.sessions;
  assert.ok(sessions.some((s) => s.current), 'a session of this device');
  const cookie = await tab.evaluate(() => document.cookie);
  assert.doesNotMatch(cookie, /catan_session/, 'the session cookie is HttpOnly');

  // 4. Removed, the same authenticator's answer is refused as a wrong password is.
  await tab.click('.delete-passkey');
  await said(tab, 'account.passkey_removed');
  await tab.waitFor('#no-passkeys');
  await tab.click('#sign-out');
  await showsKind(tab, 'none');
  await tab.click('#passkey-sign-in');
  await said(tab, 'err.invalid_credentials');
  await showsKind(tab, 'none');
  assert.equal((await call(tab, 'GET', '/api/me')).status, 401, 'nobody signed in');
  await fits(tab, 'the sign-in refused');
  assert.deepEqual(tab.errors.filter((e) => !/status of 40[01]/.test(e)), [], 'no page errors');
  await tab.close();
  return { name };
}
