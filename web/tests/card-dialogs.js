// The dialogs a played game brings up only by chance, each brought up for certain
// through the real server and answered on a phone-sized page by keyboard: the
// discard after a 7, Year of Plenty and Monopoly.
//
// Four people's seats, all played from here over the kit (web/kit.js, Node's
// WebSocket; no bots): nobody builds after the setup, every seat buys a
// development card whenever it can (trading 4:1 with the bank for what it lacks)
// and plays none, and nobody reaches the points target (20). So every card of the
// deck is bought by one of these seats and kept: the two Year of Plenty and the
// two Monopoly cards come up within the 25 purchases, and hands held past 7 cards
// meet a 7 soon. When a seat owes a discard, or it is a seat's turn and it may play
// Year of Plenty or Monopoly, that seat is handed to a page (`/?room=ID#token=`, a
// new tab at 390x844): the page answers the dialog, the server's view of the seat
// (the admin API) shows the cards it meant, and the seat comes back here.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { Connection } from '../kit.js';

const RES = ['lumber', 'brick', 'wool', 'grain', 'ore'];
const DEV = ['wool', 'grain', 'ore'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const count = (cards) => RES.reduce((s, r) => s + (cards?.[r] || 0), 0);
const norm = (cards) => Object.fromEntries(RES.filter((r) => cards?.[r]).map((r) => [r, cards[r]]));

/** The seats played from here: four kit connections with a fixed, dull strategy. */
class Table {
  constructor(base, roomId, tokens) {
    this.base = base.replace(/^http/, 'ws');
    this.roomId = roomId;
    this.tokens = tokens;
    this.conns = [];
    /** Seats handed to a page (not played from here). */
    this.paused = new Set();
    /** Which dialogs are still wanted: discard, yop, monopoly. */
    this.wanted = new Set(['discard', 'yop', 'monopoly']);
    /** @type {{ seat: number, kind: string } | null} */
    this.found = null;
    this.wake = () => {};
    this.turns = 0;
    this.bought = 0;
    this.sevens = 0;
    this.seed = 11;
    this.failure = null;
    this.seen = new Set();
    for (let s = 0; s < tokens.length; s++) this.connect(s);
  }

  rand(n) { this.seed = (this.seed * 1103515245 + 12345) % 2147483648; return this.seed % n; }

  connect(seat) {
    const conn = new Connection({
      base: this.base, roomId: this.roomId, token: this.tokens[seat], WebSocket,
      onChange: (kind, msg) => {
        if (kind === 'events' && !this.seen.has(msg.seq)) {
          this.seen.add(msg.seq);
          for (const ev of msg.events) {
            if (ev.type === 'dice_rolled' && ev.dice[0] + ev.dice[1] === 7) this.sevens += 1;
            if (ev.type === 'turn_started') this.turns = ev.turn;
          }
        }
        this.decide(seat);
      },
      onStatus: (status) => { if (typeof status === 'number' && status !== 4000 && !this.paused.has(seat)) this.failure = `seat ${seat} closed with ${status}`; },
    });
    this.conns[seat] = conn;
    conn.connect();
  }

  /** Hands `seat` to a page: no more actions from here, the socket closed. */
  pause(seat) {
    this.paused.add(seat);
    this.hangUp(seat);
  }

  hangUp(seat) {
    const ws = this.conns[seat].ws;
    // (Node's ws reports closing a socket still connecting as an error.)
    if (ws) ws.onerror = () => {};
    this.conns[seat].close();
  }

  /** Plays `seat` from here again (a new connection replaces the page's). */
  resume(seat) {
    this.paused.delete(seat);
    this.connect(seat);
  }

  close() { for (let s = 0; s < this.conns.length; s++) this.hangUp(s); }

  decide(seat) {
    if (this.paused.has(seat) || this.found) return;
    const conn = this.conns[seat];
    const s = conn.state;
    if (!s.view || s.pending || !s.legal.length || s.view.phase.name === 'over') return;
    const has = (type) => s.legal.filter((a) => a.type === type);
    // A dialog still wanted: the seat goes to a page.
    const kind = (this.wanted.has('discard') && has('discard').length && 'discard')
      || (this.wanted.has('yop') && has('play_year_of_plenty').length && 'yop')
      || (this.wanted.has('monopoly') && has('play_monopoly').length && 'monopoly');
    if (kind) {
      this.found = { seat, kind };
      this.pause(seat);
      this.wake();
      return;
    }
    const pick = (list) => list[this.rand(list.length)];
    const phase = s.view.phase.name;
    let a = null;
    if (has('discard').length) a = has('discard')[0];
    else if (phase === 'setup') a = pick(has('build_settlement').length ? has('build_settlement') : has('build_road'));
    else if (has('roll_dice').length) a = has('roll_dice')[0];
    else if (has('move_robber').length) a = pick(has('move_robber'));
    else if (has('buy_dev_card').length) { a = has('buy_dev_card')[0]; this.bought += 1; } else {
      // A card the purchase lacks, for cards it does not need (4:1, or a harbour's).
      const hand = s.view.me.hand;
      const lacks = DEV.filter((r) => !hand[r]);
      const ratios = s.view.me.maritime_ratios;
      a = has('maritime_trade').find((t) => lacks.includes(t.get)
        && (!DEV.includes(t.give) || hand[t.give] - ratios[RES.indexOf(t.give)] >= 1)) || null;
      if (!a && has('end_turn').length) a = has('end_turn')[0];
    }
    if (a) conn.act(a);
  }

  /** The next seat to hand to a page, within `ms`; null if none came up. */
  async next(ms) {
    const end = Date.now() + ms;
    while (!this.found && !this.failure && Date.now() < end) {
      await new Promise((r) => { this.wake = r; setTimeout(r, 200); });
    }
    if (this.failure) throw new Error(this.failure);
    // Every card bought and kept: a Year of Plenty or a Monopoly still wanted would be a bug.
    const deck = this.conns.find((c) => c.state.view)?.state.view.dev_deck;
    if (!this.found && deck === 0 && (this.wanted.has('yop') || this.wanted.has('monopoly'))) {
      throw new Error(`the deck was bought up (${this.bought} cards) and no ${[...this.wanted].join(', ')} came up`);
    }
    return this.found;
  }

  /** Played on after a page's turn with a seat. */
  done(kind) {
    this.wanted.delete(kind);
    this.found = null;
    for (let s = 0; s < this.conns.length; s++) this.decide(s);
  }
}

/** The dialog's controls and the page's width, in one round trip. */
function measureDialog(tab) {
  return tab.evaluate(() => {
    const d = document.querySelector('#modal .dialog');
    if (!d) return null;
    const visible = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const controls = [...d.querySelectorAll('button, select, input, a, summary')].filter(visible);
    const r = d.getBoundingClientRect();
    return {
      controls: controls.length,
      small: controls.map((e) => ({ e, r: e.getBoundingClientRect() })).filter(({ r: b }) => b.width < 44 || b.height < 44)
        .map(({ e, r: b }) => `${e.tagName}#${e.id}[${e.dataset.step || ''}] ${Math.round(b.width)}x${Math.round(b.height)}`),
      // Controls outside the dialog's box (cut off, or reached only by scrolling sideways).
      outside: controls.map((e) => ({ e, b: e.getBoundingClientRect() })).filter(({ b }) => b.left < r.left - 0.5 || b.right > r.right + 0.5)
        .map(({ e }) => e.id || e.dataset.step),
      dialog: { left: r.left, right: r.right, top: r.top, bottom: r.bottom, scrollWidth: d.scrollWidth, clientWidth: d.clientWidth },
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth,
      focusInside: d.contains(document.activeElement),
      modal: d.getAttribute('aria-modal'),
    };
  });
}

/** Asserts the phone-size layout of the open dialog `sel`; a screenshot of the page. */
async function checkDialog(tab, sel, file, min) {
  await tab.waitFor(sel, 15000);
  await sleep(150);
  await tab.screenshot(file);
  const m = await measureDialog(tab);
  const where = `the ${sel} at 390x844`;
  assert.ok(m, `${where}: shown`);
  assert.ok(m.controls >= min, `${where}: at least ${min} controls (${m.controls})`);
  assert.deepEqual(m.small, [], `${where}: every control at least 44x44 px`);
  assert.ok(m.scrollWidth <= 390, `${where}: the page does not overflow sideways (${m.scrollWidth} px)`);
  assert.ok(m.dialog.left >= 0 && m.dialog.right <= m.innerWidth, `${where}: the dialog is within the width (${JSON.stringify(m.dialog)})`);
  assert.ok(m.dialog.scrollWidth <= m.dialog.clientWidth, `${where}: nothing in it overflows sideways (${m.dialog.scrollWidth} > ${m.dialog.clientWidth})`);
  assert.deepEqual(m.outside, [], `${where}: every control inside its box`);
  assert.ok(m.focusInside, `${where}: the focus is in the dialog`);
  return m;
}

/**
 * Tab moves within the open dialog: from its last control to its first and back
 * with Shift+Tab, never to the page behind it (the dialog is modal).
 */
async function focusStaysIn(tab, where) {
  const ids = await tab.evaluate(() => [...document.querySelectorAll('#modal .dialog button:not([disabled])')].map((e) => e.id || e.dataset.step));
  const focused = () => tab.evaluate(() => {
    const e = document.activeElement;
    return { inside: !!e && !!e.closest('#modal'), id: e?.id || e?.dataset?.step || e?.tagName };
  });
  for (let i = 0; i < ids.length + 1; i++) {
    await tab.key('Tab');
    const f = await focused();
    assert.ok(f.inside, `${where}: Tab keeps the focus in the dialog (it went to ${f.id})`);
  }
  await tab.page.keyboard.down('Shift');
  for (let i = 0; i < ids.length + 1; i++) {
    await tab.page.keyboard.press('Tab');
    tab.keys += 1;
    const f = await focused();
    if (!f.inside) { await tab.page.keyboard.up('Shift'); assert.fail(`${where}: Shift+Tab keeps the focus in the dialog (it went to ${f.id})`); }
  }
  await tab.page.keyboard.up('Shift');
}

async function adminGame(admin, roomId, seat) {
  const res = await fetch(`${admin.url}/admin/rooms/${roomId}?events=0&view=${seat}`, { headers: { Authorization: `Bearer ${admin.token}` } });
  assert.equal(res.status, 200, 'the admin API answers');
  return res.json();
}

/** The page's seat: its hand and whether anything is in flight or was refused. */
const pageSeat = (tab) => tab.evaluate(() => {
  const s = window.__catan.conn?.state;
  return { hand: s?.view?.me?.hand ?? null, pending: s?.pending ?? null, refusal: s?.refusal ?? null, phase: s?.view?.phase?.name, dev: s?.view?.me?.dev_cards ?? null };
});

/** Waits until the page's action was answered and the engine holds `hand` for the seat. */
async function accepted(tab, admin, roomId, seat, hand, what) {
  const end = Date.now() + 10000;
  let got = null;
  for (;;) {
    const p = await pageSeat(tab);
    assert.equal(p.refusal, null, `${what}: not refused (${JSON.stringify(p.refusal)})`);
    got = norm((await adminGame(admin, roomId, seat)).game.seats[seat].hand);
    if (!p.pending && JSON.stringify(got) === JSON.stringify(norm(hand)) && JSON.stringify(norm(p.hand)) === JSON.stringify(norm(hand))) return;
    if (Date.now() > end) assert.fail(`${what}: the engine's hand ${JSON.stringify(got)}, the page's ${JSON.stringify(p.hand)}, meant ${JSON.stringify(norm(hand))}`);
    await sleep(100);
  }
}

/** The discard dialog by keyboard: + on the cards chosen (Enter again and again), then Discard. */
async function discardByKeyboard(tab, admin, roomId, seat, out) {
  const before = (await adminGame(admin, roomId, seat)).game;
  const owed = before.phase.pending[seat];
  const hand = norm(before.seats[seat].hand);
  assert.ok(count(hand) > 7 && owed === Math.floor(count(hand) / 2), `seat ${seat} owes half of ${count(hand)} cards (${owed})`);
  await checkDialog(tab, '#discard-dialog', path.join(out, 'dialog-discard.png'), 11);
  await focusStaysIn(tab, 'the discard dialog');
  // The most plentiful kinds first; each + pressed with Enter as often as chosen.
  const chosen = {};
  let left = owed;
  for (const r of [...RES].sort((a, b) => (hand[b] || 0) - (hand[a] || 0))) {
    const n = Math.min(hand[r] || 0, left);
    if (!n) continue;
    const sel = `[data-step="discard-${r}-plus"]`;
    assert.ok(await tab.tabTo(sel, 5000), `Tab reaches + ${r} in the discard dialog`);
    await tab.key('Enter', n);
    chosen[r] = n;
    left -= n;
    const shown = await tab.evaluate(() => ({ ...window.__catan.discard }));
    assert.deepEqual(norm(shown), norm(chosen), `Enter pressed ${n} times on the focused + ${r} chooses ${n} (the focus stays on it)`);
    if (!left) break;
  }
  await tab.screenshot(path.join(out, 'dialog-discard-chosen.png'));
  const m = await measureDialog(tab);
  assert.deepEqual(m.small, [], 'the discard dialog with cards chosen: every control at least 44x44 px');
  assert.ok(await tab.press('#discard-confirm', 5000), 'Tab reaches Discard, enabled once the cards owed are chosen');
  await accepted(tab, admin, roomId, seat, Object.fromEntries(RES.map((r) => [r, (hand[r] || 0) - (chosen[r] || 0)])), 'the discard');
  await tab.waitForFunction(() => !document.querySelector('#discard-dialog'), null, 5000);
  return `discarded ${JSON.stringify(chosen)} of ${count(hand)}`;
}

/** Year of Plenty by keyboard: Tab to the action, Enter; Escape closes; again; Tab to a pair, Enter. */
async function yearOfPlentyByKeyboard(tab, admin, roomId, seat, out) {
  const before = (await adminGame(admin, roomId, seat)).game;
  const hand = norm(before.seats[seat].hand);
  assert.ok(await tab.press('#play-yop', 5000), 'Tab reaches "Play Year of Plenty"');
  await checkDialog(tab, '#yop-dialog', path.join(out, 'dialog-yop.png'), 6);
  await tab.key('Escape');
  await tab.waitForFunction(() => !document.querySelector('#yop-dialog'), null, 5000);
  assert.ok(await tab.press('#play-yop', 5000), 'and again after Escape closed it');
  await tab.waitFor('#yop-dialog', 5000);
  await focusStaysIn(tab, 'the Year of Plenty dialog');
  // Two different kinds the bank has, the last such choice offered.
  const options = await tab.evaluate(() => window.__catan.conn.state.legal.filter((a) => a.type === 'play_year_of_plenty').map((a) => a.take));
  let i = options.findLastIndex((take) => Object.keys(take).length === 2);
  if (i < 0) i = options.length - 1;
  const take = options[i];
  assert.ok(await tab.press(`#yop-${i}`, 5000), `Tab reaches the choice ${JSON.stringify(take)}`);
  await accepted(tab, admin, roomId, seat, Object.fromEntries(RES.map((r) => [r, (hand[r] || 0) + (take[r] || 0)])), 'Year of Plenty');
  const after = (await adminGame(admin, roomId, seat)).game.seats[seat];
  assert.equal(after.dev_cards.year_of_plenty || 0, (before.seats[seat].dev_cards.year_of_plenty || 0) - 1, 'the card was played');
  return `took ${JSON.stringify(take)} (choice ${i + 1} of ${options.length})`;
}

/** Monopoly by keyboard: Tab to the action, Enter, Tab to the kind the others hold most of, Enter. */
async function monopolyByKeyboard(tab, admin, roomId, seat, out) {
  const before = (await adminGame(admin, roomId, seat)).game;
  const hand = norm(before.seats[seat].hand);
  const others = (r) => before.seats.reduce((s, x, i) => s + (i === seat ? 0 : x.hand[r] || 0), 0);
  const r = [...RES].sort((a, b) => others(b) - others(a))[0];
  assert.ok(await tab.press('#play-monopoly', 5000), 'Tab reaches "Play Monopoly"');
  await checkDialog(tab, '#monopoly-dialog', path.join(out, 'dialog-monopoly.png'), 6);
  await focusStaysIn(tab, 'the Monopoly dialog');
  assert.ok(await tab.press(`#monopoly-${r}`, 5000), `Tab reaches ${r}`);
  await accepted(tab, admin, roomId, seat, { ...hand, [r]: (hand[r] || 0) + others(r) }, 'Monopoly');
  return `took ${others(r)} ${r}`;
}

/**
 * The discard, Year of Plenty and Monopoly dialogs, each on a 390x844 page in
 * `lang`, answered by keyboard only, checked for 44 px controls, no sideways
 * overflow and the focus kept in the dialog; what each sends is what the engine
 * then holds. Fails, saying what came up, if they do not all come up within
 * `bound` ms of play.
 */
export async function cardDialogs(browser, base, out, { admin, lang = 'en', bound = 90000 } = {}) {
  mkdirSync(out, { recursive: true });
  const post = (p, body, token) => fetch(`${base}${p}`, {
    method: 'POST', body: JSON.stringify(body), headers: token ? { Authorization: `Bearer ${token}` } : {},
  }).then(async (r) => { if (!r.ok) assert.fail(`${p}: ${r.status} ${await r.text()}`); return r.json(); });
  const { room_id: id, host_token: host } = await post('/api/rooms', {
    players: 4, vp_target: 20, map: 'beginner', listed: false, turn_timer_secs: 0, discard_timeout_secs: 0, stand_in_secs: 0,
  });
  const tokens = [];
  for (let s = 0; s < 4; s++) tokens.push((await post(`/api/rooms/${id}/seats`, { name: `p${s + 1}` })).token);
  const table = new Table(base, id, tokens);
  const t0 = Date.now();
  const said = [];
  try {
    await post(`/api/rooms/${id}/start`, {}, host);
    const end = t0 + bound;
    while (table.wanted.size) {
      const found = await table.next(end - Date.now());
      if (!found) {
        assert.fail(`within ${bound / 1000} s of play (${table.turns} turns, ${table.sevens} sevens, ${table.bought} development cards bought) `
          + `no ${[...table.wanted].join(', ')} came up`);
      }
      const { seat, kind } = found;
      const tab = await browser.newTab({ width: 390, height: 844, isolated: true });
      try {
        await tab.goto(`${base}/?room=${id}&lang=${lang}#token=${tokens[seat]}`);
        await tab.waitFor('#board');
        tab.keyboard = true;
        const play = { discard: discardByKeyboard, yop: yearOfPlentyByKeyboard, monopoly: monopolyByKeyboard }[kind];
        const what = await play(tab, admin, id, seat, out);
        said.push(`${kind} at turn ${table.turns} by seat ${seat}: ${what} (${tab.keys} keys)`);
        assert.deepEqual(tab.errors.filter((e) => !/status of 4/.test(e)), [], 'no errors in the page');
      } finally {
        await tab.close();
      }
      table.resume(seat);
      table.done(kind);
    }
  } finally {
    table.close();
    await fetch(`${admin.url}/admin/rooms/${id}/close`, { method: 'POST', headers: { Authorization: `Bearer ${admin.token}` } }).catch(() => {});
  }
  return { said, turns: table.turns, bought: table.bought, ms: Date.now() - t0 };
}
