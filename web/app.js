// The reference browser client of catan-server (protocol.md). Plain ES modules, no
// build step. Pages: the lobby (`/`) and a room (`/?room=<id>`), which shows the
// room's seats before the start and the game after it; a replay (`/?replay=<id>`);
// the account (`/?account`), a player's profile (`/?player=<id>`) and the leaderboard
// (`/?leaderboard`), players.js's. Everything on the wire goes through the kit
// (kit.js); every visible string through i18n.js.

import { loadBoard, producingTiles } from './board.js';
import { api, Connection } from './kit.js';
import { t, cardsText, refusal, language, setLanguage, LANGUAGES, LANGUAGE_NAMES } from './i18n.js';
import { describe } from './log.js';
import { renderGame } from './game.js';
import { renderModal } from './dialogs.js';
import { askRatingChange, historyList } from './endgame.js';
import { accountLink, accountPage, leaderboardPage, loadMe, playerFor, profilePage } from './players.js';
import { replayPage } from './replay.js';
import { quickPlay } from './quickplay.js';
import { myGames, MOVE_HOURS } from './mygames.js';
import { Part } from './dom.js';
import { installIcons, icon, brand } from './icons.js';
import { flyResources, flyCard } from './motion.js';
import {
  clearFlash, clearTrade, closeDialog, enterRoom, noteGain, notePiece as placed, noteRoll, setConn, setFlash, setRemoved, setRoom, setSession, typed,
} from './state.js';
import { h, S, W, dot, who, seatName, occupantName, toast, announce, beep, soundOn, setSound, glance, GLANCE_MS, onRedraw, fmtDuration } from './ui.js';

/** @typedef {import('./protocol').CreateRoomRequest} CreateRoomRequest */
/** @typedef {import('./protocol').CreateRoomResponse} CreateRoomResponse */
/** @typedef {import('./protocol').TakeSeatResponse} TakeSeatResponse */
/** @typedef {import('./protocol').RoomList} RoomList */
/** @typedef {import('./protocol').RoomInfo} RoomInfo */
/** @typedef {import('./protocol').Event} GameEvent */
/** @typedef {import('./protocol').GameView} GameView */

const $app = document.getElementById('app');
const $conn = document.getElementById('conn');

const sessionKey = (id) => `catan.room.${id}`;
/** @type {readonly import('./protocol').BotKind[]} */
const BOT_LEVELS = ['easy', 'medium', 'hard'];

function loadSession(id) {
  try { return JSON.parse(localStorage.getItem(sessionKey(id)) || '{}'); } catch { return {}; }
}
function saveSession(id, patch) {
  const s = { ...loadSession(id), ...patch };
  localStorage.setItem(sessionKey(id), JSON.stringify(s));
  return s;
}

function showConn(text) {
  if (text) { $conn.textContent = text; $conn.hidden = false; } else { $conn.hidden = true; }
}

/** The language switcher in the top bar; the choice is remembered. */
function languageSwitcher() {
  const sel = h('select', { id: 'lang', 'aria-label': t('language') },
    LANGUAGES.map((l) => h('option', { value: l, selected: l === language() }, LANGUAGE_NAMES[l])));
  sel.addEventListener('change', () => {
    setLanguage(sel.value);
    const u = new URL(location.href);
    u.searchParams.delete('lang');
    location.href = u.toString();
  });
  document.getElementById('lang-slot').replaceChildren(sel);
  document.querySelector('#topbar .brand').replaceChildren(...brand(t('brand')));
  document.documentElement.lang = language();
}

/** The sound toggle in the top bar: off until turned on; remembered. */
function soundToggle() {
  // A speaker with waves when on, crossed when off (a shape of its own, not a struck-through note).
  const show = () => {
    btn.setAttribute('aria-pressed', soundOn() ? 'true' : 'false');
    btn.title = t(soundOn() ? 'sound.on' : 'sound.off');
    btn.replaceChildren(icon(soundOn() ? 'sound_on' : 'sound_off'));
  };
  const btn = h('button', {
    id: 'sound', type: 'button', 'aria-label': t('sound'),
    onclick: () => { setSound(!soundOn()); show(); beep('turn'); },
  });
  show();
  document.getElementById('sound-slot').replaceChildren(btn);
}

// ---------------------------------------------------------------- lobby page

/** Whether the person typed a name on this page (then it is theirs, not the player's). */
let nameTyped = false;
const typeName = (e) => { nameTyped = true; typed('name', e.target.value); };
/**
 * The name fields show the signed-in player's name (GET /api/me), unless the person
 * already typed one.
 * @param {import('./protocol').PlayerInfo | null | undefined} me
 */
function nameFromPlayer(me) {
  if (!me || nameTyped) return;
  typed('name', me.name);
  for (const id of ['quick-name', 'join-name']) {
    const field = document.getElementById(id);
    if (field instanceof HTMLInputElement) field.value = me.name;
  }
}

/** The bot level chosen last (the same for the lobby's quick game and a room's host). */
function botLevel() {
  return BOT_LEVELS.find((l) => l === localStorage.getItem('catan.bot_level')) || 'medium';
}
function botLevelSelect(id) {
  return h('select', {
    id, 'aria-label': t('bot_kind'),
    onchange: (e) => localStorage.setItem('catan.bot_level', e.target.value),
  }, BOT_LEVELS.map((l) => h('option', { value: l, selected: l === botLevel() }, t(`bot.${l}`))));
}

