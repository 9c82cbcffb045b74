// Whole games played through the page (the helpers a person plays by are in
// scenario.js): a person's game against three bots with every option, in each
// language, what the page draws compared with the engine's view after every
// broadcast, and the rematch from its end screen; the README's first game, the seat
// taken from the address; two people's game and its rematch.

import assert from 'node:assert/strict';
import { mkdirSync, copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RES, look, newMemo, openOptions, progressWatch, recordToasts, reloadAndCompare, step, takeToasts } from './scenario.js';

async function turnNumber(tab) {
  const n = await tab.attr('#turn-info', 'data-turn').catch(() => null);
  return n === null ? -1 : Number(n);
}

async function installReader(tab) {
  await tab.evaluate(() => {
    window.__readNumbers = () => {
      const num = (e) => Number((e?.textContent.match(/\d+/g) || ['NaN']).pop());
      const players = [...document.querySelectorAll('#players .player[data-seat]')].map((row) => {
        const stat = (cls) => num(row.querySelector(`.stat.${cls} b`));
        return {
          seat: Number(row.dataset.seat),
          vp: stat('vp'), cards: stat('n-cards'), dev: stat('n-dev'), knights: stat('n-knights'), road: stat('road-length'),
          awards: [...row.querySelectorAll('[data-award]')].map((b) => b.dataset.award).sort(),
        };
      });
      const hand = Object.fromEntries([...document.querySelectorAll('#hand .card[data-resource]')]
        .map((e) => [e.dataset.resource, Number(e.dataset.count)]));
      const devs = Object.fromEntries([...document.querySelectorAll('#hand .card[data-dev]')]
        .map((e) => [e.dataset.dev, Number(e.dataset.count)]));
      const bank = Object.fromEntries([...document.querySelectorAll('#bank .card[data-bank]')].map((e) => [e.dataset.bank, num(e)]));
      const ratios = [...(document.getElementById('ratios')?.textContent.matchAll(/(\d):1/g) || [])].map((m) => Number(m[1]));
      return { players, hand, devs, bank, ratios };
    };
    // The numbers the events do not state (the kit's DERIVED), left out.
    window.__maskDerived = (n) => {
      for (const p of n.players) { p.vp = null; p.road = null; }
      n.ratios = null;
      return n;
    };
  });
}

/**
 * Starts recording in `tab` what the page shows after every message the kit takes
 * in (each `events` broadcast, each snapshot), with the `seq` it is current as of:
 * the wrapped `receive` draws the page at once (the page would at its next frame;
 * several messages may arrive within one) and reads the numbers it shows. While a
 * refresh of the numbers the events do not state is outstanding (points, road
 * lengths, ratios: the page shows them from the next snapshot, recorded when it
 * comes), those are left out and the rest is recorded. Every other redraw (which
 * replaces #app's children; a MutationObserver runs right after it, before any other
 * message is taken in) is recorded too. `compareDrawnStates` checks them; a reload
 * ends a recording.
 */
