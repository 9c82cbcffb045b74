// The client kit: everything a JavaScript client of catan-server needs on the wire, as
// protocol.md describes it, and nothing about pages. No framework, no build step; runs
// in browsers and in Node: Node 22+ has a global WebSocket (Node 20: run with
// --experimental-websocket, or pass a WebSocket class such as the `ws` package's as
// `new Connection({ WebSocket })`). In Node, give `api` absolute URLs. Published as
// the npm package `catan-server-kit` (web/kit/: `npm pack` there), with declarations.
//
// - `api`: the HTTP calls (section 4), errors with their stable code;
// - `foldEvent`: one event into a `GameView` (sections 12, 13), copying what it states;
// - `Connection`: one room's WebSocket: the protocol version (2.4), request ids and
//   acknowledgements (6), sequence tracking, reconnecting with `last_seq` and the
//   `resumed` rule (8), `expect_seq` on actions (7), a paced send queue (20), and the
//   view kept current from events; the numbers events do not state (DERIVED) are
//   refreshed with `sync` (5.1.4) whenever an event may have changed them.

/** @typedef {import('./protocol.js').ServerMessage} ServerMessage */
/** @typedef {import('./protocol.js').ClientMessage} ClientMessage */
/** @typedef {import('./protocol.js').Event} GameEvent */
/** @typedef {import('./protocol.js').Action} Action */
/** @typedef {import('./protocol.js').ActionInput} ActionInput */
/** @typedef {import('./protocol.js').GameView} GameView */
/** @typedef {import('./protocol.js').GameOverInfo} GameOverInfo */
/** @typedef {import('./protocol.js').OfferDeadline} OfferDeadline */
/** @typedef {import('./protocol.js').SeatClock} SeatClock */
/** @typedef {import('./protocol.js').RoomInfo} RoomInfo */
/** @typedef {import('./protocol.js').Seat} Seat */
/** @typedef {import('./protocol.js').ErrorBody} ErrorBody */
/** An HTTP error with the body's code. */
/** @typedef {Error & { code?: string, status?: number }} ApiError */

/** The protocol version this kit speaks (protocol.md 2.4), stated on every connection. */
export const PROTOCOL_VERSION = 1;
export const RESOURCES = /** @type {const} */ (['lumber', 'brick', 'wool', 'grain', 'ore']);

/**
 * What the events do not state (protocol.md 12): the kit never computes these; a `sync`
 * after any event that `changesDerived` brings them from the server's snapshot.
 * Paths into the view: players[].road_length, players[].public_vp, me.total_vp,
 * me.maritime_ratios, and `current` during setup (the placement order).
 */
export const DERIVED = ['road_length', 'public_vp', 'total_vp', 'maritime_ratios', 'setup_current'];
const REFRESH_EVENTS = new Set(['settlement_built', 'city_built', 'road_built', 'longest_road', 'largest_army']);

/**
 * Whether `ev` may change a DERIVED number of `v`'s viewer: a piece or an award
 * (routes, points, harbors), a setup placement (who places next), a Victory Point
 * card bought by the viewer (its total).
 * @param {GameView} v
 * @param {GameEvent} ev
 */
export function changesDerived(v, ev) {
  if (REFRESH_EVENTS.has(ev.type)) return true;
  if (ev.type === 'phase_changed') return ev.phase.name === 'setup';
  return ev.type === 'dev_card_bought' && ev.card === 'victory_point';
}

/**
 * The documented limit is 100 messages a second on average, bursts of 200 (protocol.md
 * 20); the kit sends at most half of that, so a page can never be cut off for flooding.
 */
export const PACE = { perSecond: 50, burst: 20 };

/**
 * How long the kit waits, after a `stale_action` refusal naming a `seq` it has not
 * reached, for the messages up to it before it resumes as after a gap (they were
 * sent before the refusal, so they were lost on the way).
 */
export const CATCH_UP_MS = 3000;

/** Close codes after which the kit does not reconnect by itself (protocol.md 9). */
export const FINAL_CLOSE_CODES = new Set([4000, 4010, 4011, 4012]);

// ---------------------------------------------------------------- HTTP

