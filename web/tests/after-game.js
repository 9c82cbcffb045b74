// After a finished game of bots watched by the room's host: the end screen shows the
// server's statistics (and fits a phone, its controls 44 px), Rematch opens a new
// room with the same bots, and the replay viewer steps forward and back (step 0
// again after going back to the start).

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { measure } from './scenario.js';

const KINDS = ['easy', 'random', 'medium'];

/** Text of every cell `sel` in the page, by its data-seat. */
const cells = (tab, sel) => tab.evaluate((s) => [...document.querySelectorAll(s)]
  .map((td) => [Number(td.dataset.seat), Number(td.textContent)]), sel);

/** The stored replay of game `id`, waiting up to 30 s for its result to be stored. */
async function replayOf(base, id) {
  const until = Date.now() + 30000;
  for (;;) {
    const r = await fetch(`${base}/api/games/${id}/replay`);
    if (r.ok) return r.json();
    if (Date.now() > until) throw new Error(`no replay of ${id}: ${r.status} ${await r.text()}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

/**
 * @param {import('./driver.js').Browser} browser
 * @param {string} base
 * @param {string} out
 * @param {{ width: number, height: number, lang: string }} size
 */
export async function afterTheGame(browser, base, out, { width, height, lang }) {
  mkdirSync(out, { recursive: true });
  const post = (p, body, token) => fetch(`${base}${p}`, {
    method: 'POST', body: body === undefined ? undefined : JSON.stringify(body), headers: token ? { Authorization: `Bearer ${token}` } : {},
  }).then((r) => r.json());
  const { room_id: id, host_token: host } = await post('/api/rooms', { players: 3, vp_target: 3, map: 'beginner' });
  for (const kind of KINDS) await post(`/api/rooms/${id}/bots`, { kind }, host);
  const tab = await browser.newTab({ width, height });
  // The host's page, as if it had created the room itself.
  await tab.goto(`${base}/?lang=${lang}`);
  await tab.evaluate(([room, token]) => localStorage.setItem(`catan.room.${room}`, JSON.stringify({ host_token: token })), [id, host]);
  await tab.goto(`${base}/?room=${id}`);
  await tab.waitFor('#start');
  await tab.click('#start');
  await tab.waitFor('#game-over', 90000);

  // Every number on the end screen is the server's, from game_over.
  const over = await tab.evaluate(() => window.__catan.conn.state.gameOver);
  const { stats } = over;
  assert.equal(stats.points.length, 3);
  const totals = await cells(tab, '#points-by-source tr[data-source="total"] td');
  assert.deepEqual(totals, stats.points.map((p) => [p.seat, p.total]));
  assert.deepEqual(totals, over.scores.map((s) => [s.seat, s.points]), 'the totals are the final scores');
  for (const k of ['settlements', 'cities', 'vp_cards', 'longest_road', 'largest_army']) {
    assert.deepEqual(await cells(tab, `#points-by-source tr[data-source="${k}"] td`), stats.points.map((p) => [p.seat, p[k]]), k);
  }
  const bars = await tab.evaluate(() => [...document.querySelectorAll('#dice-histogram .bar-col')]
    .map((b) => [Number(b.dataset.total), Number(b.dataset.count)]));
  assert.deepEqual(bars, stats.dice.map((n, i) => [i + 2, n]));
  for (const side of ['gained', 'lost']) {
    for (const k of Object.keys(stats.resources[0][side])) {
      assert.deepEqual(await cells(tab, `#resources-${side} tr[data-source="${k}"] td`), stats.resources.map((f) => [f.seat, f[side][k]]), `${side} ${k}`);
    }
  }
  // The result is stored before game_over is sent, unless the store was slow to take
  // it (a busy machine): then it is written in the background and the replay waits.
  const replay = await replayOf(base, id);
  assert.deepEqual(replay.stats, stats, 'the replay carries the same statistics');
  // The seed check is there, folded away.
  assert.equal(await tab.evaluate(() => document.querySelector('#seed-details').open), false);
  assert.match(await tab.evaluate(() => document.querySelector('#seed-line').textContent), new RegExp(over.seed));
  const [scroll, inner] = await tab.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(scroll <= inner, `no horizontal scrolling (${scroll} > ${inner})`);
  await tab.screenshot(path.join(out, `end-screen-${width}x${height}.png`));
  // The end screen on a phone (390x844): nothing sideways, every control at least 44 px.
  if (width !== 390) await tab.page.setViewport({ width: 390, height: 844 });
  const phone = await measure(tab);
  assert.ok(phone.scrollWidth <= 390, `the end screen does not overflow a phone (${phone.scrollWidth} px)`);
  assert.deepEqual(phone.small, [], 'every control of the end screen is at least 44 px on a phone');
  if (width !== 390) {
    await tab.screenshot(path.join(out, 'end-screen-390x844.png'));
    await tab.page.setViewport({ width, height });
  }

  // Rematch: a new room with the same options and bots; the host's page goes there.
  await tab.click('#rematch');
  await tab.waitForFunction((old) => /[?&]room=/.test(location.search) && !location.search.includes(old), id);
  const next = await tab.evaluate(() => new URLSearchParams(location.search).get('room'));
  assert.notEqual(next, id);
  await tab.waitFor('#seats');
  const room = await (await fetch(`${base}/api/rooms/${next}`)).json();
  assert.equal(room.status, 'lobby');
  assert.deepEqual(room.options, replay.game.options);
  assert.deepEqual(room.seats.map((s) => s.occupant?.bot), KINDS, 'the same bots in the same seats');
  assert.equal(await tab.count('#start'), 1, 'the host of the rematch may start it');
  const again = await post(`/api/rooms/${id}/rematch`, undefined, host);
  assert.equal(again.room_id, next, 'one rematch room');

  // The replay viewer, opened from the lobby's history list.
  await tab.goto(`${base}/`);
  await tab.waitFor(`a.history-replay[href="/?replay=${id}"]`);
  await tab.click(`a.history-replay[href="/?replay=${id}"]`);
  await tab.waitFor('#replay-step');
  const steps = replay.actions.length;
  assert.equal(await tab.attr('#replay-step', 'data-steps'), String(steps));
  const board = () => tab.evaluate(() => document.querySelector('#board').innerHTML);
  const at = () => tab.attr('#replay-step', 'data-step');
  const start = await board();
  assert.equal(await at(), '0');
  for (let i = 1; i <= 4; i++) {
    await tab.click('#replay-forward');
    assert.equal(await at(), String(i));
  }
  const four = await board();
  assert.notEqual(four, start, 'the board changed: two settlements and two roads');
  await tab.click('#replay-back');
  assert.equal(await at(), '3');
  assert.notEqual(await board(), four, 'back one step');
  await tab.click('#replay-last');
  assert.equal(await at(), String(steps));
  const vps = await cells(tab, '#replay-players td.vp');
  // The last step is the game over: the final scores, Victory Point cards revealed
  // (the public points of the step leave them out, R-1.3).
  const finalPoints = replay.actions[steps - 1].public_vp
    .map((vp, seat) => replay.final_scores?.find((x) => x.seat === seat)?.points ?? vp);
  assert.deepEqual(vps.map(([, n]) => n), finalPoints, 'the points of the last step: the final scores');
  await tab.click('#replay-first');
  assert.equal(await at(), '0');
  assert.equal(await board(), start, 'step 0 again after going back to the start');
  await tab.screenshot(path.join(out, `replay-${width}x${height}.png`));
  assert.deepEqual(tab.errors, [], 'no errors in the page');
  await tab.close();
}