async function recordStates(tab) {
  await installReader(tab);
  await tab.evaluate(() => {
    // The keys the page got and where they went, for a stuck page's report.
    window.__keysSeen = [];
    window.__focusSeen = [];
    for (const type of ['keydown', 'keyup', 'click']) {
      document.addEventListener(type, (e) => {
        const a = document.activeElement;
        window.__keysSeen.push(`${type}:${e.key ?? ''}@${a ? `${a.tagName}#${a.id}` : '-'}>${e.target?.id ?? ''}${e.defaultPrevented ? '!' : ''}`);
        if (window.__keysSeen.length > 64) window.__keysSeen.shift();
      }, true);
    }
    for (const type of ['blur', 'focus']) {
      window.addEventListener(type, (e) => {
        if (e.target !== window) return;
        window.__focusSeen.push(`window ${type} at seq ${window.__catan?.conn?.state.lastSeq} after ${window.__keysSeen.slice(-6).join(' ')}`);
      });
    }
    const states = [];
    window.__stateRecord = states;
    // Event broadcasts taken in, and how many of them were drawn and read.
    window.__messagesDrawn = { events: 0, read: 0 };
    const record = () => {
      const c = window.__catan?.conn;
      const v = c?.state.view;
      if (!v || !v.me || v.phase.name === 'over' || !document.querySelector('#players .player[data-seat]')) return false;
      // With a refresh outstanding, what the events state (cards, hand, bank,
      // knights, awards), not the derived numbers (points, road lengths, ratios).
      const stale = c.refreshSeq !== null;
      const numbers = window.__readNumbers();
      if (stale) window.__maskDerived(numbers);
      const last = states[states.length - 1];
      if (last && last.seq === c.state.lastSeq && JSON.stringify(last.numbers) === JSON.stringify(numbers)) return true;
      states.push({ seq: c.state.lastSeq, numbers, stale });
      return true;
    };
    // Only a redraw replaces #app's children; a log line or a toast, added as a
    // message arrives, is further down or elsewhere and does not count.
    new MutationObserver(record).observe(document.getElementById('app'), { childList: true, subtree: true, characterData: true });
    const proto = Object.getPrototypeOf(window.__catan.conn);
    const receive = proto.receive;
    proto.receive = function (msg) {
      const r = receive.call(this, msg);
      if (this === window.__catan.conn && (msg.type === 'events' || msg.type === 'snapshot')) {
        window.__catanPage.render();
        const read = record();
        if (msg.type === 'events') {
          window.__messagesDrawn.events += 1;
          if (read) window.__messagesDrawn.read += 1;
        }
      }
      return r;
    };
  });
}

/**
 * Compares every state `tab` drew (since `recordStates`) with the engine's view of
 * `seat` as of the same broadcast (the admin API's `?view=&at_seq=`: the game
 * replayed by the server to that point), a few requests at a time. Returns how many
 * states and seqs, and how many messages the page was drawn after.
 */
async function compareDrawnStates(tab, admin, roomId, seat) {
  const [states, messages] = await tab.evaluate(() => [window.__stateRecord || [], window.__messagesDrawn || { events: 0, read: 0 }]);
  const seqs = [...new Set(states.map((x) => x.seq))];
  const views = new Map();
  const fetchView = async (seq) => {
    const r = await fetch(`${admin.url}/admin/rooms/${roomId}?events=0&view=${seat}&at_seq=${seq}`, { headers: { authorization: `Bearer ${admin.token}` } });
    assert.equal(r.status, 200, 'the admin API answers the engine view');
    views.set(seq, (await r.json()).view);
  };
  for (let i = 0; i < seqs.length; i += 8) await Promise.all(seqs.slice(i, i + 8).map(fetchView));
  const mask = (n) => {
    for (const p of n.players) { p.vp = null; p.road = null; }
    n.ratios = null;
    return n;
  };
  for (const { seq, numbers, stale } of states) {
    const want = expectedNumbers(views.get(seq));
    assert.deepEqual(numbers, stale ? mask(want) : want, `the page drew the engine's view as of seq ${seq}${stale ? ' (but the numbers a refresh brings)' : ''}`);
  }
  return { states: states.length, seqs: views.size, messages, whole: states.filter((x) => !x.stale).length };
}

/** What the page should show, from the engine's view `v` of the page's seat. */
function expectedNumbers(v) {
  const count = (m) => Object.fromEntries(Object.entries(m).filter(([, n]) => n > 0));
  return {
    players: v.players.map((p) => ({
      seat: p.seat,
      vp: v.me.seat === p.seat ? v.me.total_vp : p.public_vp,
      cards: p.resource_cards, dev: p.dev_cards, knights: p.knights_played, road: p.road_length,
      awards: [v.longest_road === p.seat ? 'longest_road' : null, v.largest_army === p.seat ? 'largest_army' : null].filter(Boolean).sort(),
    })),
    hand: Object.fromEntries(RES.map((r) => [r, v.me.hand[r] || 0])),
    devs: count(v.me.dev_cards),
    bank: { ...Object.fromEntries(RES.map((r) => [r, v.bank[r] || 0])), dev: v.dev_deck },
    ratios: v.me.maritime_ratios,
  };
}

function addCounts(into, from) {
  for (const k of Object.keys(from)) into[k] = (into[k] || 0) + from[k];
}

/** The room as the admin API shows it (its `seq`, phase and last events), for a stuck page's report. */
async function roomAsTheServerHasIt(admin, roomId) {
  const r = await fetch(`${admin.url}/admin/rooms/${roomId}?events=8`, { headers: { authorization: `Bearer ${admin.token}` } });
  if (r.status !== 200) return `${r.status} ${(await r.text()).slice(0, 500)}`;
  const d = await r.json();
  const seats = d.room.seats.map((s) => `${s.seat}:${s.connected ? 'on' : 'off'}`).join(' ');
  return JSON.stringify({ seq: d.room.seq, actions: d.room.actions, phase: d.room.phase, seats, offers: d.offers, deadline: d.deadline, last: d.events }).slice(0, 6000);
}

/**
 * A person creates a room with every option, takes a seat, adds three bots, starts
 * and plays a whole game (VP target `vpTarget`) through the page; mid-game the page
 * is reloaded and must resume. Screenshots of the board go to `out`.
 */
export async function playWholeGame(browser, base, out, { vpTarget = 4, lang = 'en', updateScreenshot = null, rematch = false, admin = null, keyboard = false } = {}) {
  mkdirSync(out, { recursive: true });
  const tab = await browser.newTab({ width: 1280, height: 900 });
  // By keyboard only: every button, spot and dialog reached with Tab and taken with
  // Enter, from creating the room to closing the end screen.
  tab.keyboard = keyboard;

  // Lobby: create a room with every option, in language `lang`.
  await tab.goto(`${base}/?lang=${lang}`);
  assert.equal(await tab.evaluate(() => document.documentElement.lang), lang);
  await openOptions(tab);
  await tab.select('#opt-players', '4');
  await tab.fill('#opt-vp', vpTarget);
  await tab.select('#opt-map', 'beginner');
  await tab.fill('#opt-turn', '0');
  await tab.fill('#opt-trade', '30');
  await tab.fill('#opt-discard', '0');
  await tab.click('#create-room');
  await tab.waitForURL(/\?room=/);
  const roomId = new URL(tab.url()).searchParams.get('room');
  assert.match(roomId, /^[0-9a-f-]{36}$/);
  await tab.waitFor('#share-link');
  assert.equal(await tab.value('#share-link'), `${base}/?room=${roomId}`);

  // Take a seat, add three bots, start.
  await tab.fill('#join-name', 'alice');
  await tab.click('#join');
  await tab.waitFor('#you-seat[data-seat="0"]');
  for (let i = 1; i <= 3; i++) {
    await tab.click('#add-bot');
    await tab.waitForFunction((n) => document.querySelectorAll('#seats tr[data-bot]').length >= n, i);
  }
  // The host takes a bot's seat back and adds another; the own seat has no button.
  assert.equal(await tab.count('.remove-seat[data-seat="0"]'), 0, 'no button to remove oneself');
  await tab.click('.remove-seat[data-seat="3"]');
  await tab.waitForFunction(() => document.querySelectorAll('#seats tr[data-bot]').length === 2);
  await tab.click('#add-bot');
  await tab.waitForFunction(() => document.querySelectorAll('#seats tr[data-bot]').length === 3);
  await tab.click('#start');
  await tab.waitFor('#board');
  assert.equal(await tab.count('#board polygon.tile'), 19);
  assert.equal(await tab.count('#board .harbor'), 9);
  // The bots' default names are in the page's language too ("机器人 2").
  const botName = { en: 'Bot 2', 'zh-Hans': '机器人 2', 'zh-Hant': '機器人 2' }[lang];
  const playersText = await tab.evaluate(() => document.getElementById('players').textContent);
  assert.ok(playersText.includes(botName), `"${botName}" in ${playersText}`);
  if (lang !== 'en') assert.ok(!playersText.includes('Bot '), `no English bot name in ${playersText}`);

  // Play until the game ends; reload once mid-game.
  const memo = { ...newMemo({ offers: true }), reloaded: false, shot: false, compared: 0, seqs: 0, events: 0, read: 0, whole: 0 };
  // Toasts due and shown: your turn, robbed, an offer to you, an award changing hands.
  const toasts = { due: {}, shown: {}, announced: [] };
  const collect = async () => {
    if (admin?.url) {
      const c = await compareDrawnStates(tab, admin, roomId, 0);
      memo.compared += c.states;
      memo.seqs += c.seqs;
      memo.events += c.messages.events;
      memo.whole += c.whole;
      memo.read += c.messages.read;
    }
    const r = await takeToasts(tab, 0);
    addCounts(toasts.due, r.due);
    addCounts(toasts.shown, r.shown);
    toasts.announced.push(...r.announced);
  };
  await recordToasts(tab);
  await recordStates(tab);
  const watch = progressWatch(tab, out, admin?.url ? () => roomAsTheServerHasIt(admin, roomId) : null);
  for (let i = 0; i < 20000; i++) {
    const p = await look(tab);
    // Reload at the start of one of our turns (nothing moves until we roll): the
    // page must resume the game, and the view it kept up to date from events must
    // equal the server's fresh snapshot.
    if (p && !memo.reloaded && p.turn >= 3 && p.on.roll && !p.dialog && !p.spots) {
      memo.reloaded = true;
      await collect();
      await reloadAndCompare(tab);
      await recordToasts(tab);
      await recordStates(tab);
      assert.equal(await turnNumber(tab), p.turn, 'the reloaded page resumed the same turn');
      assert.ok(await tab.enabled('#roll'), 'and it is still ours to roll');
      assert.equal(await tab.count('#players [data-you]'), 1, 'still seated after the reload');
      continue;
    }
    const did = await step(tab, memo, p);
    if (did === 'over') break;
    await watch(p, did);
    if (memo.reloaded && !memo.shot && p.turn >= 10 && did === 'end turn') {
      memo.shot = true;
      await tab.screenshotOf('#board', path.join(out, `board-${lang}.png`));
      await tab.screenshot(path.join(out, `page-${lang}.png`));
      if (updateScreenshot) copyFileSync(path.join(out, `page-${lang}.png`), updateScreenshot);
    }
  }

  // The game over screen: scores of all four seats and a working replay link.
  await tab.waitFor('#game-over', 30000);
  // Every toast that was due was shown, of its kind (and the game had some).
  await collect();
  assert.deepEqual(toasts.shown, toasts.due, 'a toast for each turn of yours, robbery, offer to you and award changing hands');
  assert.ok(toasts.due.turn >= 2, `your-turn toasts: ${JSON.stringify(toasts.due)}`);
  // Toasts and log lines reach screen readers: both are polite live regions, and
  // the log's new lines are put in the announcer as they come.
  assert.deepEqual(await tab.evaluate(() => ['toasts', 'announce'].map((id) => document.getElementById(id).getAttribute('aria-live'))), ['polite', 'polite']);
  const logLines = await tab.evaluate(() => [...document.querySelectorAll('#log > *')].map((e) => e.textContent));
  assert.ok(toasts.announced.length >= toasts.due.turn, `${toasts.announced.length} lines announced`);
  const lastAnnounced = toasts.announced[toasts.announced.length - 1];
  assert.ok(logLines.includes(lastAnnounced), `the last line announced is a log line: ${lastAnnounced}`);
  // Over the end screen the toasts sit at the bottom, off its title.
  const below = await tab.evaluate(() => {
    const box = document.getElementById('toasts').getBoundingClientRect();
    const title = document.querySelector('#game-over h2').getBoundingClientRect();
    return box.top >= title.bottom;
  });
  assert.ok(below, 'toasts sit below the end screen\'s title, not over it');
  await tab.screenshot(path.join(out, `game-over-${lang}.png`));
  if (!memo.shot) await tab.screenshotOf('#board', path.join(out, `board-${lang}.png`));
  assert.equal(await tab.count('#points-by-source tr[data-source="total"] td'), 4);
  const href = await tab.attr('#replay-json', 'href');
  assert.equal(href, `/api/games/${roomId}/replay`);
  const replay = await tab.evaluate(async (u) => (await fetch(u)).status, href);
  assert.equal(replay, 200);
  assert.ok(memo.reloaded, 'the page was reloaded mid-game');
  if (admin?.url) {
    // Every state drawn was compared, and they were many: the page was read after
    // every event broadcast it took in (but the one that ended the game).
    assert.ok(memo.seqs >= 3 * Math.max(3, memo.turns), `${memo.compared} states drawn at ${memo.seqs} seqs compared`);
    assert.ok(memo.events - memo.read <= 1, `read after ${memo.read} of ${memo.events} event broadcasts`);
  }
  assert.ok(memo.spots >= 4, 'placed pieces by clicking highlighted spots');
  assert.deepEqual(tab.errors, [], 'no errors in the page');

  // The board after the game: every highlight gone, the page shows the final state.
  await tab.click('#close-game-over');
  await tab.waitForFunction(() => !document.querySelector('#game-over'));
  assert.equal(await tab.count('#board .hl'), 0);
  if (rematch) await rematchTakesTheSameSeat(tab, base, roomId);
  await tab.close();
  if (keyboard) assert.ok(tab.keys > memo.spots, `played by keyboard: ${tab.keys} keys`);
  const keys = tab.keys;
  return { turns: memo.turns, spots: memo.spots, offers: memo.offers, compared: memo.compared, seqs: memo.seqs, events: memo.events, read: memo.read, whole: memo.whole, toasts: toasts.due, keys };
}

/**
 * The seated host asks for a rematch from the end screen (reopened): the page takes
 * the same seat in the new room, which has the same bots, and may start it.
 */
async function rematchTakesTheSameSeat(tab, base, roomId) {
  const bots = (await (await fetch(`${base}/api/rooms/${roomId}`)).json()).seats.map((x) => x.occupant?.bot ?? null);
  // (The end screen closed to see the board opens again with its button.)
  if (!(await tab.count('#game-over'))) await tab.click('#show-results');
  await tab.click('#rematch');
  await tab.waitForFunction((old) => /[?&]room=/.test(location.search) && !location.search.includes(old), roomId);
  await tab.waitFor('#you-seat[data-seat="0"]');
  const next = await tab.evaluate(() => new URLSearchParams(location.search).get('room'));
  const room = await (await fetch(`${base}/api/rooms/${next}`)).json();
  assert.deepEqual(room.seats.map((x) => x.occupant?.bot ?? null), bots, 'the same bots in the same seats');
  assert.equal(room.seats[0].occupant.name, 'alice', 'the same seat, the same name');
  assert.equal(await tab.count('#start'), 1, 'and the page is the new room\'s host');
}

/**
 * The README's first game by hand, start to end: the README's calls (here fetch;
 * the same requests, a lower points target so that the game is short) make a room
 * of four, take a seat, add three bots and start; the seat is played in the browser
 * by opening `/?room=ID#token=TOKEN`; the token leaves the address bar and stays
 * the page's after a reload; the person plays on through the page to the end.
 */
export async function adoptSeatFromAddress(browser, base, out) {
  mkdirSync(out, { recursive: true });
  // The README still names these calls and this address.
  const readme = readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'README.md'), 'utf8');
  for (const said of ["curl -s -X POST localhost:8080/api/rooms -d '{\"players\":4}'", 'localhost:8080/api/rooms/$ID/seats -d \'{"name":"me"}\'',
    'localhost:8080/api/rooms/$ID/bots -d \'{}\'', 'localhost:8080/api/rooms/$ID/start', 'http://localhost:8080/?room=$ID#token=$TOKEN']) {
    assert.ok(readme.includes(said), `the README's first game names ${said}`);
  }
  const post = (p, body, token) => fetch(`${base}${p}`, {
    method: 'POST', body: JSON.stringify(body), headers: token ? { Authorization: `Bearer ${token}` } : {},
  }).then((r) => r.json());
  const { room_id: id, host_token: host } = await post('/api/rooms', { players: 4, vp_target: 3 });
  const { token } = await post(`/api/rooms/${id}/seats`, { name: 'me' });
  for (let i = 0; i < 3; i++) await post(`/api/rooms/${id}/bots`, {}, host);
  await post(`/api/rooms/${id}/start`, {}, host);
  const tab = await browser.newTab({ width: 1366, height: 768 });
  await tab.goto(`${base}/?room=${id}&lang=en#token=${token}`);
  await tab.waitFor('#actions');
  assert.equal(await tab.evaluate(() => location.hash), '', 'the token left the address bar');
  await tab.reload();
  await tab.waitFor('#actions');
  await tab.screenshot(path.join(out, 'adopted-seat.png'));
  assert.equal(await tab.count('#players [data-you]'), 1, 'seated as the token\'s seat');
  const memo = newMemo();
  const watch = progressWatch(tab, out);
  for (let i = 0; i < 20000; i++) {
    const p = await look(tab);
    const did = await step(tab, memo, p);
    if (did === 'over') break;
    await watch(p, did);
  }
  await tab.waitFor('#game-over', 30000);
  assert.equal(await tab.count('#points-by-source tr[data-source="total"] td'), 4);
  assert.ok(memo.spots >= 4, 'the person placed the setup pieces through the page');
  assert.deepEqual(tab.errors, [], 'no errors in the page');
  await tab.close();
}

