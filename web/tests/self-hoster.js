// A self-hoster's first day, as the player's page shows it:
//
// - a page opened at an address the server does not accept (`origin_not_allowed`,
//   protocol.md 19) names that address and the setting that would allow it, in each
//   language: when creating a room from the lobby (HTTP 403) and when its WebSocket
//   is refused before the upgrade (a refused socket tells the page nothing, so the
//   page must find out, and stop reconnecting);
// - an administrator's words on kicking a seat or closing a room (protocol.md 22.4,
//   22.5: `closing` with the admin's message, then close code 4011 or 4010) reach the
//   player's page as written.
//
// The refused address is `refused.localhost` on the test server's port: browsers
// resolve *.localhost to the loopback (Firefox is told so by driver.js), and the
// server accepts only its own listener's origins (127.0.0.1 and localhost).

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** The translation of `key` in the page's own language (its i18n module). */
const tr = (tab, key, params = {}) => tab.evaluate(async ([k, p]) => {
  const { t } = await import(new URL('i18n.js', document.querySelector('script[type=module]').src).href);
  return t(k, p);
}, [key, params]);

/** A room of `players` over HTTP (no Origin header: not a browser page), with a seat for a person. */
async function roomWithASeat(base, { players = 3, bots = 2, start = true } = {}) {
  const post = async (p, body, token) => {
    const r = await fetch(`${base}${p}`, {
      method: 'POST', body: JSON.stringify(body ?? {}),
      headers: { 'content-type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    });
    assert.ok(r.ok, `POST ${p}: ${r.status}`);
    return r.json();
  };
  const { room_id: id, host_token: host } = await post('/api/rooms', { players, vp_target: 10, stand_in_secs: 0 });
  const { token, seat } = await post(`/api/rooms/${id}/seats`, { name: 'Ada' });
  for (let i = 0; i < bots; i++) await post(`/api/rooms/${id}/bots`, { kind: 'easy' }, host);
  if (start) await post(`/api/rooms/${id}/start`, {}, host);
  return { id, token, seat, host };
}

/**
 * A page at a refused address: creating a room from the lobby (en at 390x844) and a
 * seat's page whose socket is refused (zh-Hant, zh-Hans) each say which address the
 * page was opened at and which settings allow it; the socket is not retried for ever.
 */
export async function refusedOrigin(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const port = new URL(base).port;
  const foreign = `http://refused.localhost:${port}`;
  const says = (text, lang) => {
    assert.ok(text.includes(foreign), `${lang}: the message names the page's address ${foreign}: ${text}`);
    assert.ok(text.includes('CATAN_PUBLIC_ORIGINS') && text.includes('CATAN_DOMAIN'), `${lang}: the message names the settings: ${text}`);
  };

  const tab = await browser.newTab({ width: 390, height: 844, isolated: true });
  await tab.goto(`${foreign}/?lang=en`);
  await tab.waitFor('#play-bots');
  await tab.fill('#quick-name', 'Ada');
  await tab.click('#play-bots');
  await tab.waitForFunction(() => document.getElementById('quick-error')?.textContent.trim());
  const lobby = await tab.text('#quick-error');
  says(lobby, 'en');
  assert.equal(lobby, await tr(tab, 'err.origin_not_allowed', { origin: foreign }));
  await tab.screenshot(path.join(out, 'refused-origin-lobby.png'));

  for (const lang of ['zh-Hant', 'zh-Hans']) {
    const { id, token } = await roomWithASeat(base);
    await tab.goto(`${foreign}/?room=${id}&lang=${lang}#token=${token}`);
    await tab.waitForFunction((f) => document.getElementById('conn')?.textContent.includes(f), foreign, 20000);
    const said = await tab.text('#conn');
    says(said, lang);
    assert.equal(said, await tr(tab, 'err.origin_not_allowed', { origin: foreign }));
    // It stays said: no reconnecting line replaces it.
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(await tab.text('#conn'), said, `${lang}: the page stopped reconnecting`);
    if (lang === 'zh-Hant') await tab.screenshot(path.join(out, 'refused-origin-room.png'));
  }
  await tab.close();
}

/** An admin API call. */
async function adminCall(admin, p, body) {
  const r = await fetch(`${admin.url}${p}`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.token}` },
  });
  const text = await r.text();
  assert.ok(r.ok, `POST ${p}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * An administrator kicks a playing person with a message, then (the person back
 * after a reload) closes the room with another: each time the page shows the words
 * as written, beside its own line.
 */
export async function adminWordsReachThePlayer(browser, base, out, admin) {
  mkdirSync(out, { recursive: true });
  const { id, token, seat } = await roomWithASeat(base);
  const tab = await browser.newTab({ width: 390, height: 844, isolated: true });
  await tab.goto(`${base}/?room=${id}&lang=en#token=${token}`);
  await tab.waitFor('#board');

  const kick = 'Please come back after the break: we restart at 15:00.';
  await adminCall(admin, `/admin/rooms/${id}/seats/${seat}/kick`, { message: kick });
  await tab.waitForFunction((k) => document.getElementById('conn')?.textContent.includes(k), kick, 10000);
  const kicked = await tab.text('#conn');
  assert.equal(kicked, await tr(tab, 'conn.said', { why: await tr(tab, 'conn.kicked'), text: kick }));
  await tab.screenshot(path.join(out, 'admin-kick.png'));

  // The seat and its token stay valid (protocol.md 22.5): back after a reload.
  await tab.reload();
  await tab.waitFor('#board');
  await tab.waitForFunction(() => document.getElementById('conn')?.hidden);
  const close = '这一桌今晚关闭了 — the table is closed for the night.';
  await adminCall(admin, `/admin/rooms/${id}/close`, { message: close });
  await tab.waitForFunction((k) => document.getElementById('conn')?.textContent.includes(k), close, 10000);
  assert.equal(await tab.text('#conn'), await tr(tab, 'conn.said', { why: await tr(tab, 'conn.room_closed'), text: close }));
  assert.deepEqual(tab.errors.filter((e) => !/WebSocket|websocket|404/.test(e)), [], 'no errors in the page');
  await tab.close();
}