/**
 * One HTTP call; resolves with the parsed JSON answer, rejects with an `ApiError`
 * carrying the body's `error.code` (protocol.md 4.1).
 * @param {string} method
 * @param {string} path
 * @param {object} [body]
 * @param {string} [token]
 * @returns {Promise<any>}
 */
export async function api(method, path, body, token) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!res.ok) {
    const error = /** @type {ErrorBody | null} */ (data)?.error;
    const err = /** @type {ApiError} */ (new Error(error?.message || `${res.status} ${res.statusText}`));
    err.code = error?.code;
    err.status = res.status;
    throw err;
  }
  return data;
}

// ---------------------------------------------------------------- folding events

// Resources and DevCards are records of counts.
function addCards(/** @type {any} */ target, /** @type {any} */ cards, sign) {
  for (const k of RESOURCES) {
    const n = (target[k] || 0) + sign * (cards?.[k] || 0);
    if (n) target[k] = n; else delete target[k];
  }
}
/** @param {Record<string, number> | undefined} cards */
export const countCards = (cards) => RESOURCES.reduce((s, k) => s + (cards?.[k] || 0), 0);

/** Moves `cards` from `from` (a seat or 'bank') to `to` (a seat or 'bank'). @param {GameView} v */
function move(v, from, to, cards) {
  for (const [who, sign] of [[from, -1], [to, 1]]) {
    if (who === 'bank') addCards(v.bank, cards, sign);
    else if (who !== null) {
      const p = v.players[who];
      if (p) p.resource_cards += sign * countCards(cards);
      if (v.me && v.me.seat === who) addCards(v.me.hand, cards, sign);
    }
  }
}

/** @param {Record<string, number>} counts @param {string} key @param {number} by */
function bump(/** @type {any} */ counts, key, by) {
  const n = (counts[key] || 0) + by;
  if (n > 0) counts[key] = n; else delete counts[key];
}

/**
 * Applies one event, as this view's viewer received it, to `v` (protocol.md 12, 13):
 * copies what the event states. The DERIVED numbers are left as they are; answers
 * whether they may have changed (then the caller refreshes them from a snapshot).
 * Unknown event types are skipped (protocol.md 2.4).
 * @param {GameView} v
 * @param {GameEvent} ev
 * @returns {boolean}
 */
export function foldEvent(v, ev) {
  switch (ev.type) {
    case 'turn_started':
      if (v.me && v.me.seat === v.current) v.me.dev_cards_new = {};
      v.current = ev.seat; v.turn = ev.turn; v.dev_card_played = false;
      break;
    case 'phase_changed': v.phase = ev.phase; break;
    case 'settlement_built':
      v.buildings.push({ vertex: ev.vertex, seat: ev.seat, city: false });
      v.buildings.sort((a, b) => a.vertex - b.vertex);
      v.players[ev.seat].settlements_left -= 1;
      break;
    case 'city_built': {
      const b = v.buildings.find((x) => x.vertex === ev.vertex);
      if (b) b.city = true;
      v.players[ev.seat].cities_left -= 1; v.players[ev.seat].settlements_left += 1;
      break;
    }
    case 'road_built':
      v.roads.push({ edge: ev.edge, seat: ev.seat });
      v.roads.sort((a, b) => a.edge - b.edge);
      v.players[ev.seat].roads_left -= 1;
      break;
    case 'paid': case 'discarded': move(v, ev.seat, 'bank', ev.cards); break;
    case 'starting_resources': case 'produced': case 'year_of_plenty': move(v, 'bank', ev.seat, ev.cards); break;
    case 'maritime_traded': move(v, ev.seat, 'bank', ev.gave); move(v, 'bank', ev.seat, ev.got); break;
    case 'dice_rolled': v.last_roll = ev.dice; break;
    case 'robber_moved': v.robber = ev.tile; break;
    case 'stolen': {
      v.players[ev.thief].resource_cards += 1; v.players[ev.victim].resource_cards -= 1;
      if (ev.resource && v.me && (v.me.seat === ev.thief || v.me.seat === ev.victim)) {
        addCards(v.me.hand, { [ev.resource]: 1 }, v.me.seat === ev.thief ? 1 : -1);
      }
      break;
    }
    case 'dev_card_bought':
      v.dev_deck -= 1; v.players[ev.seat].dev_cards += 1;
      if (v.me && v.me.seat === ev.seat && ev.card) {
        bump(v.me.dev_cards, ev.card, 1); bump(v.me.dev_cards_new, ev.card, 1);
      }
      break;
    case 'dev_card_played':
      v.players[ev.seat].dev_cards -= 1; v.dev_card_played = true;
      if (ev.card === 'knight') v.players[ev.seat].knights_played += 1;
      if (v.me && v.me.seat === ev.seat) bump(v.me.dev_cards, ev.card, -1);
      break;
    case 'monopoly': {
      let got = 0;
      ev.taken.forEach((n, s) => { if (n && s < v.players.length) { move(v, s, null, { [ev.resource]: n }); got += n; } });
      move(v, null, ev.seat, { [ev.resource]: got });
      break;
    }
    case 'offer_made': v.offers.push(ev.offer); break;
    case 'offer_accepted': case 'offer_rejected': {
      const o = v.offers.find((x) => x.id === ev.offer);
      const bit = 1 << ev.seat;
      if (o && ev.type === 'offer_accepted') { o.accepted |= bit; o.rejected &= ~bit; }
      if (o && ev.type === 'offer_rejected') { o.rejected |= bit; o.accepted &= ~bit; }
      break;
    }
    case 'offer_closed': v.offers = v.offers.filter((x) => x.id !== ev.offer); break;
    case 'trade_completed': move(v, ev.from, ev.to, ev.gave); move(v, ev.to, ev.from, ev.got); break;
    case 'longest_road': v.longest_road = ev.holder; break;
    case 'largest_army': v.largest_army = ev.holder; break;
    case 'game_won': v.winner = ev.seat; break;
    case 'turn_limit_reached': v.winner = null; break;
    default: break; // shortage, timed_out: nothing in the view; unknown types skipped
  }
  return changesDerived(v, ev);
}

