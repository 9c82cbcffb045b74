// The page's state besides the wire state (which the kit's Connection keeps, as
// `S.conn.state`): one object, read everywhere as `S`, written only here, through the
// named updates below. `S` refuses writes (a TypeError), so an update that bypasses
// this module fails at once instead of going unseen. An update made by the person
// (a tap, a key) asks for a redraw at once; what the server sends is drawn once per
// animation frame by app.js, and each part of the page is drawn again only when what
// it shows changed (dom.js `Part`).

/** @typedef {import('./kit.js').Connection} Connection */
/** @typedef {import('./protocol').RoomInfo} RoomInfo */
/** @typedef {import('./protocol').PlayerInfo} PlayerInfo */
/** @typedef {Record<string, number>} Cards */

const stored = (k) => { try { return globalThis.localStorage?.getItem(k) || ''; } catch { return ''; } };

const state = {
  roomId: /** @type {string | null} */ (null),
  /** This page's seat in the room, as kept in localStorage (app.js). */
  session: /** @type {{ token?: string | null, seat?: number | null, name?: string, host_token?: string }} */ ({}),
  /** @type {Connection | null} */
  conn: null,
  /** @type {RoomInfo | null} the room before a connection */
  room: null,
  /** 'road' | 'settlement' | 'city' while choosing where to build. */
  mode: /** @type {string | null} */ (null),
  /** The offer being composed: cards to give and to get, to whom ('' everyone), and the offer it counters. */
  trade: { give: /** @type {Cards} */ ({}), get: /** @type {Cards} */ ({}), to: '', counterTo: /** @type {number | null} */ (null) },
  maritime: { give: /** @type {string | null} */ (null), get: /** @type {string | null} */ (null) },
  /** The cards chosen to discard. @type {Cards} */
  discard: {},
  /** The open dialog: 'victim' | 'yop' | 'monopoly'. */
  dialog: /** @type {string | null} */ (null),
  dialogData: /** @type {{ tile: number, options: any[] } | null} */ (null),
  /** The open sheet over the board on a phone: 'trade' | 'bank' | 'help' | 'log' | null. */
  sheet: /** @type {string | null} */ (null),
  /** A line about the last thing the person did (a refusal, "link copied"), and whether it is good news. */
  flash: '',
  flashOk: false,
  form: { name: stored('catan.name'), chat: '' },
  gameOverDismissed: false,
  /** The host took this page's seat back before the start (said until it takes one again). */
  removed: false,
  /** The last piece placed. */
  lastPiece: /** @type {{ kind: string, id: number } | null} */ (null),
  /** When the last roll seen live came, and its number of the game (each roll animates once). */
  rolledAt: 0,
  rolls: 0,
  /** @type {{ at: number, tiles: Set<number>, gains: Record<number, Record<string, number>> } | null} the last roll's production */
  glance: null,
  /** The board's zoom (1 = the whole board) and the point shown in its middle (board units). */
  zoom: { scale: 1, x: 0, y: 0 },
  /**
   * The player this browser is signed in as (GET /api/me; the session itself is the
   * HttpOnly cookie), null when it is none, undefined while unknown.
   * @type {PlayerInfo | null | undefined}
   */
  me: undefined,
  /**
   * After a rated game, the seat's rating before and after it (its stored game), or
   * 'waiting' while the game is being stored, or 'none' when it did not change.
   * @type {{ before: number, after: number, provisional: boolean } | 'waiting' | 'none' | null}
   */
  rating: null,
};

/** @type {(now: boolean) => void} */
let redraw = () => {};

/** The function that redraws the page (app.js): `now` for what the person did. */
export function onUpdate(fn) { redraw = fn; }

const done = (now = true) => redraw(now);

/** Read-only views of the state's plain objects: writing through them throws. */
const views = new WeakMap();
function readOnly(o) {
  if (o === null || typeof o !== 'object' || Object.getPrototypeOf(o) !== Object.prototype) return o;
  if (!views.has(o)) {
    views.set(o, new Proxy(o, {
      get: (target, k) => readOnly(target[k]),
      set: (_, k) => { throw new TypeError(`the page state is written through state.js (${String(k)})`); },
      deleteProperty: (_, k) => { throw new TypeError(`the page state is written through state.js (${String(k)})`); },
    }));
  }
  return views.get(o);
}

/** The page state, read-only. */
export const S = /** @type {typeof state} */ (readOnly(state));

// ---------------------------------------------------------------- named updates

/** The room this page shows and its seat (from localStorage). */
export function enterRoom(id, session) { state.roomId = id; state.session = session; }
/** The seat's token, number and name as just stored. */
export function setSession(session) { state.session = session; }
/** The room as fetched over HTTP (before a connection, or polled). */
export function setRoom(room) { state.room = room; }
/** The connection of this page (or none). @param {Connection | null} conn */
export function setConn(conn) { state.conn = conn; }
/** Who is signed in (null: nobody). @param {PlayerInfo | null} me */
export function setMe(me) { state.me = me; }
/** The seat's rating change after a rated game (or 'waiting', 'none'); redrawn when the page can. */
export function setRating(rating) { state.rating = rating; done(false); }
/** The host took the seat back (true) or the page took one again (false). */
export function setRemoved(removed) { state.removed = removed; }

