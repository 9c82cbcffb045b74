// Spectators' pages (the helpers are in scenario.js): a bots' game watched on a
// phone to its end, a game that ends with no winner, and a stand-in's mark.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { closeRooms, recordToasts, takeToasts } from './scenario.js';

/**
 * On a phone-sized screen, a room from the lobby list is watched as a spectator
 * until its bots finish; nothing scrolls sideways.
 */
export async function spectateOnPhone(browser, base, out) {
  mkdirSync(out, { recursive: true });
  // A whole game to 10 points, where awards usually change hands. The page counts
  // the award changes it saw live; a game without one (or a page given a snapshot
  // after falling behind, on a busy machine) says nothing of award toasts, so
  // another game is watched, up to three.
  let watched;
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (watched) await watched.tab.close();
    watched = await watchBotsGameOnPhone(browser, base);
    if (watched.toasts.due.award >= 1) break;
  }
  const { id, tab, toasts } = watched;
  assert.ok(toasts.due.award >= 1, `an award changed hands in one of three games: ${JSON.stringify(toasts.due)}`);
  assert.equal(toasts.shown.award, toasts.due.award, 'a toast for each award changing hands');
  await spectatedGameChecks(tab, base, out, id);
}

/** A phone-sized spectator's page of a 3-bot game to 10 points, from the lobby to its end. */
async function watchBotsGameOnPhone(browser, base) {
  const res = await fetch(`${base}/api/rooms`, { method: 'POST', body: JSON.stringify({ players: 3, vp_target: 10 }) });
  const { room_id: id, host_token: host } = await res.json();
  const tab = await browser.newTab({ width: 390, height: 844 });
  await tab.goto(`${base}/?lang=zh-Hant`);
  await tab.waitFor(`a.room-link[href="/?room=${id}"]`);
  // Rooms are listed by who is in them, not by id.
  assert.equal(await tab.evaluate((sel) => document.querySelector(sel).textContent, `a.room-link[href="/?room=${id}"]`), '還沒有人');
  await tab.goto(`${base}/?room=${id}`);
  await tab.waitFor('#join');
  for (let i = 0; i < 3; i++) {
    await fetch(`${base}/api/rooms/${id}/bots`, { method: 'POST', headers: { Authorization: `Bearer ${host}` }, body: '{}' });
  }
  // Recording from before the start: with no think time the bots play it in moments.
  await recordToasts(tab);
  await fetch(`${base}/api/rooms/${id}/start`, { method: 'POST', headers: { Authorization: `Bearer ${host}` } });
  await tab.waitFor('#board');
  await tab.waitFor('#game-over', 90000);
  // An award changing hands is a toast for everyone, spectators too.
  return { id, tab, toasts: await takeToasts(tab, null) };
}