/**
 * Two people and a bot play a short game, each on their own page; after it, one
 * asks for a rematch and goes to the new room as its host, and the other, on the
 * end screen, is offered to join it and takes the same seat there under the same
 * name, without being its host.
 */
export async function rematchOfTwoPeople(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const alice = await browser.newTab({ width: 1280, height: 900, isolated: true });
  await alice.goto(`${base}/?lang=en`);
  await openOptions(alice);
  await alice.select('#opt-players', '3');
  await alice.fill('#opt-vp', 3);
  await alice.select('#opt-map', 'beginner');
  await alice.click('#create-room');
  await alice.waitForURL(/\?room=/);
  const roomId = new URL(alice.url()).searchParams.get('room');
  await alice.fill('#join-name', 'alice');
  await alice.click('#join');
  await alice.waitFor('#you-seat[data-seat="0"]');

  const bob = await browser.newTab({ width: 1280, height: 900, isolated: true });
  await bob.goto(`${base}/?room=${roomId}&lang=zh-Hant`);
  await bob.fill('#join-name', 'bob');
  await bob.click('#join');
  await bob.waitFor('#you-seat[data-seat="1"]');
  await alice.click('#add-bot');
  await alice.waitForFunction(() => document.querySelectorAll('#seats tr[data-bot]').length === 1);
  await alice.click('#start');

  // Both play (the simple policy) until each page shows the end screen.
  const tabs = [alice, bob];
  const memos = [newMemo(), newMemo()];
  const watches = tabs.map((t) => progressWatch(t, out));
  const over = [false, false];
  for (let i = 0; i < 20000 && !(over[0] && over[1]); i++) {
    for (const k of [0, 1]) {
      if (over[k]) continue;
      const p = await look(tabs[k]);
      const did = await step(tabs[k], memos[k], p);
      if (did === 'over') over[k] = true;
      else await watches[k](p, did);
    }
  }
  assert.ok(over[0] && over[1], 'the game ended on both pages');

  // Alice asks for the rematch and becomes the new room's host.
  await alice.click('#rematch');
  await alice.waitForFunction((old) => /[?&]room=/.test(location.search) && !location.search.includes(old), roomId);
  const next = await alice.evaluate(() => new URLSearchParams(location.search).get('room'));
  await alice.waitFor('#you-seat[data-seat="0"]');
  assert.equal(await alice.count('#start'), 1, 'the one who asked hosts the rematch');

  // Bob's end screen offers to join it; he takes his seat, and is no host there.
  await bob.waitFor(`#join-rematch[data-room="${next}"]`);
  await bob.click('#join-rematch');
  await bob.waitForFunction((n) => location.search.includes(n), next);
  await bob.waitFor('#you-seat[data-seat="1"]');
  assert.equal(await bob.count('#start'), 0, 'joining a rematch does not make one its host');
  const room = await (await fetch(`${base}/api/rooms/${next}`)).json();
  const old = await (await fetch(`${base}/api/rooms/${roomId}`)).json();
  assert.deepEqual(room.seats.map((s) => s.occupant && (s.occupant.bot ? `bot ${s.occupant.bot}` : s.occupant.name)),
    ['alice', 'bob', `bot ${old.seats[2].occupant.bot}`], 'the same people and bot in the same seats');
  await alice.screenshot(path.join(out, 'rematch-host.png'));
  await bob.screenshot(path.join(out, 'rematch-joined.png'));
  assert.deepEqual([...alice.errors, ...bob.errors], [], 'no errors in the pages');
  await alice.close();
  await bob.close();
}
