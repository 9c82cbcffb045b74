// The browser scenarios, written once against the `Tab` driver of driver.js and run
// in every browser by browser.test.js. Everything a person does goes through the
// page: clicking highlighted spots and enabled buttons, filling the forms and
// answering dialogs. The page's state (`window.__catan`) is only read, to compare
// the view kept from events with a fresh snapshot and to explain a stuck game.

import assert from 'node:assert/strict';
import { mkdirSync, copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';

const RES = ['lumber', 'brick', 'wool', 'grain', 'ore'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Closes the rooms whose bots would play on (admin API). */
export async function closeRooms(admin, ids) {
  if (!admin?.url) return;
  for (const id of ids) {
    await fetch(`${admin.url}/admin/rooms/${id}/close`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.token}` } }).catch(() => {});
  }
}

/** Opens the lobby's folded room options (More options), as a person taps it. */
export async function openOptions(tab) {
  if (!(await tab.evaluate(() => document.getElementById('more-options')?.open))) await tab.click('#more-options-summary');
  await tab.waitFor('#opt-players');
}

async function turnNumber(tab) {
  const n = await tab.attr('#turn-info', 'data-turn').catch(() => null);
  return n === null ? -1 : Number(n);
}

// The page's view, once the kit has no refresh of derived numbers outstanding.
async function keptView(tab) {
  await tab.waitForFunction(() => window.__catan?.conn?.state.view && window.__catan.conn.refreshSeq === null);
  return tab.evaluate(() => JSON.stringify(window.__catan.conn.state.view));
}

/**
 * What the page shows of the game, read from the DOM: per player VP, cards, road
 * length and awards; the hand, the bank and the ratios.
 */
async function shown(tab) {
  // The page redraws once per animation frame (what arrived since is drawn then):
  // read it after the frames that draw what the kit already holds.
  await tab.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return tab.evaluate(() => ({
    players: [...document.querySelectorAll('#players .player[data-seat]')].map((row) => [...row.querySelectorAll('.stat b')].map((b) => b.textContent)
      .concat([...row.querySelectorAll('.award')].map((b) => b.title))),
    hand: [...document.querySelectorAll('#hand .card')].map((e) => e.textContent),
    ratios: document.getElementById('ratios')?.textContent,
    bank: [...document.querySelectorAll('#bank .card')].map((e) => e.textContent),
  }));
}

/**
 * Reloads `tab` and checks that the view the kit kept from events equals the fresh
 * snapshot, and that the page showed what it shows from the snapshot.
 */
async function reloadAndCompare(tab) {
  const kept = await keptView(tab);
  const before = await shown(tab);
  await tab.reload();
  await tab.waitFor('#board');
  const fresh = await keptView(tab);
  assert.deepEqual(JSON.parse(kept), JSON.parse(fresh), 'the view kept from events equals the snapshot');
  assert.deepEqual(await shown(tab), before, 'the page showed what the server\'s view says');
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

/**
 * Starts recording, in `tab`, every toast shown (its kind) and every event the page
 * receives with the awards' holders before it; `takeToasts` collects them. A reload
 * ends a recording (the page is new).
 */
async function recordToasts(tab) {
  await tab.evaluate(() => {
    const rec = { toasts: [], texts: [], events: [], announced: [] };
    window.__toastRecord = rec;
    new MutationObserver((changes) => {
      for (const c of changes) {
        for (const n of c.addedNodes) {
          if (n.classList?.contains('toast')) { rec.toasts.push(n.dataset.kind); rec.texts.push([n.dataset.kind, n.textContent]); }
        }
      }
    }).observe(document.getElementById('toasts'), { childList: true });
    // What screen readers are given: the lines added to the polite live region.
    new MutationObserver((changes) => {
      for (const c of changes) for (const n of c.addedNodes) rec.announced.push(n.textContent);
    }).observe(document.getElementById('announce'), { childList: true });
    // Every connection the page makes (it may open a new one), each `events`
    // message it takes in (not a duplicate), as the kit hands it to the page.
    const proto = Object.getPrototypeOf(window.__catan.conn);
    const receive = proto.receive;
    proto.receive = function (msg) {
      const s = this.state;
      const fresh = msg.type === 'events' && s.view && !(s.lastSeq !== null && msg.seq <= s.lastSeq);
      if (fresh && this === window.__catan.conn) {
        let { longest_road: lr, largest_army: la } = s.view;
        for (const ev of msg.events) {
          rec.events.push({ ev, lr, la });
          if (ev.type === 'longest_road') lr = ev.holder;
          if (ev.type === 'largest_army') la = ev.holder;
        }
      }
      return receive.call(this, msg);
    };
  });
}

/**
 * What `recordToasts` recorded: toasts shown and toasts due, by kind, and the texts
 * shown (`[kind, text]`). A robbery of `you` must say in words who took what: each
 * "robbed" toast names the thief and the resource of its `stolen` event (in the
 * page's language), in order.
 */
async function takeToasts(tab, you) {
  const rec = await tab.evaluate(() => window.__toastRecord);
  const due = { turn: 0, robbed: 0, offer: 0, award: 0, accepted: 0 };
  const robberies = [];
  const mine = new Set();
  for (const { ev, lr, la } of rec.events) {
    if (ev.type === 'turn_started' && ev.seat === you) due.turn += 1;
    // The offerer is told when someone accepts.
    if (ev.type === 'offer_made' && ev.offer.from === you) mine.add(ev.offer.id);
    if (ev.type === 'offer_accepted' && mine.has(ev.offer)) due.accepted += 1;
    if (ev.type === 'stolen' && ev.victim === you) { due.robbed += 1; robberies.push(ev); }
    if (ev.type === 'offer_made' && ev.offer.from !== you && (ev.offer.to === you || ev.offer.to === null)) due.offer += 1;
    if ((ev.type === 'longest_road' && ev.holder !== lr) || (ev.type === 'largest_army' && ev.holder !== la)) due.award += 1;
  }
  const shownKinds = { turn: 0, robbed: 0, offer: 0, award: 0, accepted: 0 };
  for (const k of rec.toasts) if (k in shownKinds) shownKinds[k] += 1;
  const robbedTexts = rec.texts.filter(([k]) => k === 'robbed').map(([, text]) => text);
  const words = await tab.evaluate(async (evs) => {
    const { t } = await import(new URL('i18n.js', document.querySelector('script[type=module]').src).href);
    const { seatName } = await import(new URL('ui.js', document.querySelector('script[type=module]').src).href);
    return evs.map((ev) => [seatName(ev.thief), ev.resource ? t(`res.${ev.resource}`) : null]);
  }, robberies);
  robbedTexts.forEach((text, i) => {
    const [thief, res] = words[i] || [];
    assert.ok(res, `the victim's own stolen event names the resource (${JSON.stringify(robberies[i])})`);
    assert.ok(text.includes(thief) && text.includes(res), `the robbed toast "${text}" names the thief ${thief} and the card taken, ${res}`);
  });
  return { due, shown: shownKinds, announced: rec.announced, texts: rec.texts };
}

function addCounts(into, from) {
  for (const k of Object.keys(from)) into[k] = (into[k] || 0) + from[k];
}

/** The hand shown in the page's "Your hand" panel. */
async function hand(tab) {
  return tab.evaluate(() => Object.fromEntries([...document.querySelectorAll('#hand .card[data-resource]')]
    .map((e) => [e.dataset.resource, Number(e.dataset.count)])));
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
    const turn = document.getElementById('turn-info')?.dataset.turn;
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
      turn: turn === undefined ? -1 : Number(turn),
      prompt: document.getElementById('prompt')?.textContent || '',
      seq: window.__catan?.conn?.state.lastSeq ?? null,
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

/** The room as the admin API shows it (its `seq`, phase and last events), for a stuck page's report. */
async function roomAsTheServerHasIt(admin, roomId) {
  const r = await fetch(`${admin.url}/admin/rooms/${roomId}?events=8`, { headers: { authorization: `Bearer ${admin.token}` } });
  if (r.status !== 200) return `${r.status} ${(await r.text()).slice(0, 500)}`;
  const d = await r.json();
  const seats = d.room.seats.map((s) => `${s.seat}:${s.connected ? 'on' : 'off'}`).join(' ');
  return JSON.stringify({ seq: d.room.seq, actions: d.room.actions, phase: d.room.phase, seats, offers: d.offers, deadline: d.deadline, last: d.events }).slice(0, 6000);
}

/**
 * Fails with a screenshot and the page's state when `tab` made no progress for a
 * minute; `serverSide`, when given, is asked what the server holds (the admin
 * API's view of the room), so that a broadcast the page never got and an action
 * the server never saw can be told apart.
 */
function progressWatch(tab, out, serverSide = null) {
  let lastProgress = Date.now();
  let lastState = '';
  return async (p, did) => {
    // Progress is what the page shows changing (a new broadcast, turn, prompt or
    // set of spots), not a step said done: a press or click the page did not take
    // must not keep a stuck game going until the test's own time limit.
    const state = `${p?.turn}|${p?.prompt}|${p?.seq}|${p?.spots}`;
    if (state !== lastState) lastProgress = Date.now();
    lastState = state;
    if (Date.now() - lastProgress > 60000) {
      await tab.screenshot(path.join(out, 'stuck.png'), { fullPage: true });
      const dump = await tab.evaluate(() => {
        const c = window.__catan.conn;
        const a = document.activeElement;
        return JSON.stringify({ legal: c.state.legal, phase: c.state.view?.phase, pending: c.state.pending, lastSeq: c.state.lastSeq, socket: c.ws?.readyState ?? null, queued: c.queue?.length ?? null,
          focus: { hasFocus: document.hasFocus(), active: a ? `${a.tagName}#${a.id}` : null, visibility: document.visibilityState }, keys: (window.__keysSeen || []).slice(-4), focusEvents: window.__focusSeen });
      });
      const server = serverSide ? await serverSide().catch((e) => `(the server could not be asked: ${e})`) : '(not asked)';
      assert.fail(`no progress for 60 s: ${state}|${did}\n${dump}\nserver: ${server}\nlast failed click: ${tab.lastError?.stack}\n${tab.errors.join('\n')}`);
    }
  };
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
 * On a phone-sized screen, a room from the lobby list is watched as a spectator
 * until its bots finish; nothing scrolls sideways.
 */
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
 * R-10.5: a room of random bots at a target of 20 with the lowest turn limit (100) ends
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

  await alice.goto(`${base}/?lang=en`);
  await openOptions(alice);
  await alice.select('#opt-players', '3');
  await alice.select('#opt-map', 'beginner');
  await alice.fill('#opt-trade', '600');
  await alice.fill('#opt-discard', '0');
  await alice.click('#create-room');
  await alice.waitForURL(/\?room=/);
  await alice.waitFor('#share-link');
  const link = await alice.value('#share-link');
  for (const [i, tab] of tabs.entries()) {
    if (i) await tab.goto(`${link}&lang=en`);
    await tab.fill('#join-name', names[i]);
    await tab.click('#join');
    await tab.waitFor(`#you-seat[data-seat="${i}"]`);
  }
  await alice.click('#start');
  for (const tab of tabs) await tab.waitFor('#board');
  for (const tab of tabs) await recordToasts(tab);

  // Everyone plays the simple policy (no offers) until alice, in her main phase,
  // holds a card she can give for one that both others hold. Each puts their first
  // settlement on a corner of one tile (a 6 or an 8), so that the robber can later
  // be moved next to two people at once (step 4).
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
      const corner = !memos[i].shared && seen[i]?.spots ? await sharedCorner(tab) : null;
      if (corner !== null) {
        await tab.click(`#board .hl[data-vertex="${corner}"]`);
        memos[i].shared = true;
        memos[i].spots += 1;
        did = `${names[i]}: settlement by the shared tile`;
        continue;
      }
      const d = await step(tab, memos[i], seen[i]);
      if (d !== 'wait') did = `${names[i]}: ${d}`;
    }
    await watch(p, did);
  }
  assert.ok(memos.every((m) => m.shared), 'each put a settlement by the shared tile');
  const { give, want } = plan;
  const setOffer = async (tab) => {
    await tab.click(`#trade button[data-step="give-${give}-plus"]`);
    await tab.click(`#trade button[data-step="get-${want}-plus"]`);
  };

  // The offer toasts each page showed, and the one an offer should show.
  const offerToasts = (tab) => tab.evaluate(() => window.__toastRecord.texts.filter(([k]) => k === 'offer').map(([, x]) => x));
  const offerWords = (tab, from, giveCards, getCards) => tab.evaluate(async ([n, g, w]) => {
    const { t, cardsText } = await import(new URL('i18n.js', document.querySelector('script[type=module]').src).href);
    return t('toast.offer', { name: n, give: cardsText(g), get: cardsText(w) });
  }, [from, giveCards, getCards]);
  const before0 = await Promise.all(tabs.map(offerToasts));
  assert.deepEqual(before0, [[], [], []], 'no offers yet');
  const aliceOffers = await offerWords(bob, 'alice', { [give]: 1 }, { [want]: 1 });

  // 1. An offer to bob alone: carol sees it but cannot answer; bob rejects; it closes.
  // Bob's page tells him with a toast, in words; carol's does not.
  await setOffer(alice);
  await alice.click('[data-offer-to="1"]');
  await alice.click('#send-offer');
  const one = await offerId(alice, /→ bob/);
  await bob.waitFor(`#reject-${one}`);
  await carol.waitFor(`#offers .offer[data-offer="${one}"]`);
  assert.equal(await carol.count(`#accept-${one}, #reject-${one}, #counter-${one}`), 0, 'not addressed to carol');
  await bob.waitForFunction((x) => window.__toastRecord.texts.some(([k, y]) => k === 'offer' && y === x), aliceOffers, 5000);
  assert.deepEqual(await offerToasts(bob), [aliceOffers], `bob's toast: ${aliceOffers}`);
  assert.deepEqual(await offerToasts(carol), [], 'no toast for carol: the offer is not to her');
  assert.match(await bob.text('#prompt'), /offer awaits your answer/);
  await bob.click(`#reject-${one}`);
  for (const tab of tabs) await gone(tab, one);

  // 2. An offer to everyone; bob counters asking for one more card; alice rejects the counter.
  await setOffer(alice);
  await alice.click('[data-offer-to=""]');
  await alice.click('#send-offer');
  const all = await offerId(alice, /→ everyone/);
  for (const tab of [bob, carol]) await tab.waitFor(`#accept-${all}`);
  // An offer to everyone is a toast for both others.
  await carol.waitForFunction((x) => window.__toastRecord.texts.some(([k, y]) => k === 'offer' && y === x), aliceOffers, 5000);
  assert.deepEqual(await offerToasts(bob), [aliceOffers, aliceOffers], 'bob: a toast for each offer to him');
  assert.deepEqual(await offerToasts(carol), [aliceOffers], 'carol: a toast for the offer to everyone');
  await bob.click(`#counter-${all}`);
  await bob.waitForFunction((s) => document.querySelector('#trade h3')?.textContent === s, `Counter-offer to #${all}`);
  await bob.click(`#trade button[data-step="get-${give}-plus"]`);
  await bob.click('#send-counter');
  const counter = await offerId(alice, new RegExp(`counter to #${all}\\)`));
  assert.match(await alice.text(`#offers .offer[data-offer="${counter}"]`), new RegExp(`gives 1 ${want}, wants 2 ${give}`));
  // The counter-offer is to alice: a toast on her page only.
  const bobCounters = await offerWords(alice, 'bob', { [want]: 1 }, { [give]: 2 });
  await alice.waitForFunction((x) => window.__toastRecord.texts.some(([k, y]) => k === 'offer' && y === x), bobCounters, 5000);
  assert.deepEqual(await offerToasts(alice), [bobCounters], `alice's toast: ${bobCounters}`);
  assert.deepEqual(await offerToasts(carol), [aliceOffers], 'none for carol');
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
  // Each answer is a mark beside the player who gave it.
  assert.deepEqual(await alice.evaluate((o) => [...document.querySelectorAll(`#offers .offer[data-offer="${o}"] .answer`)].map((e) => [e.dataset.seat, e.dataset.answer, e.querySelector('.name').textContent]), all),
    [['1', 'accepted', 'bob'], ['2', 'accepted', 'carol']]);
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
  // Every toast due was shown (and the robbed ones of the game so far say what was taken).
  for (const [i, tab] of tabs.entries()) {
    const r = await takeToasts(tab, i);
    assert.deepEqual(r.shown, r.due, `${names[i]}: a toast for each turn, robbery, offer to them and award`);
  }

  // The views kept from those events equal fresh snapshots.
  for (const tab of tabs) await reloadAndCompare(tab);

  // 4. A robbery of a person, seen by the robbed person: they play on until one of
  // them moves the robber to a tile next to both others; on a phone-sized page the
  // dialog asks whom to rob (its buttons 44 px), the first is robbed, and that
  // person's page says by whom and which card, the one their hand lost.
  for (const tab of tabs) await recordToasts(tab);
  const robbery = await robAPerson(tabs, names, memos, out);
  for (const [i, tab] of tabs.entries()) {
    const r = await takeToasts(tab, i);
    assert.deepEqual(r.shown, r.due, `${names[i]}: a toast for each turn, robbery, offer to them and award`);
  }
  console.log(`# ${robbery}`);
  for (const [i, tab] of tabs.entries()) assert.deepEqual(tab.errors, [], `no errors in ${names[i]}'s page`);
  for (const tab of tabs) await tab.close();
}

