// Quick play (protocol.md 26) on phones (390x844), in Simplified Chinese:
//
// - The lobby offers quick play first: a person with nothing but a name asks for a
//   table of four, sees the waiting screen (time waited, place in line), reloads
//   and is back on it, and cancels (the queue no longer holds them).
// - Three people on three devices ask for a table of three without bots: each
//   waits, and each page opens the game by itself once the table is seated: one
//   room, three different seats, each page the person's own seat.
// - Every screen fits: nothing overflows sideways, every tap target at least 44 px.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { closeRooms, measure } from './scenario.js';
import { tr } from './lobby.js';

async function fits(tab, where) {
  const m = await measure(tab);
  assert.ok(m.scrollWidth <= 390, `${where}: no horizontal scrolling (${m.scrollWidth} px)`);
  assert.deepEqual(m.small, [], `${where}: every tap target is at least 44 px`);
}

/** The page's own GET /api/queue (its cookie sent): the status code. */
const queued = (tab) => tab.evaluate(async () => (await fetch('/api/queue')).status);

/** A person at the lobby of a new device, a name typed, quick play asked for. */
async function ask(browser, base, name, seats, bots) {
  const tab = await browser.newTab({ width: 390, height: 844, isolated: true });
  await tab.goto(`${base}/?lang=zh-Hans`);
  await tab.waitFor('#qp-join');
  await tab.fill('#quick-name', name);
  await tab.select('#qp-seats', String(seats));
  if (!bots) await tab.click('#qp-bots');
  await tab.click('#qp-join');
  await tab.waitFor('#qp-waiting');
  return tab;
}

export async function quickPlayScenario(browser, base, out, admin) {
  mkdirSync(out, { recursive: true });
  const tag = Math.floor(Math.random() * 1e6);

  // 1. Quick play first; waiting, reloaded, cancelled.
  const lone = await ask(browser, base, `独行${tag}`, 4, true);
  assert.equal(await lone.text('#qp-position'), await tr(lone, 'qp.position', { n: 1 }), 'first in line');
  await lone.waitForFunction(() => document.querySelector('#qp-waited')?.textContent !== '0:00', undefined, 5000);
  await lone.screenshot(path.join(out, 'quick-play-waiting-390.png'));
  await fits(lone, 'the waiting screen');
  await lone.reload();
  await lone.waitFor('#qp-waiting', 10000);
  await lone.click('#qp-cancel');
  await lone.waitFor('#qp-join');
  assert.equal(await queued(lone), 404, 'no longer queued');
  await fits(lone, 'the lobby with quick play');
  await lone.screenshot(path.join(out, 'quick-play-lobby-390.png'));
  await lone.close();

  // 2. Three people, a table of three, no bots: each page opens the game.
  const tabs = [];
  for (const who of ['甲', '乙', '丙']) tabs.push(await ask(browser, base, `${who}${tag}`, 3, false));
  for (const tab of tabs) await tab.waitForURL(/\?room=/, 20000);
  const rooms = tabs.map((tab) => new URL(tab.url()).searchParams.get('room'));
  assert.equal(new Set(rooms).size, 1, `one table: ${rooms}`);
  const seats = [];
  for (const tab of tabs) {
    await tab.waitFor('#board');
    await tab.waitForFunction(() => Number.isInteger(window.__catan.conn?.state?.you), undefined, 15000);
    seats.push(String(await tab.evaluate(() => window.__catan.conn.state.you)));
  }
  assert.deepEqual([...seats].sort(), ['0', '1', '2'], 'three seats, each page its own');
  await tabs[0].screenshot(path.join(out, 'quick-play-seated-390.png'));
  await closeRooms(admin, [rooms[0]]);
  for (const tab of tabs) await tab.close();
  return { room: rooms[0] };
}
