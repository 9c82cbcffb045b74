// The browser scenarios, written once against the `Tab` driver of driver.js and run
// in every browser by browser.test.js. Everything a person does goes through the
// page: clicking highlighted spots and enabled buttons, filling the forms and
// answering dialogs. The page's state (`window.__catan`) is only read, to compare
// the view kept from events with a fresh snapshot and to explain a stuck game.

import assert from 'node:assert/strict';
import path from 'node:path';

export const RES = ['lumber', 'brick', 'wool', 'grain', 'ore'];
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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
export async function reloadAndCompare(tab) {
  const kept = await keptView(tab);
  const before = await shown(tab);
  await tab.reload();
  await tab.waitFor('#board');
  const fresh = await keptView(tab);
  assert.deepEqual(JSON.parse(kept), JSON.parse(fresh), 'the view kept from events equals the snapshot');
  assert.deepEqual(await shown(tab), before, 'the page showed what the server\'s view says');
}

/**
 * Starts recording, in `tab`, every toast shown (its kind) and every event the page
 * receives with the awards' holders before it; `takeToasts` collects them. A reload
 * ends a recording (the page is new).
 */
export async function recordToasts(tab) {
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
export async function takeToasts(tab, you) {
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

/** The hand shown in the page's "Your hand" panel. */
export async function hand(tab) {
  return tab.evaluate(() => Object.fromEntries([...document.querySelectorAll('#hand .card[data-resource]')]
    .map((e) => [e.dataset.resource, Number(e.dataset.count)])));
}

// `offers`: offer a player trade to everyone once in each of one's turns.
export function newMemo({ offers = false } = {}) {
  return { turn: -1, maritime: 0, roads: 0, spots: 0, turns: 0, offers: 0, offered: true, offerEachTurn: offers };
}

const BUTTONS = ['roll', 'play-knight', 'play-road-building', 'play-yop', 'play-monopoly', 'build-city',
  'build-settlement', 'maritime', 'buy-dev', 'build-road', 'end-turn'];

// What a person sees in `tab` at a glance, read in one round trip (null while the
// page navigates): open dialogs, highlighted spots, enabled buttons, turn and prompt.
export async function look(tab) {
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
export async function step(tab, memo, p) {
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

/**
 * Fails with a screenshot and the page's state when `tab` made no progress for a
 * minute; `serverSide`, when given, is asked what the server holds (the admin
 * API's view of the room), so that a broadcast the page never got and an action
 * the server never saw can be told apart.
 */
export function progressWatch(tab, out, serverSide = null) {
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