/**
 * One click to a game against bots: a room with the options of the form below, a
 * seat for the person, bots of the chosen level in the others, and the start; then
 * the room's page.
 */
function quickGame(readOptions) {
  const err = h('p', { class: 'error', id: 'quick-error', role: 'alert' });
  const name = h('input', {
    id: 'quick-name', maxlength: 32, placeholder: t('your_name'), 'aria-label': t('your_name'), value: S.form.name,
    oninput: typeName,
  });
  const go = /** @type {HTMLButtonElement} */ (h('button', {
    class: 'primary', id: 'play-bots', type: 'button',
    onclick: async () => {
      go.disabled = true;
      err.textContent = '';
      try {
        const body = readOptions();
        const nm = (S.form.name || '').trim() || t('default_name');
        localStorage.setItem('catan.name', S.form.name.trim());
        await playerFor(nm);
        /** @type {CreateRoomResponse} */
        const r = await api('POST', '/api/rooms', body);
        /** @type {TakeSeatResponse} */
        const tk = await api('POST', `/api/rooms/${r.room_id}/seats`, { name: nm });
        saveSession(r.room_id, { host_token: r.host_token, token: tk.token, seat: tk.seat, name: nm });
        for (let i = 1; i < body.players; i++) await api('POST', `/api/rooms/${r.room_id}/bots`, { kind: botLevel() }, r.host_token);
        await api('POST', `/api/rooms/${r.room_id}/start`, undefined, r.host_token);
        location.href = `/?room=${r.room_id}`;
      } catch (x) { err.textContent = refusal(x); go.disabled = false; }
    },
  }, t('play_bots')));
  go.prepend(icon('dice'));
  // Quick play first (a table of people by rating), then a game against bots.
  const seatedFromQueue = (s, nm) => {
    localStorage.setItem('catan.name', (S.form.name || '').trim());
    saveSession(s.room_id, { token: s.token, seat: s.seat, name: nm });
    location.href = `/?room=${s.room_id}`;
  };
  return h('section', { class: 'panel hero', id: 'quick' },
    h('div', { class: 'hero-head' }, icon('logo', { cls: 'hero-logo' }), h('div', {}, h('h1', {}, t('brand')), h('p', { class: 'muted' }, t('lobby_tagline')))),
    h('div', { class: 'row hero-row' }, name),
    h('h2', { class: 'hero-sub' }, t('qp.title')),
    quickPlay({ name: () => (S.form.name || '').trim() || t('default_name'), seated: seatedFromQueue }),
    h('h2', { class: 'hero-sub' }, t('play_bots')),
    h('div', { class: 'row hero-row' }, botLevelSelect('quick-bot-kind'), go), err,
    h('p', { class: 'muted small' }, t('quick_game_about')),
    h('p', { class: 'row' }, h('a', { id: 'leaderboard-link', href: '/?leaderboard', class: 'nav-link' }, icon('trophy'), t('leaderboard'))));
}

/** The room options of the lobby's form. @returns {CreateRoomRequest} */
function formOptions() {
  const input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
  const n = (id) => Number(input(id).value);
  return {
    players: n('opt-players'), vp_target: n('opt-vp'), map: input('opt-map').value === 'beginner' ? 'beginner' : 'random',
    turn_limit: n('opt-turn-limit'), turn_timer_secs: n('opt-turn'), trade_timeout_secs: n('opt-trade'),
    discard_timeout_secs: n('opt-discard'), listed: input('opt-listed').checked, spectators: input('opt-spectators').checked,
    stand_in_secs: n('opt-stand-in'), stand_in_level: BOT_LEVELS.find((l) => l === input('opt-stand-in-level').value) || 'medium',
    // (Sent only when asked for: unrated is the default.)
    ...(input('opt-rated').checked ? { rated: true } : {}),
    // A game over days (protocol 27): the preset of the hours chosen.
    ...(input('opt-pace-days').checked ? { days: { move_hours: n('opt-move-hours') } } : {}),
  };
}

/** The fields of a live room's timers, which a game over days does not use (protocol 27). */
const LIVE_TIMERS = ['opt-turn', 'opt-trade', 'opt-discard', 'opt-stand-in'];

/**
 * Live or over days: two choices and, over days, the time per move (the presets of
 * protocol 27.1) and what a time-out does; the live timers' fields hidden then.
 */
function paceField() {
  const show = () => {
    const days = /** @type {HTMLInputElement} */ (document.getElementById('opt-pace-days')).checked;
    document.getElementById('opt-days').hidden = !days;
    for (const id of LIVE_TIMERS) {
      for (const e of document.querySelectorAll(`#${id}, label[for="${id}"]`)) /** @type {HTMLElement} */ (e).hidden = days;
    }
  };
  const choice = (value, label) => h('label', { class: 'radio' },
    h('input', { type: 'radio', name: 'pace', id: `opt-pace-${value}`, value, checked: value === 'live', onchange: show }), label);
  return h('fieldset', { class: 'pace', id: 'opt-pace' }, h('legend', {}, t('opt.pace')),
    h('div', { class: 'row pace-choices' }, choice('live', t('pace.live')), choice('days', t('pace.days'))),
    h('div', { id: 'opt-days', class: 'pace-days', hidden: true },
      h('label', { for: 'opt-move-hours' }, t('opt.move_hours')),
      h('select', { id: 'opt-move-hours' }, MOVE_HOURS.map((n) => h('option', { value: n, selected: n === 24 }, t('days.per_move', { time: fmtDuration(n * 3600000) })))),
      h('p', { class: 'muted small', id: 'days-about' }, t('days.about'))));
}

