// The game screen as a person on a phone meets it, beyond the layout (game-screen.js):
//
// - leaving a game in the same tab (Back) closes its connection at once, as closing
//   the tab does: the server shows the seat away within a second and its stand-in
//   takes over; Forward brings the page back and it plays on;
// - the end screen of a four-player game fits 390 px, and the final board, the end
//   screen and the replay count every Victory Point card (game_over's scores);
// - with prefers-reduced-motion nothing moves: no card flies, no die tumbles, the
//   robber jumps (the same game without it shows cards flying);
// - on an emulated slow 4G line (Chromium) the lobby is there in under a second
//   after the first visit: the page and its files from the cache (the files kept
//   for good under the build's version, the page a minute).

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { launch } from './driver.js';
import { closeRooms } from './scenario.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function post(base, p, body, token) {
  const r = await fetch(`${base}${p}`, {
    method: 'POST', body: JSON.stringify(body ?? {}),
    headers: { 'content-type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  });
  const text = await r.text();
  assert.ok(r.ok, `POST ${p}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
const room = (base, id) => fetch(`${base}/api/rooms/${id}`).then((r) => r.json());

/** A started room of `players` with the person in seat 0 and bots of `kind` in the others. */
async function personAndBots(base, { players = 3, kind = 'hard', options = {} } = {}) {
  const { room_id: id, host_token: host } = await post(base, '/api/rooms', { players, ...options });
  const { token } = await post(base, `/api/rooms/${id}/seats`, { name: 'Ada' });
  for (let i = 1; i < players; i++) await post(base, `/api/rooms/${id}/bots`, { kind }, host);
  await post(base, `/api/rooms/${id}/start`, {}, host);
  return { id, token };
}


/**
 * Back from a game to the lobby, then Forward to it: away within a second, the
 * stand-in (after stand_in_secs, 1 s here) takes over, and the page is back in the
 * game on Forward, connected again.
 */
export async function leavingByBack(browser, base, out, admin) {
  mkdirSync(out, { recursive: true });
  const { id, token } = await personAndBots(base, { options: { stand_in_secs: 1 } });
  const tab = await browser.newTab({ width: 390, height: 844, isolated: true });
  await tab.goto(`${base}/?lang=en`);
  await tab.waitFor('#play-bots');
  await tab.goto(`${base}/?room=${id}&lang=en#token=${token}`);
  await tab.waitFor('#board');
  const seat0 = async () => (await room(base, id)).seats[0];
  for (let i = 0; i < 50 && !(await seat0()).connected; i++) await sleep(100);
  assert.equal((await seat0()).connected, true, 'seated and connected');
  const t0 = Date.now();
  // (A page restored from the back-forward cache may fire no load: the server is
  // watched meanwhile.)
  const going = tab.page.goBack({ waitUntil: 'domcontentloaded', timeout: 5000 }).catch(() => {});
  let away = null;
  for (let i = 0; i < 150; i++) {
    if (!(await seat0()).connected) { away = Date.now() - t0; break; }
    await sleep(20);
  }
  // The stand-in is watched from the server at once, while the page goes back (a
  // slow Firefox took so long to show the lobby that the game, played on by the
  // stand-in and the bots, was over, and its stand-in gone, before it was looked for).
  let standIn = false;
  let last = null;
  const left = Date.now();
  // 1 s after the seat went away; up to 15 s on a machine busy with other tests.
  for (let i = 0; i < 150 && !standIn; i++) { last = await seat0(); standIn = !!last.stand_in; if (!standIn) await sleep(100); }
  const waited = Date.now() - left;
  await going;
  await tab.waitFor('#play-bots');
  assert.ok(away !== null && away < 1500, `the server saw the seat away ${away} ms after Back`);
  if (!standIn) {
    // What the room was doing: whose decision it was (a stand-in comes only for one).
    const inspect = admin?.url ? await fetch(`${admin.url}/admin/rooms/${id}?events=8`, { headers: { authorization: `Bearer ${admin.token}` } })
      .then((r) => r.json()).then((d) => ({ phase: d.room.phase, seats: d.room.seats, current: d.game?.current, events: d.events.map((e) => e.type) }))
      .catch((e) => String(e)) : 'no admin API';
    assert.fail(`a stand-in took the seat over, as for a closed tab (waited ${waited} ms): seat 0 ${JSON.stringify(last)}, ${JSON.stringify(inspect)}`);
  }
  await tab.page.goForward({ waitUntil: 'domcontentloaded', timeout: 5000 }).catch(() => {});
  await tab.waitFor('#board');
  let back = false;
  for (let i = 0; i < 50 && !back; i++) { back = !!(await seat0()).connected; if (!back) await sleep(100); }
  assert.ok(back, 'Forward: the page is back in the game, connected');
  await tab.waitFor('#players [data-you]');
  await tab.screenshot(path.join(out, 'back-forward.png'));
  assert.deepEqual(tab.errors, [], 'no errors in the page');
  await tab.close();
  await closeRooms(admin, [id]);
  return { away };
}

/**
 * A spectator at 390x844 watches four bots to the end: the end screen fits (no
 * sideways overflow, four columns within the width, controls 44 px), its points are
 * game_over's, Victory Point cards included; closed, the final board's players show
 * the same points; the replay's last step too.
 */
export async function endScreenOnAPhone(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const { room_id: id, host_token: host } = await post(base, '/api/rooms', { players: 4, vp_target: 6 });
  for (let i = 0; i < 4; i++) await post(base, `/api/rooms/${id}/bots`, { kind: 'medium' }, host);
  const tab = await browser.newTab({ width: 390, height: 844, isolated: true });
  await tab.goto(`${base}/?room=${id}&lang=zh-Hant`);
  await tab.waitFor('#seats');
  await post(base, `/api/rooms/${id}/start`, {}, host);
  await tab.waitFor('#game-over', 90000);
  await sleep(300);
  const m = await tab.evaluate(() => {
    const d = document.querySelector('#game-over');
    const heads = [...document.querySelectorAll('#points-by-source tr:first-child th[data-seat]')].map((th) => {
      const r = th.getBoundingClientRect();
      return { left: r.left, right: r.right, width: r.width };
    });
    const small = [...d.querySelectorAll('button, a, summary')].filter((e) => e.getClientRects().length)
      .map((e) => ({ e, r: e.getBoundingClientRect() })).filter(({ r }) => r.width < 44 || r.height < 44).map(({ e }) => e.id || e.textContent);
    return { scrollWidth: document.documentElement.scrollWidth, dialog: d.scrollWidth - d.clientWidth, heads, small, innerWidth };
  });
  await tab.screenshot(path.join(out, 'end-screen-4-players-390.png'));
  assert.ok(m.scrollWidth <= 390 && m.dialog <= 0, `nothing overflows sideways (page ${m.scrollWidth}, dialog ${m.dialog})`);
  assert.equal(m.heads.length, 4, 'four players');
  assert.ok(m.heads.every((x) => x.left >= 0 && x.right <= m.innerWidth && x.width > 0), `each player's column within the screen: ${JSON.stringify(m.heads)}`);
  assert.deepEqual(m.small, [], 'every control at least 44 px');
  const over = await tab.evaluate(() => window.__catan.conn.state.gameOver);
  const totals = await tab.evaluate(() => [...document.querySelectorAll('#points-by-source tr[data-source="total"] td')].map((td) => Number(td.textContent)));
  assert.deepEqual(totals, over.scores.map((x) => x.points), 'the end screen counts every Victory Point card');
  // The final board behind it.
  await tab.click('#close-game-over');
  const board = await tab.evaluate(() => [...document.querySelectorAll('#players .player')].map((p) => Number(p.querySelector('.stat.vp b').textContent)));
  assert.deepEqual(board, over.scores.map((x) => x.points), `the final board counts them too (VP cards: ${over.scores.map((x) => x.vp_cards)})`);
  assert.ok(over.scores.some((x) => x.points >= 6), 'someone reached the target');
  // The replay's last step.
  await tab.goto(`${base}/?replay=${id}&lang=zh-Hant`);
  await tab.waitFor('#replay-last');
  await tab.click('#replay-last');
  const replayed = await tab.evaluate(() => [...document.querySelectorAll('#replay-players td.vp')].map((td) => Number(td.textContent)));
  assert.deepEqual(replayed, over.scores.map((x) => x.points), 'the replay\'s end counts them');
  assert.deepEqual(tab.errors.filter((e) => !/status of 4/.test(e)), [], 'no errors in the page');
  await tab.close();
}

/**
 * The same kind of game watched with and without prefers-reduced-motion: with it no
 * card flies and no die tumbles and the robber has no transition; without it cards
 * fly from the tiles. (Emulated through the browser's media features.)
 */
export async function reducedMotion(browser, base, out, admin) {
  mkdirSync(out, { recursive: true });
  // (Firefox: a browser of its own that prefers reduced motion; Chromium emulates it per page.)
  const firefox = browser.name === 'firefox';
  const watchOnce = async (reduce) => {
    const { room_id: id, host_token: host } = await post(base, '/api/rooms', { players: 3, vp_target: 10 });
    for (let i = 0; i < 3; i++) await post(base, `/api/rooms/${id}/bots`, { kind: 'medium' }, host);
    const own = reduce && firefox ? await launch('firefox', { reducedMotion: true }) : null;
    const tab = await (own || browser).newTab({ width: 390, height: 844, isolated: true });
    if (!firefox) await tab.page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: reduce ? 'reduce' : 'no-preference' }]);
    await tab.goto(`${base}/?room=${id}&lang=en`);
    await tab.waitFor('#seats');
    await tab.evaluate(() => {
      window.__motion = { flies: 0, anims: 0 };
      new MutationObserver((ms) => { for (const m of ms) for (const n of m.addedNodes) if (n.classList?.contains('fly')) window.__motion.flies += 1; })
        .observe(document.body, { childList: true });
      document.addEventListener('animationstart', () => { window.__motion.anims += 1; });
    });
    await post(base, `/api/rooms/${id}/start`, {}, host);
    // Until several rolls have been seen (or the game is over).
    await tab.waitForFunction(() => (window.__catan.rolls || 0) >= 6 || window.__catan.conn?.state.gameOver, null, 60000).catch(() => {});
    await sleep(500);
    const r = await tab.evaluate(() => ({
      ...window.__motion, rolls: window.__catan.rolls,
      robber: getComputedStyle(document.querySelector('#board .robber')).transitionDuration,
      matches: matchMedia('(prefers-reduced-motion: reduce)').matches,
    }));
    await tab.screenshot(path.join(out, `motion-${reduce ? 'reduced' : 'full'}.png`));
    await tab.close();
    if (own) await own.close();
    await closeRooms(admin, [id]);
    return r;
  };
  const full = await watchOnce(false);
  const reduced = await watchOnce(true);
  assert.equal(reduced.matches, true, 'the page sees the preference');
  assert.ok(full.rolls >= 1 && full.flies > 0 && full.anims > 0, `without it cards fly and dice tumble (${JSON.stringify(full)})`);
  assert.ok(reduced.rolls >= 1, 'the reduced game rolled too');
  assert.equal(reduced.flies, 0, 'with it no card flies');
  assert.equal(reduced.anims, 0, 'and nothing animates');
  assert.match(reduced.robber, /^0s/, 'the robber jumps');
  return { full, reduced };
}

