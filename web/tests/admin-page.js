// The admin page (/admin/ui on the admin listener), as a community's admin without a
// terminal uses it: a wrong token is refused; the rooms are listed, one inspected,
// a seat kicked with a message its player sees; a player found by name, muted, banned
// (their session ends) and the ban lifted, each action in the record shown; the room
// closed. Every action is checked against the admin API; the page fits a phone.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { measure } from './scenario.js';
import { tr } from './lobby.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function json(r) {
  const text = await r.text();
  assert.ok(r.ok, `${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * @param {import('./driver.js').Browser} browser
 * @param {string} base
 * @param {string} out
 * @param {{ url: string | null, token: string }} admin
 * @param {string} lang
 */
export async function adminPage(browser, base, out, admin, lang) {
  assert.ok(admin?.url, 'the admin listener is given (CATAN_ADMIN_URL)');
  mkdirSync(out, { recursive: true });
  const api = (p, init = {}) => fetch(`${base}${p}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers || {}) } });
  const adminGet = (p) => fetch(`${admin.url}${p}`, { headers: { authorization: `Bearer ${admin.token}` } }).then(json);
  const name = `小明${Math.floor(Math.random() * 1e6)}`;

  // A guest with a seat in a room, connected from a page of its own.
  const guest = await json(await api('/api/guests', { method: 'POST', body: JSON.stringify({ name }) }));
  const { room_id: id } = await json(await api('/api/rooms', { method: 'POST', body: JSON.stringify({ players: 3 }) }));
  const seat = await json(await api(`/api/rooms/${id}/seats`, { method: 'POST', body: JSON.stringify({ name }), headers: { authorization: `Bearer ${guest.token}` } }));
  const player = await browser.newTab({ width: 390, height: 844, isolated: true });
  await player.goto(`${base}/?room=${id}&lang=${lang}#token=${seat.token}`);
  const connected = async () => (await json(await api(`/api/rooms/${id}`))).seats[0].connected;
  for (let i = 0; i < 150 && !(await connected()); i++) await sleep(100);
  assert.ok(await connected(), 'the player\'s page is connected');

  const tab = await browser.newTab({ width: 1366, height: 768, isolated: true });
  await tab.goto(`${admin.url}/admin/ui?lang=${lang}`);
  await tab.waitFor('#admin-token');
  assert.equal(await tab.text('#topbar .brand'), await tr(tab, 'admin.title'));
  // A wrong token: refused, asked again.
  await tab.fill('#admin-token', 'not the token');
  await tab.click('#token-submit');
  await tab.waitFor('#admin-said');
  assert.equal(await tab.text('#admin-said'), await tr(tab, 'admin.wrong_token'));
  await tab.fill('#admin-token', admin.token);
  await tab.click('#token-submit');

  // The room, inspected; seat 0 kicked with a message its player reads.
  const row = `#admin-rooms li[data-room="${id}"]`;
  await tab.waitFor(row);
  assert.equal(await tab.attr(`${row} .admin-seats li[data-seat="0"]`, 'data-connected'), 'true');
  await tab.click(`${row} button.inspect`);
  await tab.waitFor('#inspection pre');
  assert.ok((await tab.text('#inspection pre')).includes(id), 'the inspection is the room\'s');
  const message = lang === 'en' ? 'please come back in a minute' : '请一分钟后再回来';
  await tab.fill(`#msg-${id}`, message);
  await tab.click(`${row} button.kick[data-seat="0"]`);
  await tab.waitForFunction((t) => document.querySelector('#admin-said')?.textContent === t, await tr(tab, 'admin.kicked', { seat: 0 }), 10000);
  await player.waitForFunction((m) => document.body.innerText.includes(m), message, 15000);
  await player.close();

  // The player, found by a part of the name, muted for two hours.
  await tab.fill('#player-search', name.slice(2));
  await tab.click('#player-search-submit');
  const entry = `#admin-players li[data-player="${guest.player.id}"]`;
  // (The list before the search holds the player too: wait for the search's.)
  await tab.waitForFunction((sel) => document.querySelectorAll('#admin-players li').length === 1 && !!document.querySelector(sel), entry, 10000)
    .catch(async (e) => { throw new Error(`the search finds the one player: ${await tab.count('#admin-players li')} listed`, { cause: e }); });
  await tab.click(`${entry} button.player-open`);
  await tab.waitFor('#player-record');
  assert.equal(await tab.count('#admin-sessions li'), 1, 'the guest\'s session');
  const act = async (action, reason, extra = {}) => {
    await tab.fill('#mod-reason', reason);
    if (extra.hours) await tab.fill('#mod-hours', extra.hours);
    if (extra.by) await tab.fill('#mod-by', extra.by);
    await tab.click(`#do-${action}`);
    await tab.waitForFunction((t) => document.querySelector('#admin-said')?.textContent === t, await tr(tab, `admin.done_${action}`, { name }), 10000);
  };
  await act('mute', lang === 'en' ? 'flooding the chat' : '刷屏', { hours: 2, by: lang === 'en' ? 'Mei' : '管理员甲' });
  await tab.waitFor('#mute-line');
  let record = await adminGet(`/admin/players/${guest.player.id}`);
  assert.equal(record.player.muted.until - record.player.muted.since, 2 * 3600 * 1000, 'muted for two hours');

  // Banned: the session ends; then lifted. The record shows all three, newest first.
  await act('ban', lang === 'en' ? 'cheating' : '作弊');
  await tab.waitFor('#ban-line');
  assert.equal((await api('/api/me', { headers: { authorization: `Bearer ${guest.token}` } })).status, 401, 'the banned guest\'s session ended');
  await act('unban', lang === 'en' ? 'appeal granted' : '申诉通过');
  assert.equal(await tab.count('#ban-line'), 0, 'the ban is lifted');
  assert.deepEqual(await tab.evaluate(() => [...document.querySelectorAll('#moderation-log li')].map((l) => l.dataset.action)), ['unban', 'ban', 'mute']);
  record = await adminGet(`/admin/players/${guest.player.id}`);
  assert.deepEqual(record.moderation.map((m) => m.action), ['unban', 'ban', 'mute']);
  assert.equal(record.moderation[2].by, lang === 'en' ? 'Mei' : '管理员甲');
  await tab.screenshot(path.join(out, `admin-${lang}.png`), { fullPage: true });

  // On a phone: nothing sideways.
  await tab.page.setViewport({ width: 390, height: 844 });
  const phone = await measure(tab);
  assert.ok(phone.scrollWidth <= 390, `the admin page fits a phone (${phone.scrollWidth} px)`);
  await tab.screenshot(path.join(out, `admin-${lang}-390x844.png`));
  await tab.page.setViewport({ width: 1366, height: 768 });

  // The room closed from the page.
  await tab.click(`${row} button.close-room`);
  await tab.waitForFunction((t) => document.querySelector('#admin-said')?.textContent.startsWith(t), (await tr(tab, 'admin.closed', { n: 0 })).slice(0, 4), 10000);
  // (The list is read again until the room has left it.)
  for (let i = 0; i < 50 && (await tab.count(row)); i++) { await tab.click('#refresh'); await sleep(200); }
  assert.equal(await tab.count(row), 0, 'the room left the list');
  const rooms = await adminGet('/admin/rooms');
  assert.ok(!rooms.rooms.some((r) => r.id === id), 'the room is gone');
  assert.deepEqual(tab.errors.filter((e) => !/401/.test(e)), [], 'no errors in the page (but the refused token\'s 401)');
  await tab.close();
}