function lobbyForm() {
  const field = (id, label, input) => [h('label', { for: id }, label), input];
  const num = (id, min, max, value) => h('input', { id, type: 'number', min, max, value, inputmode: 'numeric' });
  const form = h('form', { class: 'form-grid', id: 'create-form' },
    field('opt-players', t('opt.players'), h('select', { id: 'opt-players' }, h('option', { value: 4 }, '4'), h('option', { value: 3 }, '3'))),
    field('opt-vp', t('opt.vp'), num('opt-vp', 3, 20, 10)),
    field('opt-map', t('opt.map'), h('select', { id: 'opt-map' }, h('option', { value: 'random' }, t('map.random')), h('option', { value: 'beginner' }, t('map.beginner')))),
    paceField(),
    field('opt-turn-limit', t('opt.turn_limit'), num('opt-turn-limit', 100, 5000, 1000)),
    field('opt-turn', t('opt.turn_timer'), num('opt-turn', 0, 3600, 0)),
    field('opt-trade', t('opt.trade_timeout'), num('opt-trade', 0, 3600, 60)),
    field('opt-discard', t('opt.discard_timeout'), num('opt-discard', 0, 3600, 60)),
    field('opt-stand-in', t('opt.stand_in'), num('opt-stand-in', 0, 3600, 60)),
    field('opt-stand-in-level', t('opt.stand_in_level'), h('select', { id: 'opt-stand-in-level' },
      BOT_LEVELS.map((l) => h('option', { value: l, selected: l === 'medium' }, t(`bot.${l}`))))),
    field('opt-listed', t('opt.listed'), h('input', { id: 'opt-listed', type: 'checkbox', checked: true })),
    field('opt-spectators', t('opt.spectators'), h('input', { id: 'opt-spectators', type: 'checkbox', checked: true })),
    field('opt-rated', t('opt.rated'), h('input', { id: 'opt-rated', type: 'checkbox' })),
    h('span'),
    h('button', { type: 'submit', class: 'primary', id: 'create-room' }, t('create_room')));
  const err = h('p', { class: 'error', id: 'create-error', role: 'alert' });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = formOptions();
    try {
      /** @type {CreateRoomResponse} */
      const r = await api('POST', '/api/rooms', body);
      saveSession(r.room_id, { host_token: r.host_token });
      location.href = `/?room=${r.room_id}`;
    } catch (x) { err.textContent = refusal(x); }
  });
  return [form, err];
}

async function lobbyPage() {
  document.title = t('title.lobby');
  const list = h('div', { id: 'room-list' }, h('p', { class: 'muted' }, t('loading_rooms')));
  // One click to a game first; the room for friends and the rules' options folded away.
  // The signed-in player's games first, when there are any (mygames.js).
  $app.replaceChildren(h('div', { class: 'lobby' },
    myGames({ hasSeat: (id) => !!loadSession(id).token }),
    h('div', {}, quickGame(formOptions),
      h('details', { class: 'panel more', id: 'more-options' }, h('summary', { id: 'more-options-summary' }, t('more_options')),
        h('h2', {}, t('new_room')), lobbyForm())),
    h('section', { class: 'panel' }, h('h2', {}, t('open_rooms')), list,
      h('h2', {}, t('end.history')), historyList())));
  const refresh = async () => {
    try {
      /** @type {RoomList} */
      const listed = await api('GET', '/api/rooms?limit=50');
      // Open rooms only: a finished one stays listed for a minute, but there is
      // nothing left to join or watch.
      const rooms = listed.rooms.filter((r) => r.status !== 'finished');
      if (!rooms.length) { list.replaceChildren(h('p', { class: 'muted' }, t('no_rooms'))); return; }
      /** @param {RoomInfo} r */
      const names = (r) => r.seats.flatMap((s) => (s.occupant ? [occupantName(s.occupant)] : [])).join(', ') || t('room_nobody');
      list.replaceChildren(h('table', {},
        h('tr', {}, h('th', {}, t('room')), h('th', {}, t('status')), h('th', {}, t('seats')), h('th', {}, t('vp')), h('th', {}, t('opt.map'))),
        rooms.map((r) => h('tr', {},
          h('td', {}, h('a', { href: `/?room=${r.id}`, class: 'room-link', title: r.id }, names(r))),
          h('td', {}, t(`status.${r.status}`), r.options.rated ? ` · ${t('rated')}` : ''),
          h('td', {}, `${r.seats.filter((s) => s.occupant).length}/${r.options.players}`),
          h('td', {}, r.options.vp_target),
          h('td', {}, t(`map.${r.options.map}`))))));
    } catch (x) { list.replaceChildren(h('p', { class: 'error' }, refusal(x))); }
  };
  refresh();
  setInterval(refresh, 4000);
}

// ---------------------------------------------------------------- the connection

let glanceTimer = 0;