// ---------------------------------------------------------------- the connection

/** Messages that take a number of the room's counter (protocol.md 6). */
const SEQUENCED = new Set(['events', 'chat', 'presence', 'stand_in', 'room', 'game_over', 'rematch']);

/**
 * The state of one connection to a room, as the page reads it.
 * @typedef {object} RoomState
 * @property {RoomInfo | null} room
 * @property {Seat | null} you
 * @property {GameView | null} view
 * @property {Action[]} legal
 * @property {number | null} deadline
 * @property {OfferDeadline[]} offerDeadlines
 * @property {SeatClock[] | null} clocks each seat's clock in a game over days (27.3), null in a live game
 * @property {GameOverInfo | null} gameOver
 * @property {string | null} rematch the room of the rematch, once made (4.17)
 * @property {number | null} lastSeq
 * @property {string | null} pending request id of the action in flight
 * @property {{ code: string, message: string } | null} refusal the last refusal, until the state changes
 */

/**
 * One room's WebSocket, kept connected; `onChange(kind, msg)` after every message
 * ('snapshot', 'events', 'rejected', 'history', ...), `onEvents(events, view, seq)`
 * before the events of one message are folded (for logs and toasts), `onStatus(s)`
 * with 'open', 'retrying' (with the delay) or a final close code. With `history`,
 * every fresh start (a snapshot that is not the answer to `sync`) asks for the
 * seat's visible history (protocol.md 5.1.5), delivered as `onChange('history', msg)`.
 */
