// Games over days (protocol 27) in the browser, and the client installable:
//
// - the room form: Live is the default; Over days shows the presets of the time per
//   move and the line on time-outs (the live timers' fields hidden); Create sends
//   `days: {move_hours}` and the room has the preset's clock;
// - the game: a person and bots in a room over days, started from the page; each
//   seat's clock in the player list (bank in hours and minutes, vacation days,
//   time-outs), the seat whose move it is with a countdown to its deadline in days,
//   hours and minutes (not m:ss), in the top bar too;
// - My games: the person (a guest, made when they took the seat) finds the game
//   first on the lobby, marked "your move", visible without scrolling on a phone; a
//   room gathering players they sit in after it, its seat not on this device said
//   so; a tap opens the game as the seat;
// - installable: the manifest the page links parses and has its name, short name,
//   icons (served), `display: standalone`, `start_url` `/` and the top bar's colour
//   (linked by the page and loaded by the browser, which the CSP's `manifest-src
//   'self'` allows: a test of its own); the service worker at `/sw.js` is registered with the scope `/` (Chromium; in
//   Firefox where the browser offers it), and nothing is cached (no Cache Storage).
//
// At 1366x768 in `desk` (English) and 390x844 in `phone` (Simplified Chinese), with
// screenshots of the form, the game with its clocks and My games: nothing scrolls
// sideways, every tap target at least 44 px.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { closeRooms, measure, openOptions } from './scenario.js';
import { tr } from './lobby.js';

const HOUR = 3600000;

/** The page's answer to `method path` (its cookie sent): status and body. */
const call = (tab, method, p, body) => tab.evaluate(async ([m, u, b]) => {
  const r = await fetch(u, { method: m, headers: b ? { 'content-type': 'application/json' } : {}, body: b ? JSON.stringify(b) : undefined });
  const text = await r.text();
  return { status: r.status, type: r.headers.get('content-type'), body: text };
}, [method, p, body]);

/** Nothing overflows sideways; every tap target is at least 44 px. */
async function fits(tab, width, where) {
  const m = await measure(tab);
  assert.ok(m.scrollWidth <= width, `${where}: no horizontal scrolling (${m.scrollWidth} px)`);
  assert.deepEqual(m.small, [], `${where}: every tap target is at least 44 px`);
}

/**
 * A room over days made with the lobby's form at `hours` a move for `players`, the
 * person seated as `name` with bots in the other seats, started: its id, once the
 * board shows. Checks the form on the way.
 */
async function dayRoomFromForm(tab, base, { hours, players, name, shot }) {
  await tab.goto(`${base}/`);
  await tab.waitFor('#play-bots');
  await openOptions(tab);
  assert.equal(await tab.evaluate(() => document.getElementById('opt-pace-live').checked), true, 'live unless asked');
  assert.equal(await tab.visible('#opt-move-hours'), false, 'no time per move for a live room');
  assert.equal(await tab.visible('#opt-turn'), true, 'the turn timer for a live room');
  await tab.click('#opt-pace-days');
  await tab.waitFor('#opt-move-hours');
  assert.equal(await tab.visible('#opt-turn'), false, 'no turn timer over days');
  assert.equal(await tab.visible('#opt-discard'), false, 'no discard timeout over days');
  assert.equal(await tab.text('#days-about'), await tr(tab, 'days.about'), 'what a time-out does, said');
  const presets = await tab.evaluate(() => [...document.querySelectorAll('#opt-move-hours option')].map((o) => o.value));
  assert.deepEqual(presets, ['1', '12', '24', '72'], 'the presets of protocol 27.1');
  await tab.select('#opt-move-hours', String(hours));
  await tab.select('#opt-players', String(players));
  await tab.evaluate(() => document.getElementById('opt-pace').scrollIntoView({ block: 'start' }));
  await tab.screenshot(shot);
  const width = tab.page.viewport().width;
  await fits(tab, width, 'the room form over days');
  // What Create sends, kept over the navigation to the room (sessionStorage).
  await tab.evaluate(() => {
    const real = window.fetch;
    window.fetch = (u, o) => {
      if (new URL(String(u), location.href).pathname === '/api/rooms' && o?.method === 'POST') sessionStorage.setItem('sent', String(o.body));
      return real(u, o);
    };
  });
  await tab.click('#create-room');
  await tab.waitForURL(/\?room=/);
  const sent = JSON.parse(await tab.evaluate(() => sessionStorage.getItem('sent')) || '{}');
  assert.deepEqual(sent.days, { move_hours: hours }, 'Create sends days: {move_hours}');
  const id = new URL(tab.url()).searchParams.get('room');
  const room = await (await fetch(`${base}/api/rooms/${id}`)).json();
  assert.equal(room.options.days?.move_hours, hours, 'a room over days');
  assert.equal(room.options.days.bank_hours, 2 * hours, "the preset's bank");
  await tab.waitFor('#join');
  const pace = await tab.evaluate(async (n) => {
    const { fmtDuration } = await import(new URL('ui.js', document.querySelector('script[type=module]').src).href);
    const { t } = await import(new URL('i18n.js', document.querySelector('script[type=module]').src).href);
    return t('days.per_move', { time: fmtDuration(n * 3600000) });
  }, hours);
  assert.ok((await tab.text('#room-slot')).includes(pace), `the room says it is over days, ${pace}`);
  await tab.fill('#join-name', name);
  await tab.click('#join');
  await tab.waitFor('#you-seat[data-seat="0"]');
  for (let i = 1; i < players; i++) {
    await tab.click('#add-bot');
    await tab.waitForFunction((n) => document.querySelectorAll('#seats tr[data-bot]').length === n, i, 10000);
  }
  await tab.click('#start');
  await tab.waitFor('#board');
  return { id, room };
}