/** Log lines and toasts for one message's events, from the view before them. */
function onEvents(events, view, seq) {
  const you = W().you;
  for (const ev of events) {
    const line = describe(ev, view, who);
    if (line) logLine(line.cls, line.parts, seq, true);
    notePiece(ev);
    if (ev.type === 'dice_rolled') {
      // What a roll produced, at a glance: the tiles glow and each seat's gains show.
      noteRoll(producingTiles(view, ev.dice[0] + ev.dice[1]));
      // One redraw when it is over (one timer, however many rolls a fast game has).
      clearTimeout(glanceTimer);
      glanceTimer = setTimeout(renderSoon, GLANCE_MS + 50);
    }
    if (ev.type === 'produced' && glance()) noteGain(ev.seat, ev.cards);
    // Motion that explains (none with prefers-reduced-motion): the cards a roll
    // produced move from their tiles to the players, a stolen card from one player
    // to the other.
    if (ev.type === 'produced') flyResources(view, ev.seat, ev.cards, you);
    if (ev.type === 'stolen') flyCard(ev.victim, ev.thief, ev.resource, you);
    if (ev.type === 'offer_closed' && S.trade.counterTo === ev.offer) clearTrade(false);
    // An award that changes hands, for everyone (R-9).
    if (ev.type === 'longest_road' && ev.holder !== view.longest_road) {
      toast(ev.holder === null ? t('toast.lr_none') : t('toast.lr', { name: seatName(ev.holder) }), 'award');
    }
    if (ev.type === 'largest_army' && ev.holder !== view.largest_army) {
      toast(ev.holder === null ? t('toast.la_none') : t('toast.la', { name: seatName(ev.holder) }), 'award');
    }
    if (you === null) continue;
    if (ev.type === 'turn_started' && ev.seat === you) toast(t('toast.your_turn'), 'turn');
    if (ev.type === 'stolen' && ev.victim === you) toast(t('toast.robbed', { name: seatName(ev.thief), res: ev.resource ? t(`res.${ev.resource}`) : t('a_card') }), 'robbed');
    // The offerer is told when someone accepts (then they may complete the trade).
    if (ev.type === 'offer_accepted' && view.offers.find((o) => o.id === ev.offer)?.from === you) {
      toast(t('toast.accepted', { name: seatName(ev.seat) }), 'accepted');
    }
    if (ev.type === 'offer_made' && ev.offer.from !== you && (ev.offer.to === you || ev.offer.to === null)) {
      toast(t('toast.offer', { name: seatName(ev.offer.from), give: cardsText(ev.offer.give), get: cardsText(ev.offer.get) }), 'offer');
    }
  }
}

/** The last piece placed, marked on the board. */
function notePiece(ev) {
  if (ev.type === 'settlement_built' || ev.type === 'city_built') placed('vertex', ev.vertex);
  if (ev.type === 'road_built') placed('edge', ev.edge);
}

/** The log's lines, kept in one element that every redraw moves into place. */
const LOG_LINES = 3000;
const $log = h('div', { class: 'log', id: 'log', role: 'log', tabindex: 0, 'aria-label': t('log_chat') });
// Where the log is scrolled: following the newest line unless the person scrolled up
// (read before each redraw, against where the last one left it: lines added since
// make it taller, and moving it into the redrawn page resets its scroll).
const logScroll = { follow: true, top: 0, height: 0 };
function noteLog() {
  if (!$log.isConnected) return;
  logScroll.follow = $log.scrollTop + $log.clientHeight >= logScroll.height - 30;
  logScroll.top = $log.scrollTop;
}
function placeLog() {
  if (!$log.isConnected) return;
  $log.scrollTop = logScroll.follow ? $log.scrollHeight : logScroll.top;
  logScroll.height = $log.scrollHeight;
}

/**
 * Adds a line to the log; `seq` is the number of the broadcast it comes from (the
 * history replaces the lines up to its own). `live` lines are read out.
 */
function logLine(cls, parts, seq = null, live = false) {
  const line = h('div', { class: cls, 'data-seq': seq ?? '' }, ...parts);
  $log.append(line);
  while ($log.childElementCount > LOG_LINES) $log.firstElementChild.remove();
  // (Scrolled into place by the next redraw: one layout a frame, not one a line.)
  if (live) announce(line.textContent);
}

/** A chat message as a log line's class and parts. @returns {[string, any[]]} */
function chatLine(msg) {
  return ['chat', [h('b', {}, msg.seat === undefined || msg.seat === null ? null : dot(msg.seat), `${msg.name}: `), msg.text]];
}

/**
 * The seat's visible history (protocol.md 5.2.12) as the log: every action's events
 * and the chat kept, in the order of their numbers; lines already shown live up to
 * the history's `seq` are replaced, later ones kept.
 * @param {import('./protocol').History} msg
 */
function showHistory(msg) {
  const v = W().view;
  const later = [...$log.children].filter((e) => e instanceof HTMLElement && Number(e.dataset.seq) > msg.seq);
  /** @type {[number, string, any[]][]} */
  const lines = [];
  for (const a of msg.actions) {
    for (const ev of a.events) {
      notePiece(ev);
      const line = v ? describe(ev, v, who) : null;
      if (line) lines.push([a.seq, line.cls, line.parts]);
    }
  }
  for (const c of msg.chat) if (c.text !== '') lines.push([c.seq, ...chatLine(c)]);
  lines.sort((a, b) => a[0] - b[0]);
  $log.replaceChildren();
  for (const [seq, cls, parts] of lines.slice(-LOG_LINES)) logLine(cls, parts, seq);
  $log.append(...later);
  logScroll.follow = true;
}