export class Connection {
  /**
   * @param {object} o
   * @param {string} o.base `ws://host` or `wss://host`
   * @param {string} o.roomId
   * @param {string | null} [o.token]
   * @param {(kind: string, msg: any) => void} [o.onChange]
   * @param {(events: GameEvent[], view: GameView, seq: number) => void} [o.onEvents]
   * @param {(status: string | number, detail?: any) => void} [o.onStatus]
   * @param {boolean} [o.history] ask for the history after every fresh snapshot
   * @param {any} [o.WebSocket] the WebSocket class: the platform's by default; Node 20
   *   needs one passed in (the `ws` package's), tests pass a fake
   */
  constructor({ base, roomId, token = null, onChange = () => {}, onEvents = () => {}, onStatus = () => {}, history = false, WebSocket: Ws = globalThis.WebSocket }) {
    this.base = base;
    this.roomId = roomId;
    this.token = token;
    this.onChange = onChange;
    this.onEvents = onEvents;
    this.onStatus = onStatus;
    this.wantHistory = history;
    if (typeof Ws !== 'function') {
      throw new TypeError('no WebSocket class: pass one as `WebSocket` (Node 20: --experimental-websocket, or the ws package)');
    }
    this.Ws = Ws;
    /** @type {RoomState} */
    this.state = {
      room: null, you: null, view: null, legal: [], deadline: null, offerDeadlines: [], clocks: null,
      gameOver: null, rematch: null, lastSeq: null, pending: null, refusal: null,
    };
    this.ws = null;
    this.retries = 0;
    this.retryTimer = null;
    this.reqN = 0;
    /** The `seq` of the newest message whose events may have changed a DERIVED number. */
    this.refreshSeq = null;
    this.syncOut = false;
    /** @type {string[]} */
    this.queue = [];
    this.tokens = PACE.burst;
    this.paceAt = Date.now();
    this.paceTimer = null;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.catchUpTimer = null;
  }

  /** The upgrade URL: token, `last_seq` when resuming, and the protocol version. */
  url(resume) {
    const q = new URLSearchParams();
    if (this.token) q.set('token', this.token);
    if (resume && this.state.lastSeq !== null) q.set('last_seq', String(this.state.lastSeq));
    q.set('protocol', String(PROTOCOL_VERSION));
    return `${this.base}/api/rooms/${this.roomId}/ws?${q}`;
  }