/**
 * The clocks of a game over days as the page shows them: every seat's, the seat
 * whose move it is (the person's, seat 0, in the set-up) counting down to its
 * deadline in days, hours and minutes; its bank, vacation and time-outs as the
 * server's clocks say. Answers the countdown's text.
 */
async function clocksShown(tab, { hours, players }) {
  await tab.waitForFunction((n) => document.querySelectorAll('#players .clock-line').length === n && window.__catan.conn?.state.clocks, players, 15000);
  // The person owes a placement (the bots before them, if any, placed at once).
  await tab.waitForFunction(() => window.__catan.conn.state.view.current === 0 && window.__catan.conn.state.clocks.find((c) => c.seat === 0)?.deadline);
  const clocks = await tab.evaluate(() => window.__catan.conn.state.clocks);
  assert.equal(clocks.length, players, 'a clock a seat');
  const sel = '.clock-line[data-clock="0"] .move-clock .countdown';
  await tab.waitFor(sel);
  const shown = await tab.text(sel);
  const deadline = clocks[0].deadline;
  const expected = await tab.evaluate(async (d) => {
    const { fmtDuration } = await import(new URL('ui.js', document.querySelector('script[type=module]').src).href);
    return [fmtDuration(d - Date.now()), fmtDuration(d - Date.now() - 60000)];
  }, deadline);
  assert.ok(expected.includes(shown), `the move's countdown in days, hours and minutes: "${shown}", not ${JSON.stringify(expected)}`);
  assert.doesNotMatch(shown, /^\d+:\d\d$/, 'not m:ss');
  // Move time + bank + vacation: days away, whatever the preset.
  assert.ok(deadline - Date.now() > (hours + 2 * hours) * HOUR, 'the deadline is after the move, the bank and the vacation');
  assert.equal(await tab.text('#status-line .timer .countdown'), shown, 'the top bar counts down the same');
  for (const c of clocks) {
    const line = `.clock-line[data-clock="${c.seat}"]`;
    const bank = await tab.evaluate(async (ms) => {
      const { fmtDuration } = await import(new URL('ui.js', document.querySelector('script[type=module]').src).href);
      return fmtDuration(ms, { days: false });
    }, c.bank_ms);
    assert.equal(await tab.text(`${line} .bank-left`), bank, `seat ${c.seat}: the bank in hours and minutes`);
    assert.equal(await tab.text(`${line} .vacation-left`), await tr(tab, 'dur.d', { n: c.vacation_days }), `seat ${c.seat}: vacation days`);
    assert.equal(await tab.text(`${line} .time-outs b`), `${c.time_outs}/3`, `seat ${c.seat}: time-outs of the 3 that replace it`);
    assert.equal(await tab.count(`${line} .move-clock`), c.deadline ? 1 : 0, `seat ${c.seat}: a countdown only while the move is its`);
    assert.equal(await tab.count(`${line} [data-replaced]`), c.replaced ? 1 : 0, `seat ${c.seat}: replaced or not`);
  }
  // (A seat that already moved had a quarter of the move added, up to the cap.)
  for (const c of clocks) assert.ok(c.bank_ms >= 2 * hours * HOUR && c.bank_ms <= 3 * hours * HOUR, `seat ${c.seat}: the preset's bank (${c.bank_ms} ms)`);
  return shown;
}

/**
 * My games on the lobby: the game `id` first, marked "your move", opened by a tap
 * as the seat; a room gathering players the person sits in without its token on
 * this device after it, said so. Answers the phone check of the first screen.
 */