function onChange(kind, msg) {
  const st = W();
  // An old chat replayed without its text (protocol.md 8) has nothing to show.
  if (kind === 'chat' && msg.text !== '') logLine(...chatLine(msg), msg.seq, true);
  if (kind === 'history') showHistory(msg);
  if (kind === 'events' || kind === 'snapshot') clearFlash();
  // The words come with the close code that follows (closedText): an administrator's
  // own message is shown with it, never replaced by a generic line.
  if (kind === 'closing') closing = msg;
  // A rated game's end: the seat's rating change, once the game is stored.
  if (st.gameOver && st.you !== null && st.room?.options.rated) askRatingChange(S.roomId, st.you);
  renderSoon();
}

const CLOSED = { 4000: 'conn.replaced', 4010: 'conn.room_closed', 4011: 'conn.kicked', 4012: 'conn.version', unsupported_version: 'conn.version' };
/** The close code each `closing` code announces (protocol.md 5.2.11). */
const CLOSING_CODE = { room_closed: 4010, kicked: 4011, unsupported_version: 4012, shutting_down: 1001, room_moved: 4014 };
/**
 * The server's own words when nobody wrote any (protocol.md 22.4, 22.5): the page's
 * line says as much in the page's language; any other text is a person's and shown.
 */
const DEFAULT_WORDS = [
  'the room was closed by an administrator', 'disconnected by an administrator', 'the host removed you from this seat',
  /^the room was closed after \d+ s without players$/, /^the game was abandoned: no player was connected for \d+ s$/,
];
/** The last `closing` message of this connection (for the close code after it). */
let closing = null;

/** What the page says on a final close `code`: its line, and the words that came with it. */
function closedText(code) {
  const why = t(CLOSED[code] || 'conn.lost');
  const said = closing && CLOSING_CODE[closing.code] === code ? closing.message : '';
  const own = said && !DEFAULT_WORDS.some((d) => (typeof d === 'string' ? d === said : d.test(said)));
  return own ? t('conn.said', { why, text: said }) : why;
}

/**
 * Whether the server refuses this page's origin (protocol.md 19): a WebSocket refused
 * before the upgrade shows the page nothing but a closed socket, so a request that
 * changes nothing asks (a start without the host's token: 401 for an allowed origin,
 * 403 `origin_not_allowed` for a refused one, the origin check coming first).
 */
async function originRefused() {
  try {
    await api('POST', `/api/rooms/${S.roomId}/start`);
    return null;
  } catch (x) {
    return x.code === 'origin_not_allowed' ? x : null;
  }
}

function connect() {
  if (S.conn) S.conn.close();
  closing = null;
  const base = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`;
  let opened = false;
  let asked = false;
  const conn = new Connection({
    base, roomId: S.roomId, token: S.session.token, onChange, onEvents, history: true,
    onStatus: async (s, delay) => {
      if (s === 'open') { opened = true; closing = null; showConn(''); return; }
      if (s === 'retrying') {
        showConn(t('conn.retrying', { s: Math.round(delay / 100) / 10 }));
        // Never opened: perhaps refused for the page's origin; then it never will.
        if (!opened && !asked) {
          asked = true;
          const refused = await originRefused();
          if (refused && S.conn === conn) { conn.close(); clearTimeout(conn.retryTimer); showConn(refusal(refused)); }
        }
        return;
      }
      if (s === 4011 && W().room?.status === 'lobby' && S.session.token) { seatTakenBack(); return; }
      showConn(closedText(s));
      closing = null;
    },
  });
  setConn(conn);
  conn.connect();
}

/**
 * Close code 4011 before the start: an administrator disconnected the page (the seat
 * is still its own), or the host took the seat back (protocol.md 4.7), told apart by
 * the room: a seat taken back is free (or, soon after, someone else's). Taken back:
 * the page forgets the seat's token, says the host removed the person, and shows the
 * room (watched, or polled if it has no spectators) with the form to take a seat again.
 */
async function seatTakenBack() {
  /** @type {RoomInfo | null} */
  const r = await api('GET', `/api/rooms/${S.roomId}`).catch(() => null);
  // (A seat adopted from the address knows its number from the room's snapshot.)
  const mine = S.session.seat ?? W().you;
  const seat = r && mine !== null && mine !== undefined ? r.seats[mine] : null;
  const occupant = seat?.occupant;
  const gone = r && r.status === 'lobby' && (!occupant || (S.session.name && occupant.name !== S.session.name));
  if (!gone) { showConn(closedText(4011)); closing = null; return; }
  setSession(saveSession(S.roomId, { token: null, seat: null }));
  setRemoved(true);
  setRoom(r);
  showConn('');
  if (r.options.spectators) connect(); else { setConn(null); pollRoom(); }
  render();
}

// ---------------------------------------------------------------- room page

async function roomPage(id) {
  enterRoom(id, loadSession(id));
  document.title = t('title.room');
  try {
    setRoom(await api('GET', `/api/rooms/${id}`));
  } catch (x) {
    $app.replaceChildren(h('div', { class: 'panel' }, h('p', { class: 'error' }, t('room_error', { id, why: refusal(x) })), h('a', { href: '/' }, t('back_lobby'))));
    return;
  }
  await loadBoard();
  if (S.session.token || S.room.options.spectators) connect();
  else pollRoom();
  render();
}

async function pollRoom() {
  if (S.session.token || S.conn) return;
  try { setRoom(await api('GET', `/api/rooms/${S.roomId}`)); render(); } catch { /* keep polling */ }
  setTimeout(pollRoom, 2000);
}

/**
 * Which element has the focus, as a selector that finds its successor after a redraw
 * (its id, or the board spot or stepper it is), so that keyboard use survives the
 * page being redrawn from scratch; null when there is none to keep.
 */
function focusKey() {
  const el = document.activeElement;
  if (!(el instanceof Element) || el === document.body) return null;
  // Kept for keyboard use (a focus ring shown) and typing; a button clicked with the
  // mouse need not stay focused across a redraw.
  if (!el.matches(':focus-visible') && !(el instanceof HTMLInputElement && el.type === 'text')) return null;
  for (const a of ['data-vertex', 'data-edge', 'data-tile', 'data-step']) {
    if (el.hasAttribute(a)) return { sel: `[${a}="${el.getAttribute(a)}"]`, spot: a !== 'data-step' };
  }
  return el.id ? { sel: `#${CSS.escape(el.id)}`, spot: false } : null;
}

