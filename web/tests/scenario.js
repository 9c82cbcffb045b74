// The browser scenarios, written once against the `Tab` driver of driver.js and run
// in every browser by browser.test.js. Everything a person does goes through the
// page: clicking highlighted spots and enabled buttons, filling the forms and
// answering dialogs. The page's state (`window.__catan`) is only read, to compare
// the view kept from events with a fresh snapshot and to explain a stuck game.

import assert from 'node:assert/strict';
import { mkdirSync, copyFileSync } from 'node:fs';
import path from 'node:path';

const RES = ['lumber', 'brick', 'wool', 'grain', 'ore'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function turnNumber(tab) {
  const m = (await tab.text('#turn-info')).match(/Turn (\d+)/);
  return m ? Number(m[1]) : -1;
}

// The parts of a GameView a client keeps from events (derived numbers excluded:
// protocol.md 12).
function comparable(v) {
  const c = structuredClone(v);
  for (const p of c.players) delete p.road_length;
  if (c.me) { delete c.me.total_vp; delete c.me.maritime_ratios; }
  const norm = (r) => Object.fromEntries(Object.entries(r || {}).filter(([, n]) => n));
  c.bank = norm(c.bank);
  if (c.me) { c.me.hand = norm(c.me.hand); c.me.dev_cards = norm(c.me.dev_cards); c.me.dev_cards_new = norm(c.me.dev_cards_new); }
  return c;
}

/** Reloads `tab` and checks that the view it kept from events equals the fresh snapshot. */
async function reloadAndCompare(tab) {
  const kept = await tab.evaluate(() => JSON.stringify(window.__catan.view));
  await tab.reload();
  await tab.waitFor('#board');
  await tab.waitForFunction(() => window.__catan?.view);
  const fresh = await tab.evaluate(() => JSON.stringify(window.__catan.view));
  assert.deepEqual(comparable(JSON.parse(kept)), comparable(JSON.parse(fresh)), 'the view kept from events equals the snapshot');
}

/** The hand shown in the page's "Your hand" panel. */
async function hand(tab) {
  return tab.evaluate(() => Object.fromEntries([...document.querySelectorAll('#hand .card[data-resource]')]
    .map((e) => [e.dataset.resource, Number(e.textContent.trim().split(' ').pop())])));
}

// `offers`: offer a player trade to everyone once in each of one's turns.
function newMemo({ offers = false } = {}) {
  return { turn: -1, maritime: 0, roads: 0, spots: 0, turns: 0, offers: 0, offered: true, offerEachTurn: offers };
}

const BUTTONS = ['roll', 'play-knight', 'play-road-building', 'play-yop', 'play-monopoly', 'build-city',
  'build-settlement', 'maritime', 'buy-dev', 'build-road', 'end-turn'];

// What a person sees in `tab` at a glance, read in one round trip (null while the
// page navigates): open dialogs, highlighted spots, enabled buttons, turn and prompt.
async function look(tab) {
  return tab.evaluate((buttons) => {
    const shown = (sel) => [...document.querySelectorAll(sel)].some((e) => e.getClientRects().length > 0);
    const on = (id) => { const e = document.getElementById(id); return !!e && !e.disabled; };
    const turn = (document.getElementById('turn-info')?.textContent || '').match(/Turn (\d+)/);
    return {
      over: shown('#game-over'),
      dialog: shown('.modal .dialog'),
      discard: shown('#discard-dialog'),
      victim: shown('#victim-dialog'),
      yop: shown('#yop-dialog'),
      monopoly: shown('#monopoly-dialog'),
      spots: document.querySelectorAll('#board .hl').length,
      on: Object.fromEntries(buttons.map((b) => [b, on(b)])),
      canOffer: shown('#trade button[data-step="give-lumber-plus"]') && !!document.getElementById('send-offer'),
      turn: turn ? Number(turn[1]) : -1,
      prompt: document.getElementById('prompt')?.textContent || '',
    };
  }, BUTTONS).catch(() => null);
}

// One step of the simple policy of a seated person who sees `p` (from `look`).
// Returns a short description of what was done ('wait' when there was nothing to do).
async function step(tab, memo, p) {
  if (!p) { await sleep(50); return 'wait'; }
  if (p.over) return 'over';
  if (p.discard) {
    for (let i = 0; i < 40 && !(await tab.enabled('#discard-confirm')); i++) {
      if (!(await tab.tryClick('#discard-dialog button[data-step$="-plus"]:enabled'))) break;
    }
    return (await tab.tryClick('#discard-confirm')) ? 'discard' : 'discard?';
  }
  if (p.victim) return (await tab.tryClick('#victim-dialog button[id^="victim-"]')) ? 'victim' : 'victim?';
  if (p.yop) return (await tab.tryClick('#yop-0')) ? 'year of plenty' : 'yop?';
  if (p.monopoly) return (await tab.tryClick('#monopoly-dialog button[id^="monopoly-"]')) ? 'monopoly' : 'monopoly?';

  if (p.spots) {
    if (await tab.clickNth('#board .hl', Math.floor(Math.random() * p.spots))) {
      memo.spots += 1;
      return 'spot';
    }
    return 'spot?';
  }
  if (memo.turn !== p.turn) { memo.turn = p.turn; memo.maritime = 0; memo.offered = !memo.offerEachTurn; }
  const order = [
    ['roll', 'roll'],
    ['play-knight', 'knight'],
    ['play-road-building', 'road building'],
    ['play-yop', 'yop'],
    ['play-monopoly', 'monopoly'],
    ['build-city', 'city mode'],
    ['build-settlement', 'settlement mode'],
  ];
  for (const [id, what] of order) {
    if (p.on[id]) { if (await tab.tryClick(`#${id}`)) return what; }
  }
  if (memo.maritime < 2 && p.on.maritime) {
    memo.maritime += 1;
    if (await tab.tryClick('#maritime')) return 'maritime';
  }
  if (p.on['buy-dev']) { if (await tab.tryClick('#buy-dev')) return 'buy dev'; }
  if (memo.roads < 6 && p.on['build-road']) {
    memo.roads += 1;
    if (await tab.tryClick('#build-road')) return 'road mode';
  }
  // Once a turn (when allowed), offer a trade to everyone, see the answers, then withdraw it.
  if (!memo.offered && p.on['end-turn'] && p.canOffer) {
    memo.offered = true;
    const give = '#trade button[data-step^="give-"][data-step$="-plus"]:enabled';
    if (await tab.count(give)) {
      const res = (await tab.attr(give, 'data-step')).split('-')[1];
      await tab.click(give);
      const want = ['ore', 'grain', 'wool'].find((r) => r !== res);
      await tab.click(`#trade button[data-step="get-${want}-plus"]`);
      if (await tab.tryClick('#send-offer')) {
        // Acknowledged (the bots may have rejected it already), then withdrawn if still open.
        await tab.waitForFunction(() => !document.getElementById('prompt')?.textContent.startsWith('Waiting for the server'), null, 5000).catch(() => {});
        if (await tab.count('#offers [id^="withdraw-"]')) await tab.tryClick('#offers [id^="withdraw-"]', 1000);
        memo.offers += 1;
        return 'offer';
      }
    }
  }
  if (p.on['end-turn']) {
    if (await tab.tryClick('#end-turn')) { memo.turns += 1; return 'end turn'; }
  }
  await sleep(50);
  return 'wait';
}

/** Fails with a screenshot and the page's state when `tab` made no progress for a minute. */
function progressWatch(tab, out) {
  let lastProgress = Date.now();
  let lastState = '';
  return async (p, did) => {
    const state = `${p?.turn}|${p?.prompt}`;
    // A failed attempt ('spot?') is no progress.
    if ((did !== 'wait' && !did.endsWith('?')) || state !== lastState) lastProgress = Date.now();
    lastState = state;
    if (Date.now() - lastProgress > 60000) {
      await tab.screenshot(path.join(out, 'stuck.png'), { fullPage: true });
      const dump = await tab.evaluate(() => JSON.stringify({ legal: window.__catan.legal, phase: window.__catan.view?.phase, pending: window.__catan.pending }));
      assert.fail(`no progress for 60 s: ${state}|${did}\n${dump}\nlast failed click: ${tab.lastError?.stack}\n${tab.errors.join('\n')}`);
    }
  };
}

/**
 * A person creates a room with every option, takes a seat, adds three bots, starts
 * and plays a whole game (VP target `vpTarget`) through the page; mid-game the page
 * is reloaded and must resume. Screenshots of the board go to `out`.
 */
export async function playWholeGame(browser, base, out, { vpTarget = 4, updateScreenshot = null } = {}) {
  mkdirSync(out, { recursive: true });
  const tab = await browser.newTab({ width: 1280, height: 900 });

  // Lobby: create a room with every option.
  await tab.goto(`${base}/`);
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
  await tab.waitForFunction(() => document.body.textContent.includes('You are seat 1.'));
  for (let i = 1; i <= 3; i++) {
    await tab.click('#add-bot');
    await tab.waitForFunction((n) => [...document.querySelectorAll('#seats td')]
      .filter((td) => td.textContent.includes('bot)')).length >= n, i);
  }
  await tab.click('#start');
  await tab.waitFor('#board');
  assert.equal(await tab.count('#board polygon.tile'), 19);
  assert.equal(await tab.count('#board .harbor'), 9);

  // Play until the game ends; reload once mid-game.
  const memo = { ...newMemo({ offers: true }), reloaded: false, shot: false };
  const watch = progressWatch(tab, out);
  for (let i = 0; i < 20000; i++) {
    const p = await look(tab);
    // Reload at the start of one of our turns (nothing moves until we roll): the
    // page must resume the game, and the view it kept up to date from events must
    // equal the server's fresh snapshot.
    if (p && !memo.reloaded && p.turn >= 3 && p.on.roll && !p.dialog && !p.spots) {
      memo.reloaded = true;
      await reloadAndCompare(tab);
      const ratios = await tab.evaluate(async () => {
        const { maritimeRatios } = await import('/web/board.js');
        const v = window.__catan.view;
        return [maritimeRatios(v, v.me.seat), v.me.maritime_ratios];
      });
      assert.deepEqual(ratios[0], ratios[1], 'harbor ratios computed by the page equal the server\'s');
      assert.equal(await turnNumber(tab), p.turn, 'the reloaded page resumed the same turn');
      assert.ok(await tab.enabled('#roll'), 'and it is still ours to roll');
      const you = await tab.evaluate(() => [...document.querySelectorAll('#players .badge')].filter((b) => b.textContent === 'you').length);
      assert.equal(you, 1, 'still seated after the reload');
      continue;
    }
    const did = await step(tab, memo, p);
    if (did === 'over') break;
    await watch(p, did);
    if (memo.reloaded && !memo.shot && p.turn >= 10 && did === 'end turn') {
      memo.shot = true;
      await tab.screenshotOf('#board', path.join(out, 'board.png'));
      await tab.screenshot(path.join(out, 'page.png'));
      if (updateScreenshot) copyFileSync(path.join(out, 'page.png'), updateScreenshot);
    }
  }

  // The game over screen: scores of all four seats and a working replay link.
  await tab.waitFor('#game-over', 30000);
  await tab.screenshot(path.join(out, 'game-over.png'));
  if (!memo.shot) await tab.screenshotOf('#board', path.join(out, 'board.png'));
  assert.equal(await tab.count('#final-scores tr'), 5);
  const href = await tab.attr('#replay-link', 'href');
  assert.equal(href, `/api/games/${roomId}/replay`);
  const replay = await tab.evaluate(async (u) => (await fetch(u)).status, href);
  assert.equal(replay, 200);
  assert.ok(memo.reloaded, 'the page was reloaded mid-game');
  assert.ok(memo.spots >= 4, 'placed pieces by clicking highlighted spots');
  assert.deepEqual(tab.errors, [], 'no errors in the page');

  // The board after the game: every highlight gone, the page shows the final state.
  await tab.click('#close-game-over');
  await tab.waitForFunction(() => !document.querySelector('#game-over'));
  assert.equal(await tab.count('#board .hl'), 0);
  await tab.close();
  return { turns: memo.turns, spots: memo.spots, offers: memo.offers };
}

/**
 * On a phone-sized screen, a room from the lobby list is watched as a spectator
 * until its bots finish; nothing scrolls sideways.
 */
export async function spectateOnPhone(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const res = await fetch(`${base}/api/rooms`, { method: 'POST', body: JSON.stringify({ players: 3, vp_target: 3 }) });
  const { room_id: id, host_token: host } = await res.json();
  const tab = await browser.newTab({ width: 390, height: 844 });
  await tab.goto(`${base}/`);
  await tab.waitFor(`a.room-link[href="/?room=${id}"]`);
  await tab.goto(`${base}/?room=${id}`);
  await tab.waitFor('#join');
  for (let i = 0; i < 3; i++) {
    await fetch(`${base}/api/rooms/${id}/bots`, { method: 'POST', headers: { Authorization: `Bearer ${host}` }, body: '{}' });
  }
  await fetch(`${base}/api/rooms/${id}/start`, { method: 'POST', headers: { Authorization: `Bearer ${host}` } });
  await tab.waitFor('#board');
  await tab.waitFor('#game-over', 90000);
  assert.equal(await tab.count('#final-scores tr'), 4);
  assert.equal(await tab.count('#actions'), 0, 'a spectator has no actions');
  const [width, inner] = await tab.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.equal(inner, 390, 'the viewport is phone-sized');
  const wide = await tab.evaluate(() => [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
    .slice(0, 5).map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`));
  assert.ok(width <= 390, `no horizontal scrolling on a phone (${width}px): ${wide.join(', ')}`);
  await tab.screenshot(path.join(out, 'phone.png'), { fullPage: true });
  assert.deepEqual(tab.errors, [], 'no errors in the page');
  await tab.close();
}

/** The id of the open offer shown in `tab` whose text matches `re`, once there is one. */
async function offerId(tab, re) {
  await tab.waitForFunction((src) => [...document.querySelectorAll('#offers .offer')]
    .some((o) => new RegExp(src).test(o.textContent)), re.source);
  return tab.evaluate((src) => Number([...document.querySelectorAll('#offers .offer')]
    .find((o) => new RegExp(src).test(o.textContent)).dataset.offer), re.source);
}

const gone = (tab, id) => tab.waitForFunction((i) => !document.querySelector(`#offers .offer[data-offer="${i}"]`), id);

/**
 * Three people in three separate browser contexts (as on three devices) play a
 * three-seat room until the first of them can trade in her turn, then through
 * their pages: an offer to one opponent, rejected; an offer to everyone, countered
 * (the counter rejected), accepted by both others; the offerer picks one of the two
 * accepters and the cards move.
 */
export async function tradeAmongPeople(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const names = ['alice', 'bob', 'carol'];
  const tabs = [];
  for (let i = 0; i < 3; i++) tabs.push(await browser.newTab({ width: 1280, height: 900, isolated: true }));
  const [alice, bob, carol] = tabs;

  await alice.goto(`${base}/`);
  await alice.select('#opt-players', '3');
  await alice.select('#opt-map', 'beginner');
  await alice.fill('#opt-trade', '600');
  await alice.fill('#opt-discard', '0');
  await alice.click('#create-room');
  await alice.waitForURL(/\?room=/);
  await alice.waitFor('#share-link');
  const link = await alice.value('#share-link');
  for (const [i, tab] of tabs.entries()) {
    if (i) await tab.goto(link);
    await tab.fill('#join-name', names[i]);
    await tab.click('#join');
    await tab.waitForFunction((s) => document.body.textContent.includes(s), `You are seat ${i + 1}.`);
  }
  await alice.click('#start');
  for (const tab of tabs) await tab.waitFor('#board');

  // Everyone plays the simple policy (no offers) until alice, in her main phase,
  // holds a card she can give for one that both others hold.
  const memos = tabs.map(() => newMemo());
  const watch = progressWatch(alice, out);
  let plan = null;
  const started = Date.now();
  while (!plan) {
    assert.ok(Date.now() - started < 240000, 'alice found a trade for both others within 4 minutes');
    const seen = await Promise.all(tabs.map(look));
    const p = seen[0];
    if (p && p.on['end-turn'] && p.canOffer && !p.spots && !p.dialog) {
      const [a, b, c] = await Promise.all(tabs.map(hand));
      for (const give of RES.filter((r) => a[r] > 0)) {
        const want = RES.find((r) => r !== give && b[r] > 0 && c[r] > 0);
        if (want) { plan = { give, want }; break; }
      }
      if (plan) break;
    }
    let did = 'wait';
    for (const [i, tab] of tabs.entries()) {
      const d = await step(tab, memos[i], seen[i]);
      if (d !== 'wait') did = `${names[i]}: ${d}`;
    }
    await watch(p, did);
  }
  const { give, want } = plan;
  const setOffer = async (tab) => {
    await tab.click(`#trade button[data-step="give-${give}-plus"]`);
    await tab.click(`#trade button[data-step="get-${want}-plus"]`);
  };

  // 1. An offer to bob alone: carol sees it but cannot answer; bob rejects; it closes.
  await setOffer(alice);
  await alice.select('#offer-to', '1');
  await alice.click('#send-offer');
  const one = await offerId(alice, /→ bob/);
  await bob.waitFor(`#reject-${one}`);
  await carol.waitFor(`#offers .offer[data-offer="${one}"]`);
  assert.equal(await carol.count(`#accept-${one}, #reject-${one}, #counter-${one}`), 0, 'not addressed to carol');
  assert.match(await bob.text('#prompt'), /offer awaits your answer/);
  await bob.click(`#reject-${one}`);
  for (const tab of tabs) await gone(tab, one);

  // 2. An offer to everyone; bob counters asking for one more card; alice rejects the counter.
  await setOffer(alice);
  await alice.select('#offer-to', '');
  await alice.click('#send-offer');
  const all = await offerId(alice, /→ everyone/);
  for (const tab of [bob, carol]) await tab.waitFor(`#accept-${all}`);
  await bob.click(`#counter-${all}`);
  await bob.waitForFunction((s) => document.querySelector('#trade h3')?.textContent === s, `Counter-offer to #${all}`);
  await bob.click(`#trade button[data-step="get-${give}-plus"]`);
  await bob.click('#send-counter');
  const counter = await offerId(alice, new RegExp(`counter to #${all}\\)`));
  assert.match(await alice.text(`#offers .offer[data-offer="${counter}"]`), new RegExp(`gives 1 ${want}, wants 2 ${give}`));
  await carol.waitFor(`#offers .offer[data-offer="${counter}"]`);
  assert.equal(await carol.count(`#accept-${counter}`), 0, 'a counter is for the offerer only');
  await bob.waitFor(`#withdraw-${counter}`);
  await alice.click(`#reject-${counter}`);
  for (const tab of tabs) await gone(tab, counter);
  assert.equal(await bob.count(`#offers .offer[data-offer="${all}"]`), 1, 'the original offer stays open');

  // 3. Both accept; alice sees two confirmations and trades with carol.
  await bob.click(`#accept-${all}`);
  await carol.click(`#accept-${all}`);
  await alice.waitFor(`#confirm-${all}-1`);
  await alice.waitFor(`#confirm-${all}-2`);
  assert.equal(await alice.text(`#confirm-${all}-2`), 'Trade with carol');
  assert.match(await alice.text(`#offers .offer[data-offer="${all}"]`), /accepted: .*bob.*carol/);
  await alice.screenshot(path.join(out, 'trade.png'));
  const before = await Promise.all(tabs.map(hand));
  await alice.click(`#confirm-${all}-2`);
  for (const tab of tabs) await gone(tab, all);
  const after = await Promise.all(tabs.map(hand));
  const moved = (h, r, n) => ({ ...h, [r]: h[r] + n });
  assert.deepEqual(after[0], moved(moved(before[0], give, -1), want, 1), 'alice gave one and got one');
  assert.deepEqual(after[2], moved(moved(before[2], want, -1), give, 1), 'carol the other way round');
  assert.deepEqual(after[1], before[1], 'bob, the other accepter, kept his cards');
  await bob.waitForFunction((s) => document.querySelector('#log').textContent.includes(s), `traded 1 ${give} to carol for 1 ${want}`);

  // The views kept from those events equal fresh snapshots.
  for (const tab of tabs) await reloadAndCompare(tab);
  for (const [i, tab] of tabs.entries()) assert.deepEqual(tab.errors, [], `no errors in ${names[i]}'s page`);
  for (const tab of tabs) await tab.close();
}