  /** Opens (or reopens) the socket; `resume` asks for the missed broadcasts (section 8). */
  connect(resume = false) {
    clearTimeout(this.retryTimer);
    this.close();
    const ws = new this.Ws(this.url(resume));
    this.ws = ws;
    this.queue = [];
    this.syncOut = false;
    ws.onopen = () => { this.retries = 0; this.onStatus('open'); this.flush(); };
    ws.onmessage = (m) => {
      if (this.ws !== ws) return;
      let msg;
      try { msg = JSON.parse(m.data); } catch { return; }
      this.receive(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.state.pending = null;
      if (FINAL_CLOSE_CODES.has(ev.code)) { this.onStatus(ev.code); return; }
      const delay = Math.min(10000, 500 * 2 ** this.retries);
      this.retries += 1;
      this.onStatus('retrying', delay);
      this.retryTimer = setTimeout(() => this.connect(this.state.lastSeq !== null), delay);
    };
  }

  /** Closes the socket on purpose (no reconnect). */
  close() {
    const ws = this.ws;
    this.ws = null;
    clearTimeout(this.catchUpTimer ?? undefined);
    if (ws) ws.close();
  }

  /**
   * The room said it is at `seq` (a `stale_action` refusal): the messages up to it
   * were sent before the refusal. If they have not all come within CATCH_UP_MS,
   * resumes with `last_seq` as after a gap (section 8), so that a lost message
   * cannot leave the page choosing from an old `legal` list forever.
   * @param {number} seq
   */
  expectSeq(seq) {
    const last = this.state.lastSeq;
    if (last === null || last >= seq) return;
    clearTimeout(this.catchUpTimer ?? undefined);
    const ws = this.ws;
    this.catchUpTimer = setTimeout(() => {
      const now = this.state.lastSeq;
      if (this.ws === ws && ws && now !== null && now < seq) this.connect(true);
    }, CATCH_UP_MS);
  }

  /** Sends a client message through the paced queue. @param {ClientMessage} msg */
  send(msg) {
    this.queue.push(JSON.stringify(msg));
    this.flush();
  }

  flush() {
    clearTimeout(this.paceTimer);
    const now = Date.now();
    this.tokens = Math.min(PACE.burst, this.tokens + ((now - this.paceAt) * PACE.perSecond) / 1000);
    this.paceAt = now;
    const open = this.ws && this.ws.readyState === 1;
    while (open && this.queue.length && this.tokens >= 1) {
      this.tokens -= 1;
      this.ws.send(this.queue.shift());
    }
    if (open && this.queue.length) this.paceTimer = setTimeout(() => this.flush(), 1000 / PACE.perSecond);
  }

  /**
   * Sends an action for the newest `legal` list, one at a time (section 7): answers
   * its request id, or null while another is in flight.
   * @param {ActionInput} action
   */
  act(action) {
    if (this.state.pending || !this.ws) return null;
    this.reqN += 1;
    const id = `r${this.reqN}`;
    this.state.pending = id;
    this.send({ type: 'action', request_id: id, action, expect_seq: this.state.lastSeq ?? undefined });
    return id;
  }

  /** @param {string} text */
  chat(text) { this.send({ type: 'chat', text }); }

  /** Asks for a snapshot when a DERIVED number may be stale, one request at a time. */
  refresh() {
    const s = this.state;
    if (this.syncOut || this.refreshSeq === null || !s.view) return;
    this.syncOut = true;
    this.send({ type: 'sync' });
  }

  /**
   * Handles one server message (what the socket received, parsed).
   * @param {ServerMessage} msg
   */
  receive(msg) {
    const s = this.state;
    if ('seq' in msg && SEQUENCED.has(msg.type)) {
      if (s.lastSeq !== null && msg.seq <= s.lastSeq) return; // duplicate (section 6)
      if (s.lastSeq !== null && msg.seq > s.lastSeq + 1) { this.connect(true); return; } // gap
      s.lastSeq = msg.seq;
    }
    switch (msg.type) {
      case 'snapshot': this.snapshot(msg); break;
      case 'events':
        if (s.view) {
          this.onEvents(msg.events, s.view, msg.seq);
          let stale = false;
          for (const ev of msg.events) stale = foldEvent(s.view, ev) || stale;
          if (stale) this.refreshSeq = msg.seq;
        }
        s.legal = msg.legal || [];
        s.deadline = msg.deadline ?? null;
        s.offerDeadlines = msg.offer_deadlines || [];
        s.clocks = msg.clocks ?? null;
        if (msg.request_id && msg.request_id === s.pending) s.pending = null;
        s.refusal = null;
        break;
      case 'rejected':
        if (msg.request_id === s.pending) s.pending = null;
        // Overtaken by another seat's action: the newer state is on its way; no fault.
        if (msg.code !== 'stale_action') s.refusal = { code: msg.code, message: msg.message };
        else if (typeof msg.seq === 'number') this.expectSeq(msg.seq);
        break;
      case 'error': s.refusal = { code: msg.code, message: msg.message }; break;
      case 'presence':
        if (s.room?.seats?.[msg.seat]) s.room.seats[msg.seat].connected = msg.connected;
        break;
      case 'stand_in': // a bot plays the seat while its person is away (5.2.12)
        if (s.room?.seats?.[msg.seat]) s.room.seats[msg.seat].stand_in = msg.active;
        break;
      case 'room': s.room = msg.room; break;
      case 'resumed':
        s.legal = msg.legal || []; s.deadline = msg.deadline ?? null;
        s.offerDeadlines = msg.offer_deadlines || []; s.clocks = msg.clocks ?? null; s.lastSeq = msg.seq; s.pending = null;
        break;
      case 'game_over': s.gameOver = msg; break;
      case 'rematch': s.rematch = msg.room_id; break;
      default: break; // chat, history, pong, closing: for the page; unknown types skipped
    }
    this.refresh();
    this.onChange(msg.type, msg);
  }

  /** A snapshot replaces everything (5.2.1). @param {Extract<ServerMessage, { type: 'snapshot' }>} msg */
  snapshot(msg) {
    const s = this.state;
    if (msg.protocol_version !== PROTOCOL_VERSION) {
      this.close();
      this.onStatus('unsupported_version', msg.protocol_version);
      return;
    }
    // The answer to our `sync` leaves the action in flight in flight: its
    // acknowledgement follows on this connection. A fresh connection's does not.
    const answer = this.syncOut;
    this.syncOut = false;
    if (this.refreshSeq !== null && msg.seq >= this.refreshSeq) this.refreshSeq = null;
    Object.assign(s, {
      room: msg.room, you: msg.you, view: msg.view, legal: msg.legal || [], deadline: msg.deadline ?? null,
      offerDeadlines: msg.offer_deadlines || [], clocks: msg.clocks ?? null, gameOver: msg.game_over ?? null, lastSeq: msg.seq,
      rematch: msg.rematch ?? null,
    });
    if (!answer) s.pending = null;
    if (!answer && this.wantHistory) this.send({ type: 'history' });
  }
}