// A board spot had the focus and was taken (or the spots went while the action was
// in flight): the next legal spots to appear get it, until the focus goes elsewhere.
let spotFocusLost = false;
document.addEventListener('focusin', (e) => {
  if (e.target instanceof Element && e.target !== document.body) spotFocusLost = false;
});

function render() {
  if (frame) cancelAnimationFrame(frame);
  frame = 0;
  if (!W().room) return;
  const focus = focusKey() || (spotFocusLost ? { sel: '#board .hl', spot: true } : null);
  noteLog();
  const drawn = !W().view ? renderRoomLobby() : renderGame(chatPanel);
  page.drawn = drawn;
  page.draws += 1;
  renderModal();
  placeLog();
  // A dialog takes the focus, so that it is answered by keyboard: the control that
  // had it before the redraw (a stepper's + pressed again and again), or when that
  // is now disabled the next one that is not (at a stepper's most, the next kind's,
  // or the confirmation once every card is chosen); else its first.
  const $modal = document.getElementById('modal');
  if (!$modal.hidden && !$modal.contains(document.activeElement)) {
    const controls = modalControls();
    const same = /** @type {HTMLButtonElement | null} */ (focus && !focus.spot ? $modal.querySelector(focus.sel) : null);
    const next = !same ? controls[0]
      // eslint-disable-next-line no-bitwise
      : (same.disabled ? controls.find((e) => same.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING) || controls[0] : same);
    if (next instanceof HTMLElement) { next.focus({ preventScroll: true }); return; }
  }
  const active = document.activeElement;
  // (A removed element may stay the active one until the browser's next update.)
  if (focus && (!active || active === document.body || !active.isConnected)) {
    // The same element again; a board spot taken: the first legal spot left, if any.
    const next = document.querySelector(focus.sel) || (focus.spot ? document.querySelector('#board .hl') : null);
    spotFocusLost = focus.spot && !next;
    if (next instanceof HTMLElement || next instanceof SVGElement) {
      next.focus({ preventScroll: true });
      if (next instanceof HTMLInputElement && next.type === 'text') next.setSelectionRange(next.value.length, next.value.length);
    }
  }
}
// What the person does redraws at once; what the server sends, once per animation
// frame however many messages arrived, so that a page keeps up with a fast game and
// is never dropped as too slow (protocol.md 9, 4009).
let frame = 0;
function renderSoon() {
  if (!frame) frame = requestAnimationFrame(render);
}
onRedraw((now) => (now ? render() : renderSoon()));
/** For the tests: the page's redraw, and which parts the last one drew. */
const page = { render, drawn: /** @type {string[]} */ ([]), draws: 0 };
/** @type {any} */ (window).__catanPage = page;

function optionsLine(o) {
  const d = o.days;
  if (d) {
    // A game over days: its clock instead of the live timers (protocol 27.1).
    return t('room_options_days', {
      players: o.players, vp: o.vp_target, map: t(`map.${o.map}`), turns: o.turn_limit ?? 1000,
      pace: t('days.per_move', { time: fmtDuration(d.move_hours * 3600000) }), bank: fmtDuration(d.bank_hours * 3600000),
      add: fmtDuration(d.bank_add_mins * 60000), cap: fmtDuration(d.bank_cap_hours * 3600000), vacation: d.vacation_days,
      listed: o.listed ? t('listed') : t('unlisted'), spectators: o.spectators ? t('spectators_yes') : t('spectators_no'),
    });
  }
  return t('room_options', {
    players: o.players, vp: o.vp_target, map: t(`map.${o.map}`), turns: o.turn_limit ?? 1000,
    timer: o.turn_timer_secs ? `${o.turn_timer_secs}s` : t('off'), trade: `${o.trade_timeout_secs}s`,
    discard: o.discard_timeout_secs ? `${o.discard_timeout_secs}s` : t('off'),
    stand_in: o.stand_in_secs ? `${o.stand_in_secs}s` : t('off'),
    listed: o.listed ? t('listed') : t('unlisted'), spectators: o.spectators ? t('spectators_yes') : t('spectators_no'),
  });
}