/**
 * The lobby on an emulated slow 4G line (Chromium's preset: 562.5 ms round trips,
 * 1.6 Mbps), after a first visit: under a second to the play button, every file
 * of the client from the cache.
 */
export async function lobbyOnASlowLine(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const tab = await browser.newTab({ width: 390, height: 844, isolated: true });
  const slow4G = { download: ((1.6 * 1000 * 1000) / 8) * 0.9, upload: ((750 * 1000) / 8) * 0.9, latency: 150 * 3.75 };
  await tab.page.emulateNetworkConditions(slow4G);
  const t0 = Date.now();
  await tab.goto(`${base}/?lang=en`);
  await tab.waitFor('#play-bots');
  const first = Date.now() - t0;
  const fromNet = [];
  tab.page.on('response', (r) => { if (r.url().includes('/web/') && !r.fromCache()) fromNet.push(r.url()); });
  const t1 = Date.now();
  await tab.page.goto(`${base}/?lang=en`, { waitUntil: 'domcontentloaded' });
  await tab.waitFor('#play-bots');
  const again = Date.now() - t1;
  await tab.page.emulateNetworkConditions(null);
  await tab.screenshot(path.join(out, 'lobby-slow-4g.png'));
  assert.deepEqual(fromNet, [], 'every file of the client from the cache');
  assert.ok(again < 1000, `the lobby in ${again} ms on slow 4G after the first visit (first: ${first} ms)`);
  await tab.close();
  return { first, again };
}
