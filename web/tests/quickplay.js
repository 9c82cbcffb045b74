// Quick play (protocol.md 26) on phones (390x844), in Simplified Chinese:
//
// - The lobby offers quick play first: a person with nothing but a name asks for a
//   table of four, sees the waiting screen (time waited, place in line), reloads
//   and is back on it, and cancels (the queue no longer holds them).
// - Three people on three devices ask for a table of three without bots: each
//   waits, and each page opens the game by itself once the table is seated: one
//   room, three different seats, each page the person's own seat.
// - Every screen fits: nothing overflows sideways, every tap target at least 44 px.
//
// Parties (partyScenario), at 390x844 in Simplified Chinese: a visit with no party
// asks nothing of the queue; a code no party has is refused in words; person A makes
// a party and copies its link; person B opens the link on another device, types a
// name and joins; both see both names, B (not the leader) has no queue button and
// waits for A, and a reload keeps B in the party; A asks for a table of four with
// bots; both pages open the game by themselves, in one room, in two seats.

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

  // 1. Quick play first; waiting, reloaded, cancelled. (No bots: the server under
  // test fills a table with bots after a few seconds.)
  const lone = await ask(browser, base, `独行${tag}`, 4, false);
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

/** The names a page shows in its party's member list. */
const memberNames = (tab) => tab.evaluate(() => [...document.querySelectorAll('#party-members .member-name')].map((e) => e.textContent));

export async function partyScenario(browser, base, out, admin) {
  mkdirSync(out, { recursive: true });
  const tag = Math.floor(Math.random() * 1e6);
  const [nameA, nameB] = [`队长${tag}`, `队友${tag}`];

  // 1. A visit with no party asks nothing of the queue (nothing that can answer 404).
  const a = await browser.newTab({ width: 390, height: 844, isolated: true });
  const asked = [];
  a.page.on('request', (r) => { if (new URL(r.url()).pathname.startsWith('/api/queue')) asked.push(`${r.method()} ${r.url()}`); });
  await a.goto(`${base}/?lang=zh-Hans`);
  await a.waitFor('#party-make');
  await new Promise((r) => setTimeout(r, 1500));
  assert.deepEqual(asked, [], 'a visit with no party or queue mark asks nothing of the queue');
  assert.deepEqual(a.errors, [], 'no console error on the lobby');
  await fits(a, 'the lobby with parties');

  // 2. A code no party has (codes have no O nor 0): refused in words.
  await a.fill('#quick-name', nameA);
  await a.fill('#party-code', 'o0o0o0');
  await a.click('#party-join');
  const notFound = await tr(a, 'err.party_not_found');
  await a.waitForFunction((x) => document.getElementById('party-error')?.textContent === x, notFound, 10000);
  assert.equal(await a.count('#party'), 0, 'not in a party');

  // 3. A makes a party: its code, the link to share (copied), A as its leader.
  await a.click('#party-make');
  await a.waitFor('#party-code-shown');
  const code = await a.text('#party-code-shown');
  assert.match(code, /^[A-Z2-9]{6}$/, `a party code: ${code}`);
  const link = `${base}/?party=${code}`;
  assert.equal(await a.value('#party-link'), link, 'the link to share');
  assert.equal(await a.evaluate(() => localStorage.getItem('catan.party')), code, 'the party mark');
  if (browser.name === 'chromium') await a.page.browserContext().overridePermissions(base, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
  await a.click('#party-copy');
  await a.waitForFunction((x) => document.getElementById('party-said')?.textContent === x, await tr(a, 'link_copied'), 5000);
  if (browser.name === 'chromium') assert.equal(await a.evaluate(() => navigator.clipboard.readText()), link, 'the clipboard holds the link');
  assert.deepEqual(await memberNames(a), [nameA]);
  assert.equal(await a.text('#party-next'), await tr(a, 'party.leader_about'), 'the leader is told to find a game');
  assert.equal(await a.count('#qp-join'), 1, 'the leader has the queue button');

  // 4. B opens the link on another device, types a name and joins.
  const b = await browser.newTab({ width: 390, height: 844, isolated: true });
  await b.goto(`${link}&lang=zh-Hans`);
  await b.waitFor('#party-accept');
  assert.equal(await b.text('#party-invite p'), await tr(b, 'party.invited', { code }), 'the invitation names the party');
  await fits(b, 'the invitation');
  await b.screenshot(path.join(out, 'party-invited-390.png'));
  await b.fill('#quick-name', nameB);
  await b.click('#party-accept');
  await b.waitFor('#party-members');
  assert.ok(!new URL(b.url()).searchParams.has('party'), 'the invitation is taken out of the address once joined');
  await b.waitForFunction((n) => document.querySelectorAll('#party-members li').length === n, 2, 5000);
  assert.deepEqual(await memberNames(b), [nameA, nameB], 'B sees both, the leader first');
  // A's page asks every 2 s.
  await a.waitForFunction((n) => document.querySelectorAll('#party-members li').length === n, 2, 10000);
  assert.deepEqual(await memberNames(a), [nameA, nameB], 'A sees both');
  assert.equal(await b.count('#qp-join'), 0, 'B, not the leader, has no queue button');
  assert.equal(await b.text('#party-wait'), await tr(b, 'party.waiting_leader', { name: nameA }), 'B waits for A');
  // Back on the page (a reload): still in the party.
  await b.reload();
  await b.waitFor('#party-wait', 10000);
  assert.deepEqual(await memberNames(b), [nameA, nameB], 'after a reload, the party again');
  for (const [tab, who] of [[a, 'leader'], [b, 'member']]) {
    await fits(tab, `the party panel (${who})`);
    await tab.screenshot(path.join(out, `party-${who}-390.png`));
  }

  // 5. A asks for a table of four, bots allowed: the party queues together and both
  // pages open the game by themselves, at one table.
  await a.select('#qp-seats', '4');
  assert.equal(await a.attr('#qp-bots', 'aria-pressed'), 'true', 'bots allowed');
  await a.click('#qp-join');
  await a.waitFor('#qp-waiting');
  assert.equal(await a.evaluate(() => localStorage.getItem('catan.party')), null, 'queued: the party mark is gone');
  // (The server under test fills a table with bots after a few seconds; the Rust
  // wrapper's after a minute.)
  await Promise.all([a, b].map((tab) => tab.waitForURL(/\?room=/, 120000)));
  const rooms = [a, b].map((tab) => new URL(tab.url()).searchParams.get('room'));
  assert.equal(new Set(rooms).size, 1, `one table for the party: ${rooms}`);
  const seats = [];
  for (const tab of [a, b]) {
    await tab.waitFor('#board');
    await tab.waitForFunction(() => Number.isInteger(window.__catan.conn?.state?.you), undefined, 15000);
    seats.push(await tab.evaluate(() => window.__catan.conn.state.you));
  }
  assert.notEqual(seats[0], seats[1], `two seats: ${seats}`);
  assert.equal(await b.evaluate(() => localStorage.getItem('catan.party')), null, 'B\'s party mark is gone too');
  await b.screenshot(path.join(out, 'party-seated-390.png'));
  await closeRooms(admin, [rooms[0]]);
  await a.close();
  await b.close();
  return { room: rooms[0], code };
}