async function lobbyCall(fn) {
  try { await fn(); setFlash('', false, false); } catch (x) { setFlash(refusal(x), false, false); }
  if (!S.conn) setRoom(await api('GET', `/api/rooms/${S.roomId}`));
  render();
}

function seatControls(r, free) {
  const host = S.session.host_token;
  const side = [];
  if (r.status === 'lobby' && !S.session.token) {
    if (S.removed) side.push(h('p', { class: 'error', id: 'removed', role: 'alert' }, t('removed_by_host')));
    side.push(h('h3', {}, t('take_seat')),
      h('div', { class: 'row' }, h('input', {
        id: 'join-name', maxlength: 32, placeholder: t('your_name'), 'aria-label': t('your_name'), value: S.form.name,
        oninput: typeName,
      }), h('button', {
        class: 'primary', id: 'join', disabled: !free.length,
        onclick: () => lobbyCall(async () => {
          const nm = S.form.name.trim();
          localStorage.setItem('catan.name', nm);
          await playerFor(nm);
          /** @type {TakeSeatResponse} */
          const tk = await api('POST', `/api/rooms/${r.id}/seats`, { name: nm });
          setSession(saveSession(r.id, { token: tk.token, seat: tk.seat, name: nm }));
          setRemoved(false);
          connect();
        }),
      }, t('join'))),
      r.options.spectators ? h('p', { class: 'muted' }, t('watching')) : null);
  } else if (r.status === 'lobby' && S.session.token) {
    side.push(h('p', { id: 'you-seat', 'data-seat': S.session.seat }, t('you_are_seat', { n: S.session.seat + 1 })),
      h('button', {
        id: 'leave',
        onclick: () => lobbyCall(async () => {
          try { await api('DELETE', `/api/rooms/${r.id}/seats/${S.session.seat}`, undefined, S.session.token); } finally {
            setSession(saveSession(r.id, { token: null, seat: null }));
            if (r.options.spectators) connect(); else { S.conn?.close(); setConn(null); pollRoom(); }
          }
        }),
      }, t('leave_seat')));
  }
  if (host && r.status === 'lobby') {
    // The levels offered to people (random is for tests and load); the choice stays
    // chosen for the next bot and the next room.
    const kind = /** @type {HTMLSelectElement} */ (botLevelSelect('bot-kind'));
    side.push(h('h3', {}, t('host')), h('div', { class: 'row' }, kind,
      h('button', {
        id: 'add-bot', disabled: !free.length,
        // (The level as chosen: the select on the page, kept in localStorage when changed.)
        onclick: () => lobbyCall(() => api('POST', `/api/rooms/${r.id}/bots`, { kind: botLevel() }, host)),
      }, t('add_bot')),
      h('button', {
        class: 'primary', id: 'start', disabled: free.length > 0,
        onclick: () => lobbyCall(() => api('POST', `/api/rooms/${r.id}/start`, undefined, host)),
      }, t('start_game'))));
  }
  if (r.status !== 'lobby') side.push(h('p', { class: 'muted' }, r.options.spectators || S.session.token ? t('loading_game') : t('no_spectators')));
  return side;
}

/** The room before the start: its options, link and seats; the seat and host controls. */
function roomPanel() {
  const r = W().room;
  const link = `${location.origin}/?room=${r.id}`;
  const you = W().you;
  const seats = h('table', { id: 'seats' },
    h('tr', {}, h('th', {}, t('seat')), h('th', {}, t('player')), h('th', {}, t('online'))),
    r.seats.map((s) => h('tr', { 'data-bot': s.occupant?.bot ? '' : undefined },
      h('td', {}, dot(s.seat), `${s.seat + 1}`),
      h('td', {}, s.occupant ? [occupantName(s.occupant), s.occupant.bot ? ` (${t(`bot.${s.occupant.bot}`)})` : '', you === s.seat && S.session.token ? ` (${t('you')})` : '']
        : h('span', { class: 'muted' }, t('free'))),
      h('td', {}, s.connected ? t('yes') : t('no')),
      // The host may take a seat back before the start: a bot, or a person waiting.
      S.session.host_token && r.status === 'lobby' && s.occupant && !(you === s.seat && S.session.token)
        ? h('td', {}, h('button', {
          // (An id, so that a redraw gives the focus back to it: focusKey.)
          class: 'remove-seat', id: `remove-seat-${s.seat}`, 'data-seat': String(s.seat), 'aria-label': `${t('remove')} ${occupantName(s.occupant)}`,
          onclick: () => lobbyCall(() => api('DELETE', `/api/rooms/${r.id}/seats/${s.seat}`, undefined, S.session.host_token)),
        }, t('remove')))
        : h('td', {}))));
  return h('section', { class: 'panel' }, h('h2', {}, t('room')), h('p', {}, optionsLine(r.options)),
    r.options.rated ? h('p', { id: 'rated-room', class: 'rated-note' }, icon('trophy'), t('rated_room')) : null,
    h('label', { class: 'row' }, t('join_link'), ' ', h('input', { class: 'share', id: 'share-link', readonly: true, value: link, onclick: (e) => e.target.select() })),
    h('button', { id: 'copy-link', onclick: () => copyLink(link) }, t('copy_link')),
    seats);
}

function controlsPanel() {
  const r = W().room;
  const problem = W().refusal ? refusal(W().refusal) : S.flash;
  return [...seatControls(r, r.seats.filter((s) => !s.occupant)),
    problem ? h('p', { class: S.flashOk && !W().refusal ? 'ok' : 'error', id: 'flash', role: 'alert' }, problem) : null];
}