/**
 * In the setup, a highlighted settlement spot on a corner of the board's first tile
 * numbered 6 or 8, the one that leaves most of its other corners free (so that the
 * third person still has one); null when there is none (or it is not the setup).
 */
function sharedCorner(tab) {
  return tab.evaluate(async () => {
    const v = window.__catan?.conn?.state.view;
    if (!v || v.phase.name !== 'setup') return null;
    const { topology } = await import(new URL('board.js', document.querySelector('script[type=module]').src).href);
    const top = topology();
    const tile = v.map.numbers.findIndex((n) => n === 6 || n === 8);
    const spots = [...document.querySelectorAll('#board .hl[data-vertex]')].map((e) => Number(e.dataset.vertex))
      .filter((x) => top.vertices[x].tiles.includes(tile));
    const near = (x) => top.edges.filter((e) => e.a === x || e.b === x).map((e) => (e.a === x ? e.b : e.a));
    const left = (x) => spots.filter((y) => y !== x && !near(x).includes(y)).length;
    return spots.length ? spots.sort((a, b) => left(b) - left(a))[0] : null;
  }).catch(() => null);
}

/**
 * Where the page's seat may move the robber now, by tile, with the seats it could
 * rob there (null when it is not moving the robber).
 */
function robberTiles(tab) {
  return tab.evaluate(() => {
    const st = window.__catan?.conn?.state;
    const moves = st && !st.pending ? st.legal.filter((a) => a.type === 'move_robber') : [];
    if (!moves.length || !document.querySelector('#board .hl[data-tile]')) return null;
    const tiles = new Map();
    for (const a of moves) {
      const v = tiles.get(a.tile) || [];
      if (a.victim !== null && a.victim !== undefined && !v.includes(a.victim)) v.push(a.victim);
      tiles.set(a.tile, v);
    }
    return [...tiles].map(([tile, victims]) => ({ tile, victims }));
  }).catch(() => null);
}