/** Choosing where to build `mode`, or nothing. */
export function setMode(mode) { state.mode = mode; done(); }
/** Build mode `mode` on, or off when it is on. */
export function toggleMode(mode) { state.mode = state.mode === mode ? null : mode; done(); }
/** Leaves the build mode (an action was sent). */
export function leaveMode() { state.mode = null; }

/** @param {Cards} cards @param {string} r @param {number} by @param {number} max */
function bump(cards, r, by, max) {
  const n = Math.max(0, Math.min(max, (cards[r] || 0) + by));
  if (n) cards[r] = n; else delete cards[r];
}
/** One more (or, `by` -1, one fewer) card of `r` on `side` ('give' | 'get') of the offer composed, at most `max`. */
export function tradeCard(side, r, by, max = 99) {
  bump(state.trade[side], r, by, max);
  // A kind is given or asked for, not both (protocol.md 5.1.2).
  if (by > 0) delete state.trade[side === 'give' ? 'get' : 'give'][r];
  done();
}
/** To whom the offer composed goes ('' everyone, or a seat). */
export function tradeTo(to) { state.trade.to = to; done(); }
/** A counter-offer to `offer`: its terms turned around, to change. */
export function counterOffer(offer, give, get) { state.trade = { give: { ...give }, get: { ...get }, to: '', counterTo: offer }; done(); }
/** The offer composed emptied (sent, or the offer it countered closed). */
export function clearTrade(now = true) { state.trade = { give: {}, get: {}, to: '', counterTo: null }; done(now); }

/** The bank trade chosen: give `give` for `get` (either may be null). */
export function setMaritime(give, get) { state.maritime = { give, get }; done(); }

/** One card more or fewer of `r` to discard, at most `max`. */
export function discardCard(r, by, max) { bump(state.discard, r, by, max); done(); }
/** The discard chosen emptied (sent). */
export function clearDiscard() { state.discard = {}; }

/** Opens dialog `kind` ('victim' with the tile and its options). */
export function openDialog(kind, data = null) { state.dialog = kind; state.dialogData = data; done(); }
/** Closes the dialog (and, with `mode`, the build mode too). */
export function closeDialog({ mode = false, now = true } = {}) {
  state.dialog = null; state.dialogData = null;
  if (mode) state.mode = null;
  done(now);
}
/** Opens sheet `name` over the board, or closes the one open (null, or the same name again). */
export function toggleSheet(name) { state.sheet = name === null || state.sheet === name ? null : name; done(); }

/** The open sheet closed (the board must be tapped: it is in view). */
export function closeSheet() { state.sheet = null; }

/** A line about the last thing the person did; `ok` for good news (not in the error colour). */
export function setFlash(text, ok = false, now = true) { state.flash = text; state.flashOk = ok; done(now); }
/** The flash forgotten (a newer state came). */
export function clearFlash() { state.flash = ''; state.flashOk = false; }

/** A field of a form typed in (no redraw: the field shows it). */
export function typed(field, value) { state.form[field] = value; }

/** The end screen closed to see the board, or opened again. */
export function dismissGameOver(dismissed = true) { state.gameOverDismissed = dismissed; done(); }

/** A piece was placed (the board marks the last one). */
export function notePiece(kind, id) { state.lastPiece = { kind, id }; }
/**
 * A roll seen live: its number (each roll animates once), when, and what it produced
 * (the tiles glow and the gains show for a moment).
 * @param {Set<number>} tiles
 */
export function noteRoll(tiles) {
  state.rolls += 1;
  state.rolledAt = Date.now();
  state.glance = { at: state.rolledAt, tiles, gains: {} };
}
/** Cards a seat got from the roll shown. @param {number} seat @param {Cards} cards */
export function noteGain(seat, cards) {
  if (!state.glance) return;
  const g = state.glance.gains[seat] || {};
  for (const [r, n] of Object.entries(cards)) g[r] = (g[r] || 0) + n;
  state.glance.gains[seat] = g;
}

/** The board zoomed to `scale` (1 to 3) around the point (x, y) in board units, kept inside the board. */
export function setZoom(scale, x = state.zoom.x, y = state.zoom.y) {
  const sc = Math.max(1, Math.min(3, scale));
  // The middle may move as far as the part shown still lies within the board.
  const w = 300 - 300 / sc;
  const hh = 275 - 275 / sc;
  state.zoom = { scale: sc, x: Math.max(-w, Math.min(w, x)) || 0, y: Math.max(-hh, Math.min(hh, y)) || 0 };
  done();
}