const roomKey = () => JSON.stringify([W().room, W().you, S.session, S.removed, S.flash, S.flashOk, W().refusal]);
const ROOM_PARTS = { 'room-slot': new Part(roomKey, roomPanel), 'controls-slot': new Part(roomKey, controlsPanel) };

/** The room's page before the start: drawn once, then each part that changed. */
function renderRoomLobby() {
  const r = W().room;
  document.getElementById('status-line').textContent = t('room_status', { id: r.id.slice(0, 8), status: t(`status.${r.status}`) });
  let fresh = false;
  if (!document.getElementById('room-lobby')) {
    $app.replaceChildren(h('div', { class: 'lobby', id: 'room-lobby' }, h('div', { id: 'room-slot' }),
      h('section', { class: 'panel' }, h('div', { id: 'controls-slot' }), chatPanel())));
    fresh = true;
  }
  return Object.entries(ROOM_PARTS).filter(([id, part]) => part.update(document.getElementById(id), fresh)).map(([id]) => id);
}

/**
 * Copies the invite link: the clipboard API where the page may use it (https,
 * localhost), else the old way through the selected field.
 */
async function copyLink(link) {
  let done = false;
  try { await navigator.clipboard.writeText(link); done = true; } catch {
    const field = document.getElementById('share-link');
    if (field instanceof HTMLInputElement) { field.select(); done = document.execCommand('copy'); }
  }
  setFlash(done ? t('link_copied') : t('link_copy_failed'), done);
}

function chatPanel() {
  const input = h('input', { id: 'chat-input', maxlength: 500, placeholder: t('chat'), 'aria-label': t('chat'), value: S.form.chat || '', oninput: (e) => typed('chat', e.target.value) });
  const form = h('form', {
    id: 'chat-form', class: 'row',
    onsubmit: (e) => {
      e.preventDefault();
      const text = (S.form.chat || '').trim();
      if (text) S.conn?.chat(text);
      typed('chat', '');
      input.value = '';
    },
  }, input, h('button', { type: 'submit' }, t('send')));
  return h('section', { class: 'panel', id: 'log-panel' }, h('h3', {}, t('log_chat')), $log, form);
}

// ---------------------------------------------------------------- start

/** The enabled, shown controls of the open dialog, in order. @returns {HTMLElement[]} */
function modalControls() {
  const $modal = document.getElementById('modal');
  if ($modal.hidden) return [];
  return /** @type {HTMLElement[]} */ ([...$modal.querySelectorAll('button, a[href], input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
    .filter((e) => !(/** @type {any} */ (e).disabled) && e.getClientRects().length > 0));
}

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && (S.mode || S.dialog)) closeDialog({ mode: true });
  // A dialog is modal: Tab and Shift+Tab go round its controls, not to the page behind it.
  if (e.key === 'Tab' && !e.altKey && !e.ctrlKey && !e.metaKey) {
    const controls = modalControls();
    if (!controls.length) return;
    const i = controls.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    const to = e.shiftKey ? (i <= 0 ? controls.length - 1 : -1) : (i === -1 || i === controls.length - 1 ? 0 : -1);
    if (to >= 0) { e.preventDefault(); controls[to].focus(); }
  }
});

/**
 * A seat token handed over in the address, `/?room=ID#token=TOKEN` (e.g. from the
 * README's curl commands, or a link one sends oneself to another device): kept like
 * a token this page got itself, then taken out of the address bar. The fragment never
 * reaches the server, its logs or other sites' referrers.
 * @param {string} roomId
 */
function adoptTokenFromAddress(roomId) {
  const p = new URLSearchParams(location.hash.slice(1));
  const token = p.get('token');
  if (!token) return;
  saveSession(roomId, { token, seat: null });
  history.replaceState(null, '', `${location.pathname}${location.search}`);
}

installIcons();
languageSwitcher();
// Installable (the manifest, index.html): the service worker at the root keeps and
// intercepts nothing (sw.js). (Refused where the page is not a secure context.)
navigator.serviceWorker?.register('/sw.js').catch(() => {});
soundToggle();
// Leaving the page in the same tab (a link, Back) closes the connection, as closing
// the tab does: the server marks the seat away at once and its stand-in can take
// over; coming back to it (Forward, the back-forward cache) reconnects.
addEventListener('pagehide', () => { if (S.conn) { S.conn.close(); clearTimeout(S.conn.retryTimer); } });
addEventListener('pageshow', (e) => { if (e.persisted && S.roomId && S.conn) connect(); });
const route = new URLSearchParams(location.search);
const room = route.get('room');
const replay = route.get('replay');
const player = route.get('player');
const offset = Math.max(0, Math.floor(Number(route.get('offset')))) || 0;
if (room) adoptTokenFromAddress(room);
if (room) roomPage(room);
else if (replay) replayPage(replay);
else if (player) profilePage(player, offset);
else if (route.has('leaderboard')) leaderboardPage(offset, route.get('provisional') === '1');
else if (route.has('account')) accountPage();
else lobbyPage();
// Who is signed in: the name fields show the player's name; the top bar (but a
// room's, which the game needs) links to the account.
if (!room) accountLink();
loadMe().then((me) => { nameFromPlayer(me); if (!room) accountLink(); });