/**
 * People on `tabs` (seats 0..n) play the simple policy until one of them may move
 * the robber to a tile where two others could be robbed; that one does so through a
 * phone-sized page (390x844) and robs the first in the dialog. Checks the dialog's
 * tap targets and the robbed person's toast (thief and card in words, the card
 * their hand lost). Returns a line saying what happened.
 */
async function robAPerson(tabs, names, memos, out) {
  const watch = progressWatch(tabs[0], out);
  const started = Date.now();
  for (;;) {
    assert.ok(Date.now() - started < 240000, 'a robber move next to two people came within 4 minutes');
    const seen = await Promise.all(tabs.map(look));
    assert.ok(!seen.some((p) => p?.over), 'the game went on');
    let did = 'wait';
    for (const [i, tab] of tabs.entries()) {
      const tiles = seen[i]?.spots ? await robberTiles(tab) : null;
      const two = tiles?.find((x) => x.victims.length >= 2);
      if (two) {
        const victim = two.victims[0];
        const before = await hand(tabs[victim]);
        await tab.page.setViewport({ width: 390, height: 844 });
        await tab.click(`#board .hl[data-tile="${two.tile}"]`);
        await tab.waitFor('#victim-dialog');
        const m = await measure(tab);
        assert.ok(m.scrollWidth <= 390, `the victim dialog does not overflow (${m.scrollWidth} px)`);
        assert.deepEqual(m.small, [], 'every button of the victim dialog is at least 44 px');
        assert.equal(await tab.count('#victim-dialog button[id^="victim-"]'), two.victims.length, 'one button a victim');
        await tab.screenshot(path.join(out, 'victim-dialog-390.png'));
        await tab.click(`#victim-${victim}`);
        await tab.page.setViewport({ width: 1280, height: 900 });
        const total = (hd) => Object.values(hd).reduce((a, b) => a + b, 0);
        await tabs[victim].waitForFunction((n) => [...document.querySelectorAll('#hand .card[data-resource]')]
          .reduce((a, e) => a + Number(e.dataset.count), 0) === n, total(before) - 1);
        const after = await hand(tabs[victim]);
        const lost = RES.filter((r) => after[r] === before[r] - 1);
        assert.equal(lost.length, 1, `the victim lost one card: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
        const words = await tabs[victim].evaluate(async ([n, r]) => {
          const { t } = await import(new URL('i18n.js', document.querySelector('script[type=module]').src).href);
          return t('toast.robbed', { name: n, res: t(`res.${r}`) });
        }, [names[i], lost[0]]);
        await tabs[victim].waitForFunction((x) => window.__toastRecord.texts.some(([k, y]) => k === 'robbed' && y === x), words, 5000)
          .catch(async (e) => { throw new Error(`robbed toasts: ${JSON.stringify(await tabs[victim].evaluate(() => window.__toastRecord.texts))}, expected ${words}`, { cause: e }); });
        assert.equal(words, `${names[i]} robbed you: ${lost[0]}`, 'in words: who and which card');
        return `${names[i]} robbed ${names[victim]} of ${lost[0]} after ${((Date.now() - started) / 1000).toFixed(1)} s: "${words}"`;
      }
      const d = await step(tab, memos[i], seen[i]);
      if (d !== 'wait') did = `${names[i]}: ${d}`;
    }
    await watch(seen[0], did);
  }
}

/** What matters for the layout, measured in one round trip. */
export function measure(tab) {
  return tab.evaluate(() => {
    const rect = (sel) => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height }; };
    // (Not what a closed <details> holds: laid out, but not shown.)
    const visible = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden'
      && (!e.checkVisibility || e.checkVisibility());
    const small = [...document.querySelectorAll('button, select, input, a, summary, .hl')]
      .filter((e) => visible(e) && (!e.closest('svg') || e.classList.contains('hl')))
      .map((e) => ({ e, r: e.getBoundingClientRect() }))
      .filter(({ r }) => r.width < 44 || r.height < 44)
      .map(({ e, r }) => `${e.tagName}#${e.id}[${e.dataset.step || ''}] ${Math.round(r.width)}x${Math.round(r.height)}`);
    return {
      scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth, innerWidth, innerHeight, scrollY,
      scrollHeight: document.documentElement.scrollHeight,
      board: rect('#board'), topbar: rect('#topbar'), turn: rect('#turn-info'), timer: rect('#status-line .timer'),
      actions: rect('#actions'), hand: rect('#hand'), log: rect('#log'), small,
    };
  });
}

/**
 * The game screen at a phone's 390x844 and a laptop's 1366x768 for a seated player in
 * language `lang`: no horizontal overflow, every tap target at least 44 px; on the
 * phone one screen without scrolling: the board the full width, the hand docked
 * under it, the actions in thumb reach, the trade sheet over the board, closing by
 * itself when the board must be tapped (every spot then in view and on top), zoom
 * in and back with the buttons; on the laptop board, hand, actions and log in one
 * screen. A refusal shows in words (from its code) and clears at the next change of
 * state; a disabled action says why. Screenshots: phone-<lang>.png,
 * phone-trade-<lang>.png, desktop-<lang>.png.
 */
export async function layoutAtBothSizes(browser, base, out, { lang = 'zh-Hans', docs = null } = {}) {
  mkdirSync(out, { recursive: true });
  const res = await fetch(`${base}/api/rooms`, { method: 'POST', body: JSON.stringify({ players: 4, map: 'beginner', turn_timer_secs: 300 }) });
  const { room_id: id, host_token: host } = await res.json();
  const tab = await browser.newTab({ width: 390, height: 844, isolated: true });
  await tab.goto(`${base}/?lang=${lang}`);
  await tab.waitFor('#create-room');
  await tab.screenshot(path.join(out, `lobby-${lang}.png`));
  assert.deepEqual((await measure(tab)).scrollWidth <= 390, true, 'the lobby does not overflow');
  await tab.goto(`${base}/?room=${id}`);
  await tab.fill('#join-name', lang === 'en' ? 'alice' : '小明');
  await tab.click('#join');
  await tab.waitFor('#you-seat');
  await tab.screenshot(path.join(out, `room-${lang}.png`));
  for (let i = 0; i < 3; i++) await fetch(`${base}/api/rooms/${id}/bots`, { method: 'POST', headers: { Authorization: `Bearer ${host}` }, body: '{"kind":"medium"}' });
  await fetch(`${base}/api/rooms/${id}/start`, { method: 'POST', headers: { Authorization: `Bearer ${host}` } });
  await tab.waitFor('#board');
  // The spots of the setup are tap targets too.
  await tab.waitForFunction(() => document.querySelectorAll('#board .hl').length > 0, null, 60000);
  assert.deepEqual((await measure(tab)).small, [], 'every board spot is at least 44 px on the phone');
  // The setup's hint: each candidate spot shows its pips (the dots of its tiles' numbers).
  // (Drawn with the spots, once the page knows the placement is its own: waited for,
  // as a full Chromium run once read the spots before their marks.)
  await tab.waitForFunction(() => document.querySelectorAll('#board .hl-pips').length > 0, null, 10000)
    .catch(async (e) => {
      const why = await tab.evaluate(() => ({ you: window.__catan.conn.state.you, current: window.__catan.conn.state.view?.current, phase: window.__catan.conn.state.view?.phase }));
      throw new Error(`no pips on the setup's spots: ${JSON.stringify(why)}`, { cause: e });
    });
  const hints = await tab.evaluate(async () => {
    const { vertexPips } = await import(new URL('board.js', document.querySelector('script[type=module]').src).href);
    const v = window.__catan.conn.state.view;
    return [...document.querySelectorAll('#board .hl[data-vertex]')].map((e) => {
      const mark = [...document.querySelectorAll('#board .hl-pips')].find((p) => Math.abs(Number(p.getAttribute('x')) - Number(e.getAttribute('cx'))) < 0.5
        && Math.abs(Number(p.getAttribute('y')) - 1 - Number(e.getAttribute('cy'))) < 0.5);
      return [mark ? Number(mark.textContent) : null, vertexPips(v, Number(e.dataset.vertex))];
    });
  });
  assert.ok(hints.length > 0 && hints.every(([shown, pips]) => shown === pips), `each candidate spot shows its pips: ${JSON.stringify(hints.slice(0, 5))}`);
  // Through the setup to the first own roll.
  const memo = newMemo();
  for (let p = await look(tab); !(p && p.on.roll && !p.spots && !p.dialog); p = await look(tab)) await step(tab, memo, p);

  const phone = await measure(tab);
  assert.ok(phone.scrollWidth <= 390, `no horizontal overflow on the phone (${phone.scrollWidth})`);
  assert.ok(phone.board.width >= phone.clientWidth - 1, `the board fills the width (${phone.board.width} of ${phone.clientWidth})`);
  assert.ok(phone.actions.top >= 0 && phone.actions.bottom <= phone.innerHeight + 1, 'the actions are on screen');
  assert.ok(phone.board.bottom <= phone.actions.top + 1, 'with the whole board above them');
  assert.ok(phone.actions.top > phone.board.top, 'below the top of the board');
  assert.deepEqual(phone.small, [], 'every tap target is at least 44 px');
  await tab.screenshot(path.join(out, `phone-${lang}.png`));
  // A disabled action says why; a refusal shows in words and clears at the next change.
  assert.notEqual(await tab.text('#build-road .why'), '', 'a disabled build says why');
  await tab.evaluate(() => window.__catan.conn.act({ type: 'end_turn' }));
  await tab.waitFor('#flash');
  const words = await tab.evaluate(async () => {
    const { t } = await import(new URL('i18n.js', document.querySelector('script[type=module]').src).href);
    return [document.getElementById('flash').textContent, t(`err.${window.__catan.conn.state.refusal.code}`)];
  });
  assert.equal(words[0], words[1], 'the refusal is the translation of its code');
  await tab.click('#roll');
  await tab.waitForFunction(() => !document.getElementById('flash'));
  await tab.waitForFunction(() => !document.getElementById('roll') || document.getElementById('roll').disabled);
  // One screen, no scrolling: the hand docked and the actions in thumb reach.
  const after = await measure(tab);
  assert.ok(after.scrollHeight <= after.innerHeight + 1, `the phone's game screen does not scroll (${after.scrollHeight} for ${after.innerHeight})`);
  assert.ok(after.hand && after.hand.top >= after.board.bottom - 1 && after.hand.bottom <= after.actions.top + 1, 'the hand is docked between the board and the actions');
  assert.ok(after.actions.top >= after.innerHeight * 0.6, 'the actions sit in the lower part of the screen (thumb reach)');
  assert.ok(after.topbar.top === 0 && after.timer, 'the status (turn, timer) is on screen');
  assert.deepEqual(after.small, [], 'every tap target is at least 44 px after the roll');
  // A sheet opens over the board; when the board must be tapped it closes by itself.
  // (After a 7, the robber first: the board is needed, no sheet stays open.)
  for (let p = await look(tab); p && (p.spots || p.dialog); p = await look(tab)) await step(tab, memo, p);
  await tab.click('#open-trade');
  await tab.waitFor('#trade-sheet[data-open]');
  const sheet = await measure(tab);
  assert.deepEqual(sheet.small, [], 'every tap target of the trade sheet is at least 44 px');
  assert.ok(sheet.scrollWidth <= 390, 'the sheet does not overflow');
  await tab.screenshot(path.join(out, `phone-trade-${lang}.png`));
  if (await tab.enabled('#build-road')) {
    await tab.click('#build-road');
    await tab.waitForFunction(() => !document.querySelector('#trade-sheet[data-open]') && document.querySelectorAll('#board .hl').length > 0);
    // Every spot to tap is in view and takes the tap (nothing over it).
    const hits = await tab.evaluate(() => [...document.querySelectorAll('#board .hl')].map((e) => {
      const r = e.getBoundingClientRect();
      const x = r.left + r.width / 2; const y = r.top + r.height / 2;
      return y >= 0 && y <= innerHeight && x >= 0 && x <= innerWidth && document.elementFromPoint(x, y) === e;
    }));
    assert.ok(hits.length > 0 && hits.every(Boolean), `every road spot is in view and on top (${hits.filter(Boolean).length} of ${hits.length})`);
    await tab.click('#build-road');
  }
  if (await tab.count('#trade-sheet[data-open]')) await tab.click('#close-trade');
  // Zoom in and out with the buttons: the board shows less, then all of it again.
  const box0 = await tab.attr('#board', 'viewBox');
  await tab.click('#zoom-in');
  await tab.waitForFunction((b) => document.getElementById('board').getAttribute('viewBox') !== b, box0);
  const zoomed = (await tab.attr('#board', 'viewBox')).split(' ').map(Number);
  assert.ok(zoomed[2] < Number(box0.split(' ')[2]), 'zoomed in, the board shows less');
  await tab.click('#zoom-fit');
  await tab.waitForFunction((b) => document.getElementById('board').getAttribute('viewBox') === b, box0);
  await tab.screenshot(path.join(out, `phone-hand-${lang}.png`));
  // Help: a first-game guide, the building costs and what each development card does.
  await tab.click('#open-help');
  await tab.waitFor('#help-sheet[data-open]');
  assert.deepEqual(await tab.evaluate(() => [document.querySelectorAll('#first-game li').length, document.querySelectorAll('#costs-card li').length,
    document.querySelectorAll('#dev-help [data-dev-help]').length]), [5, 4, 5], 'the guide, the four costs, the five development cards');
  assert.deepEqual((await measure(tab)).small, [], 'every tap target of the help sheet is at least 44 px');
  await tab.screenshot(path.join(out, `phone-help-${lang}.png`));
  await tab.click('#close-help');

  await tab.page.setViewport({ width: 1366, height: 768 });
  await tab.evaluate(() => window.scrollTo(0, 0));
  await sleep(200);
  const desk = await measure(tab);
  assert.ok(desk.scrollWidth <= 1366, 'no horizontal overflow on the laptop');
  for (const k of ['board', 'hand', 'actions', 'log']) {
    assert.ok(desk[k] && desk[k].top >= 0 && desk[k].bottom <= 768 + 1, `${k} visible without scrolling (${JSON.stringify(desk[k])})`);
  }
  assert.deepEqual(desk.small, [], 'every tap target is at least 44 px on the laptop');
  await tab.screenshot(path.join(out, `desktop-${lang}.png`));
  if (docs) {
    mkdirSync(docs, { recursive: true });
    copyFileSync(path.join(out, `phone-${lang}.png`), path.join(docs, 'phone.png'));
    copyFileSync(path.join(out, `desktop-${lang}.png`), path.join(docs, 'desktop.png'));
  }
  assert.deepEqual(tab.errors.filter((e) => !/status of 4/.test(e)), [], 'no errors in the page');
  await tab.close();
}

/**
 * Clear at a glance, flow, reload: the sound off until turned on (remembered); one
 * click from the lobby to a started game
 * against bots of the level chosen (which stays chosen); a setup placement by
 * keyboard only (Tab to a spot, Enter; the focus moves on to the road's spots);
 * after a roll the tiles that produced glow and each seat's gains show; every
 * disabled action says why; after a reload the log is back from the first
 * placement (the server's `history`), line for line, with a chat line sent from the
 * page in its place; the turn timer on the active
 * player's row warns in its last 10 s.
 */
export async function glanceAndFlow(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const tab = await browser.newTab({ width: 1280, height: 900, isolated: true });
  await tab.goto(`${base}/?lang=en`);
  await tab.select('#quick-bot-kind', 'easy');
  await tab.reload();
  await tab.waitFor('#play-bots');
  assert.equal(await tab.value('#quick-bot-kind'), 'easy', 'the chosen bot level stays chosen');
  // The sound is off until turned on, and remembered.
  assert.equal(await tab.attr('#sound', 'aria-pressed'), 'false', 'no sound by default');
  await tab.click('#sound');
  assert.equal(await tab.attr('#sound', 'aria-pressed'), 'true');
  await tab.reload();
  await tab.waitFor('#sound');
  assert.equal(await tab.attr('#sound', 'aria-pressed'), 'true', 'the sound choice is remembered');
  await tab.click('#sound');
  assert.equal(await tab.attr('#sound', 'aria-pressed'), 'false');
  await openOptions(tab);
  await tab.select('#opt-players', '3');
  await tab.fill('#opt-turn', 20);
  await tab.fill('#opt-vp', 5);
  await tab.select('#opt-map', 'beginner');
  await tab.fill('#quick-name', 'kim');
  await tab.click('#play-bots');
  await tab.waitForURL(/\?room=/);
  await tab.waitFor('#board');
  const seats = await tab.evaluate(() => window.__catan.conn.state.room.seats.map((s) => s.occupant?.bot ?? s.occupant?.name));
  assert.deepEqual(seats, ['kim', 'easy', 'easy'], 'kim and two bots of the level chosen');
  assert.equal(await tab.attr('#players .player[data-seat="0"] [data-you]', 'data-you'), '', 'seated in the first seat');

  // Keyboard only: Tab to a settlement spot, Enter; then to a road spot, Enter.
  await tab.waitForFunction(() => document.querySelectorAll('#board .hl[data-vertex]').length > 0, null, 60000);
  const buildings = await tab.count('#board [data-building]');
  const focused = () => tab.evaluate(() => {
    const e = document.activeElement;
    return e && e.matches('#board .hl') ? { vertex: e.getAttribute('data-vertex'), edge: e.getAttribute('data-edge'), label: e.getAttribute('aria-label') } : null;
  });
  let spot = null;
  for (let i = 0; i < 40 && !spot; i++) { await tab.page.keyboard.press('Tab'); spot = await focused(); }
  assert.ok(spot?.vertex, `Tab reaches a settlement spot (${JSON.stringify(spot)})`);
  assert.match(spot.label, /^Settlement by the /, 'the spot says where it is');
  await tab.page.keyboard.press('Enter');
  await tab.waitForFunction((n) => document.querySelectorAll('#board [data-building]').length > n, buildings);
  await tab.waitForFunction(() => document.activeElement?.matches('#board .hl[data-edge]'));
  const road = await focused();
  assert.match(road.label, /^Road by the /, 'the focus moved on to a road spot');
  const roads = await tab.count('#board [data-road]');
  await tab.page.keyboard.press('Enter');
  await tab.waitForFunction((n) => document.querySelectorAll('#board [data-road]').length > n, roads);
  assert.equal(await tab.count('#board [data-last]'), 1, 'the last piece placed is marked');

  // Play on (the simple policy) until a roll has produced, seen at a glance, and
  // some turns have passed; every disabled action says why.
  const memo = newMemo();
  const watch = progressWatch(tab, out);
  const reasons = new Set();
  let glow = null;
  for (let i = 0; i < 5000 && !(glow && memo.turns >= 2); i++) {
    const p = await look(tab);
    if (!glow) {
      glow = await tab.evaluate(() => (document.querySelector('#board .glow') && document.querySelector('#players .gain')
        ? { tiles: document.querySelectorAll('#board .glow').length, gains: [...document.querySelectorAll('#players .gain')].map((e) => e.textContent) } : null));
      if (glow) await tab.screenshotOf('#board', path.join(out, 'production-glow.png'));
    }
    if (p && p.turn >= 0 && !p.dialog) {
      // (While an action is in flight every button waits, with the prompt saying so.)
      const why = await tab.evaluate(() => (window.__catan.conn.state.pending || document.getElementById('prompt')?.textContent.startsWith('Waiting for the server') ? []
        : [...document.querySelectorAll('#actions button:disabled')].map((b) => [b.id, b.querySelector('.why')?.textContent || '', b.title])));
      for (const [id, text, title] of why) {
        assert.ok(text && text === title, `disabled #${id} says why, in its title too (${text}|${title})`);
        reasons.add(text);
      }
    }
    const did = await step(tab, memo, p);
    assert.notEqual(did, 'over', 'the game lasts long enough');
    await watch(p, did);
  }
  assert.ok(glow && glow.tiles > 0, 'the tiles that produced glowed');
  assert.ok(glow.gains.every((g) => /^(\+\d+ \w+ ?)+$/.test(g)), `gains shown as "+n resource": ${glow.gains}`);
  assert.ok([...reasons].some((r) => /^needs \d/.test(r)), `a build says what it needs (${[...reasons]})`);

  // Reload at the start of an own turn: the log comes back from the first placement.
  for (let p = await look(tab); !(p && p.on.roll && !p.dialog && !p.spots); p = await look(tab)) await watch(p, await step(tab, memo, p));
  const lines = () => tab.evaluate(() => [...document.querySelectorAll('#log > div')].map((e) => e.textContent));
  // A chat line sent from the page (typed, Enter) shows in the log, and is back after
  // the reload with the game's lines (the history's chat), in its place.
  const said = 'kim: anyone for ore?';
  await tab.fill('#chat-input', 'anyone for ore?');
  await tab.page.keyboard.press('Enter');
  await tab.waitForFunction((x) => [...document.querySelectorAll('#log > div.chat')].some((e) => e.textContent === x), said, 10000);
  const before = await lines();
  // The log follows the newest line (read after the frame that draws it).
  const atEnd = () => tab.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
    const l = document.getElementById('log');
    done(l.scrollTop + l.clientHeight >= l.scrollHeight - 2);
  }))));
  assert.ok(await atEnd(), 'the log shows its newest line');
  assert.ok(before.slice(0, 2).some((l) => / built a settlement /.test(l)), `the log starts at the first placement: ${before.slice(0, 2)}`);
  await tab.reload();
  await tab.waitFor('#board');
  await tab.waitForFunction((n) => document.querySelectorAll('#log > div').length >= n, before.length);
  assert.deepEqual((await lines()).slice(0, before.length), before, 'after a reload the log is back, line for line');
  assert.equal(await tab.evaluate((x) => [...document.querySelectorAll('#log > div.chat')].filter((e) => e.textContent === x).length, said), 1, 'the chat line is back, once');
  assert.ok(await atEnd(), 'scrolled to its newest line');
  assert.equal(await tab.count('#board [data-last]'), 1, 'and the last piece is still marked');
  await tab.screenshot(path.join(out, 'after-reload.png'));

  // The turn timer (20 s) on the active player's row warns in its last 10 s.
  assert.equal(await tab.count('#players .player.current .countdown'), 1, 'the timer shows on the active seat');
  await tab.waitForFunction(() => document.querySelector('#players .player.current .countdown.warn'), null, 20000);
  assert.match(await tab.text('#players .player.current .countdown.warn'), /^0:(0\d|10)$/);
  await tab.screenshotOf('#players-panel', path.join(out, 'timer-warning.png'));
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