async function myGamesShown(tab, base, { id, gathering }) {
  await tab.goto(`${base}/`);
  // The room keeps its clocks in the store in the background, within moments.
  await tab.waitFor(`#my-games li[data-room="${id}"][data-your-move="1"]`, 20000);
  await tab.waitFor(`#my-games li[data-room="${gathering}"]`, 20000);
  const rows = await tab.evaluate(() => [...document.querySelectorAll('#my-games li')].map((li) => ({
    room: li.dataset.room, mine: li.dataset.yourMove, here: li.dataset.seatHere, status: li.dataset.status,
    badge: li.querySelector('.your-move')?.textContent ?? null, note: li.querySelector('.no-seat')?.textContent ?? null,
  })));
  assert.equal(rows[0].room, id, 'the game where the move is the person\'s first');
  assert.equal(rows[0].badge, await tr(tab, 'my.your_move'), 'marked "your move"');
  assert.equal(rows[0].here, '1', 'its seat is on this device');
  assert.equal(rows[0].note, null);
  const other = rows.find((r) => r.room === gathering);
  assert.deepEqual([other.mine, other.status, other.badge], ['0', 'lobby', null], 'the room gathering players, not marked');
  assert.ok(rows.indexOf(other) > 0, 'after the game where the move is the person\'s');
  assert.equal(other.note, await tr(tab, 'my.no_token'), 'its seat not on this device, said so');
  assert.ok((await tab.text(`#my-games li[data-room="${id}"] .my-left .countdown`)).length > 0, 'the time left for the move');
  // On the first screen, above the rest of the lobby.
  const place = await tab.evaluate((room) => {
    const r = document.querySelector(`#my-games li[data-room="${room}"]`).getBoundingClientRect();
    const hero = document.getElementById('quick').getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: innerHeight, scrollY, hero: hero.top };
  }, id);
  assert.equal(place.scrollY, 0);
  assert.ok(place.bottom <= place.height, `the game is on the first screen (${JSON.stringify(place)})`);
  assert.ok(place.top < place.hero, 'above the lobby\'s other content');
  return place;
}

/** A tap on the game in My games opens it as the seat. */
async function openFromMyGames(tab, id) {
  await tab.click(`#my-games li[data-room="${id}"] a.my-game`);
  await tab.waitForURL(new RegExp(`\\?room=${id}`));
  await tab.waitFor('#board');
  await tab.waitForFunction(() => window.__catan.conn?.state.you === 0);
  assert.equal(await tab.count('#players .badge[data-you]'), 1, 'opened as the seat, not to watch');
}

/**
 * The manifest the page links and the service worker: fields, types, icons, the
 * registration at the root (where the browser offers it), nothing cached.
 * Answers what was skipped, if anything, with the reason.
 */