/** The end of a spectated game on a phone: the end screen, no overflow, the lobby. */
async function spectatedGameChecks(tab, base, out, id) {
  assert.equal(await tab.count('#points-by-source tr[data-source="total"] td'), 3);
  assert.equal(await tab.count('#actions'), 0, 'a spectator has no actions');
  const [width, inner] = await tab.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.equal(inner, 390, 'the viewport is phone-sized');
  const wide = await tab.evaluate(() => [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
    .slice(0, 5).map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`));
  assert.ok(width <= 390, `no horizontal scrolling on a phone (${width}px): ${wide.join(', ')}`);
  await tab.screenshot(path.join(out, 'phone.png'), { fullPage: true });
  assert.deepEqual(tab.errors, [], 'no errors in the page');
  // A finished room is still in GET /api/rooms for a while, but not in the lobby.
  await tab.goto(`${base}/?lang=zh-Hant`);
  // The list is loaded once the loading line is gone (a table, or "no rooms").
  await tab.waitForFunction(() => {
    const list = document.querySelector('#room-list');
    return list && !list.textContent.includes('…');
  });
  assert.equal(await tab.count(`a.room-link[href="/?room=${id}"]`), 0, 'finished rooms are not listed');
  await tab.close();
}

/**
 * a room of random bots at a target of 20 with the lowest turn limit (100) ends
 * with no winner; a spectator's page says so in the game over dialog, the prompt
 * and the log, with the final scores as they stand.
 */
export async function spectateGameWithoutWinner(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const res = await fetch(`${base}/api/rooms`, { method: 'POST', body: JSON.stringify({ players: 3, vp_target: 20, turn_limit: 100 }) });
  const { room_id: id, host_token: host, room } = await res.json();
  assert.equal(room.options.turn_limit, 100);
  const tab = await browser.newTab({ width: 1280, height: 900 });
  await tab.goto(`${base}/?room=${id}&lang=en`);
  await tab.waitFor('#join');
  for (let i = 0; i < 3; i++) {
    // Random bots: a medium bot of three reaches even 20 points within 100 turns
    // now and then (1 run in 26 here); random ones never come near it.
    const bot = await fetch(`${base}/api/rooms/${id}/bots`, { method: 'POST', headers: { Authorization: `Bearer ${host}` }, body: '{"kind":"random"}' });
    assert.equal(bot.status, 201, 'a random bot is added');
  }
  await fetch(`${base}/api/rooms/${id}/start`, { method: 'POST', headers: { Authorization: `Bearer ${host}` } });
  await tab.waitFor('#board');
  await tab.waitFor('#game-over', 90000);
  await tab.screenshot(path.join(out, 'no-winner.png'));
  const winner = await tab.text('#winner');
  assert.match(winner, /No winner: the game reached its turn limit of 100 turns/);
  assert.equal(await tab.count('#points-by-source tr[data-source="total"] td'), 3);
  const over = await tab.evaluate(() => window.__catan.conn.state.gameOver);
  assert.equal(over.winner, null);
  await tab.click('#close-game-over');
  await tab.waitForFunction(() => !document.querySelector('#game-over'));
  const page = await tab.text('body');
  assert.match(page, /nobody won the game/);
  assert.match(page, /Turn 100 was the last: the game ends with no winner/);
  assert.deepEqual(tab.errors, [], 'no errors in the page');
  await tab.close();
}

/**
 * Stand-ins (protocol.md 5.2.12): a person takes a seat and does not come; after the
 * room's `stand_in_secs` a bot plays the seat, and a spectator's players panel marks
 * it; when the person opens the game, the mark goes, on both pages.
 */
export async function spectateAStandIn(browser, base, out, admin = null) {
  mkdirSync(out, { recursive: true });
  const post = (p, body, token) => fetch(`${base}${p}`, {
    method: 'POST', body: JSON.stringify(body), headers: token ? { Authorization: `Bearer ${token}` } : {},
  }).then((r) => r.json());
  const { room_id: id, host_token: host } = await post('/api/rooms', {
    players: 3, vp_target: 20, turn_timer_secs: 0, stand_in_secs: 1, stand_in_level: 'medium',
  });
  const { seat, token } = await post(`/api/rooms/${id}/seats`, { name: 'gone' });
  // Hard bots, which think (their search clock), so that the game is still on when
  // the person's page has loaded on a busy machine: bots that do not think played a
  // game to its turn limit before Firefox had shown the page.
  for (let i = 0; i < 2; i++) await post(`/api/rooms/${id}/bots`, { kind: 'hard' }, host);
  const tab = await browser.newTab({ width: 1366, height: 768 });
  await tab.goto(`${base}/?room=${id}&lang=en`);
  await tab.waitFor('#join');
  await post(`/api/rooms/${id}/start`, {}, host);
  const mark = `#players .player[data-seat="${seat}"] [data-stand-in]`;
  await tab.waitFor(mark, 30000);
  assert.equal(await tab.text(mark), 'bot standing in');
  assert.equal(await tab.count('#players [data-stand-in]'), 1, 'only that seat');
  await tab.screenshot(path.join(out, 'stand-in.png'));
  const me = await browser.newTab({ width: 1366, height: 768, isolated: true });
  await me.goto(`${base}/?room=${id}&lang=zh-Hans#token=${token}`);
  await me.waitFor('#actions');
  await tab.waitForFunction((sel) => !document.querySelector(sel), mark);
  assert.equal(await me.count('#players [data-stand-in]'), 0, 'the person plays their seat again');
  const seats = await tab.evaluate(() => window.__catan.conn.state.room.seats);
  // Left out or false: not stood in for (a `room` message leaves it out).
  assert.ok(!seats[seat].stand_in && seats[seat].connected, JSON.stringify(seats[seat]));
  assert.deepEqual(tab.errors, [], 'no errors in the page');
  assert.deepEqual(me.errors, [], 'no errors in the page');
  await me.close();
  await tab.close();
  await closeRooms(admin, [id]);
}