async function installable(tab, base, browserName) {
  await tab.goto(`${base}/`);
  await tab.waitFor('#play-bots');
  const m = await call(tab, 'GET', '/manifest.webmanifest');
  assert.equal(m.status, 200);
  assert.match(m.type, /^application\/manifest\+json/, 'served as application/manifest+json');
  const manifest = JSON.parse(m.body);
  assert.equal(typeof manifest.name, 'string');
  assert.ok(manifest.name.length > 0 && manifest.short_name?.length > 0 && manifest.short_name.length <= 12, 'a name and a short name');
  assert.equal(manifest.display, 'standalone');
  assert.equal(manifest.start_url, '/');
  const bar = await tab.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bar').trim());
  assert.equal(manifest.theme_color, bar, "the theme colour is the top bar's");
  assert.equal(await tab.attr('meta[name=theme-color]', 'content'), bar);
  assert.ok(manifest.icons?.length > 0, 'icons');
  for (const icon of manifest.icons) {
    const r = await call(tab, 'GET', icon.src);
    assert.equal(r.status, 200, icon.src);
    assert.equal(r.type, icon.type, `${icon.src} served as ${icon.type}`);
  }
  const sw = await call(tab, 'GET', '/sw.js');
  assert.equal(sw.status, 200);
  assert.match(sw.type, /^text\/javascript/, 'the service worker served as text/javascript');
  const registered = await tab.evaluate(async () => {
    if (!navigator.serviceWorker) return { none: 'no navigator.serviceWorker' };
    const end = Date.now() + 10000;
    for (;;) {
      const reg = await navigator.serviceWorker.getRegistration();
      if (reg) return { scope: reg.scope, script: (reg.active || reg.waiting || reg.installing)?.scriptURL ?? null };
      if (Date.now() > end) return { missing: true };
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  let skipped = null;
  if (registered.none && browserName === 'firefox') {
    skipped = `Firefox here offers no service workers (${registered.none})`;
  } else {
    assert.ok(!registered.missing && !registered.none, `the service worker is registered (${JSON.stringify(registered)})`);
    assert.equal(registered.scope, `${base}/`, 'its scope is the whole client');
    assert.equal(registered.script, `${base}/sw.js`);
  }
  // Nothing cached by the worker: the lobby's API calls went to the server.
  const caches = await tab.evaluate(async () => (globalThis.caches ? caches.keys() : []));
  assert.deepEqual(caches, [], 'no Cache Storage');
  return skipped;
}

/**
 * What Chromium itself made of the manifest the page links (DevTools'
 * `Page.getAppManifest`): the page links `/manifest.webmanifest`, loaded without
 * errors, the fields as served. A page whose Content-Security-Policy has no
 * `manifest-src` falls back to `default-src 'none'`, and the browser refuses it.
 */
export async function manifestLoaded(browser, base) {
  const tab = await browser.newTab({ width: 1366, height: 768, isolated: true });
  try {
    await tab.goto(`${base}/`);
    await tab.waitFor('#play-bots');
    const href = await tab.evaluate(() => document.querySelector('link[rel=manifest]')?.href);
    assert.equal(href, `${base}/manifest.webmanifest`, 'index.html links the manifest');
    const cdp = await tab.page.createCDPSession();
    const got = await cdp.send('Page.getAppManifest', {});
    await cdp.detach();
    const refused = tab.errors.filter((e) => /manifest/i.test(e));
    assert.equal(got.url, `${base}/manifest.webmanifest`, `the browser loads the manifest the page links (${refused.join('; ') || 'not loaded'})`);
    assert.deepEqual(got.errors, [], 'without errors');
    const served = await (await fetch(`${base}/manifest.webmanifest`)).json();
    assert.deepEqual(JSON.parse(got.data), served, 'as served');
  } finally {
    await tab.close();
  }
}

/**
 * The whole scenario in `browser` against the server at `base`; the rooms closed
 * with the `admin` API at the end. Answers what it saw, for the log.
 */
export async function gamesOverDays(browser, base, out, admin) {
  mkdirSync(out, { recursive: true });
  const rooms = [];
  const saw = {};

  // A laptop in English: the form at 12 h a move, a game of four, My games.
  const desk = await browser.newTab({ width: 1366, height: 768, isolated: true });
  await desk.goto(`${base}/?lang=en`);
  const made = await dayRoomFromForm(desk, base, { hours: 12, players: 4, name: 'Annie', shot: path.join(out, 'days-form-1366-en.png') });
  rooms.push(made.id);
  saw.desk = await clocksShown(desk, { hours: 12, players: 4 });
  await desk.screenshot(path.join(out, 'days-game-1366-en.png'));
  await fits(desk, 1366, 'the game over days');
  // A room gathering players, the person seated over the API (their session's
  // cookie), the seat's token not kept by the page.
  const gathering = await call(desk, 'POST', '/api/rooms', { players: 3, days: { move_hours: 72 } });
  assert.equal(gathering.status, 201, gathering.body);
  const gatheringId = JSON.parse(gathering.body).room_id;
  rooms.push(gatheringId);
  const seated = await call(desk, 'POST', `/api/rooms/${gatheringId}/seats`, { name: 'Ann' });
  assert.equal(seated.status, 201, seated.body);
  await myGamesShown(desk, base, { id: made.id, gathering: gatheringId });
  await desk.screenshot(path.join(out, 'my-games-1366-en.png'));
  await fits(desk, 1366, 'My games');
  await openFromMyGames(desk, made.id);
  saw.skipped = await installable(desk, base, browser.name);

  // A phone in Simplified Chinese: the form at 1 h a move, a game of three, My games.
  const phone = await browser.newTab({ width: 390, height: 844, isolated: true });
  await phone.goto(`${base}/?lang=zh-Hans`);
  const small = await dayRoomFromForm(phone, base, { hours: 1, players: 3, name: '安妮', shot: path.join(out, 'days-form-390-zh-Hans.png') });
  rooms.push(small.id);
  saw.phone = await clocksShown(phone, { hours: 1, players: 3 });
  assert.match(saw.phone, /天|小时|分/, 'the countdown in Chinese units');
  await phone.screenshot(path.join(out, 'days-game-390-zh-Hans.png'));
  await fits(phone, 390, 'the game over days on a phone');
  const gathering2 = JSON.parse((await call(phone, 'POST', '/api/rooms', { players: 4, days: { move_hours: 24 } })).body).room_id;
  rooms.push(gathering2);
  assert.equal((await call(phone, 'POST', `/api/rooms/${gathering2}/seats`, { name: '安' })).status, 201);
  saw.place = await myGamesShown(phone, base, { id: small.id, gathering: gathering2 });
  await phone.screenshot(path.join(out, 'my-games-390-zh-Hans.png'));
  await fits(phone, 390, 'My games on a phone');
  await openFromMyGames(phone, small.id);

  const errors = [...desk.errors, ...phone.errors];
  assert.deepEqual(errors, [], 'no errors in the pages');
  await desk.close();
  await phone.close();
  await closeRooms(admin, rooms);
  return saw;
}
