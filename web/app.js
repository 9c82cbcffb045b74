// The reference browser client of catan-server (protocol.md). Plain ES module, no
// build step. Pages: the lobby (`/`) and a room (`/?room=<id>`), which shows the
// room's seats before the start and the game after it.

import {
  loadBoard, drawBoard, maritimeRatios, topology, SEAT_COLORS, SEAT_NAMES, RESOURCE_COLORS,
} from './board.js';

const RES = ['lumber', 'brick', 'wool', 'grain', 'ore'];
const DEV_LABELS = {
  knight: 'Knight', road_building: 'Road Building', year_of_plenty: 'Year of Plenty',
  monopoly: 'Monopoly', victory_point: 'Victory Point',
};
const PHASE_LABELS = {
  setup: 'setup', pre_roll: 'roll', discard: 'discard', move_robber: 'move the robber',
  main: 'trade and build', road_building: 'road building', over: 'game over',
};

const $app = document.getElementById('app');
const $modal = document.getElementById('modal');
const $status = document.getElementById('status-line');
const $conn = document.getElementById('conn');

// ---------------------------------------------------------------- helpers

function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else if (k === 'value') e.value = v;
    else if (k === 'checked') e.checked = !!v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const total = (r) => RES.reduce((s, k) => s + (r?.[k] || 0), 0);
function addRes(target, cards, sign) {
  for (const k of RES) {
    const n = (target[k] || 0) + sign * (cards?.[k] || 0);
    if (n) target[k] = n; else delete target[k];
  }
}
const fmtRes = (r) => {
  const parts = RES.filter((k) => r?.[k]).map((k) => `${r[k]} ${k}`);
  return parts.length ? parts.join(', ') : 'nothing';
};
const same = (a, b) => RES.every((k) => (a?.[k] || 0) === (b?.[k] || 0));

async function api(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!res.ok) {
    const msg = data?.error?.message || `${res.status} ${res.statusText}`;
    const err = new Error(msg);
    err.code = data?.error?.code;
    throw err;
  }
  return data;
}

const sessionKey = (id) => `catan.room.${id}`;
function loadSession(id) {
  try { return JSON.parse(localStorage.getItem(sessionKey(id)) || '{}'); } catch { return {}; }
}
function saveSession(id, patch) {
  const s = { ...loadSession(id), ...patch };
  localStorage.setItem(sessionKey(id), JSON.stringify(s));
  return s;
}

function fmtCountdown(deadline) {
  if (!deadline) return '';
  const ms = Math.max(0, deadline - Date.now());
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
function countdown(deadline) {
  return h('span', { class: 'countdown', 'data-deadline': deadline || '' }, fmtCountdown(deadline));
}
setInterval(() => {
  for (const e of document.querySelectorAll('.countdown[data-deadline]')) {
    const d = Number(e.dataset.deadline);
    if (d) e.textContent = fmtCountdown(d);
  }
}, 250);

function showConn(text) {
  if (text) { $conn.textContent = text; $conn.hidden = false; } else { $conn.hidden = true; }
}

// ---------------------------------------------------------------- lobby page

async function lobbyPage() {
  document.title = 'Catan: lobby';
  const form = h('form', { class: 'form-grid', id: 'create-form' },
    h('label', { for: 'opt-players' }, 'Players'),
    h('select', { id: 'opt-players' }, h('option', { value: 4 }, '4'), h('option', { value: 3 }, '3')),
    h('label', { for: 'opt-vp' }, 'Victory points'),
    h('input', { id: 'opt-vp', type: 'number', min: 3, max: 20, value: 10 }),
    h('label', { for: 'opt-map' }, 'Map'),
    h('select', { id: 'opt-map' }, h('option', { value: 'random' }, 'random'), h('option', { value: 'beginner' }, 'beginner')),
    h('label', { for: 'opt-turn' }, 'Turn timer (s, 0 = off)'),
    h('input', { id: 'opt-turn', type: 'number', min: 0, max: 3600, value: 0 }),
    h('label', { for: 'opt-trade' }, 'Trade offer timeout (s)'),
    h('input', { id: 'opt-trade', type: 'number', min: 0, max: 3600, value: 60 }),
    h('label', { for: 'opt-discard' }, 'Discard timeout (s, 0 = off)'),
    h('input', { id: 'opt-discard', type: 'number', min: 0, max: 3600, value: 60 }),
    h('label', { for: 'opt-listed' }, 'Listed in the lobby'),
    h('input', { id: 'opt-listed', type: 'checkbox', checked: true }),
    h('label', { for: 'opt-spectators' }, 'Spectators allowed'),
    h('input', { id: 'opt-spectators', type: 'checkbox', checked: true }),
    h('span'),
    h('button', { type: 'submit', class: 'primary', id: 'create-room' }, 'Create room'),
  );
  const err = h('p', { class: 'error', id: 'create-error' });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const num = (id) => Number(document.getElementById(id).value);
    const body = {
      players: num('opt-players'),
      vp_target: num('opt-vp'),
      map: document.getElementById('opt-map').value,
      turn_timer_secs: num('opt-turn'),
      trade_timeout_secs: num('opt-trade'),
      discard_timeout_secs: num('opt-discard'),
      listed: document.getElementById('opt-listed').checked,
      spectators: document.getElementById('opt-spectators').checked,
    };
    try {
      const r = await api('POST', '/api/rooms', body);
      saveSession(r.room_id, { host_token: r.host_token });
      location.href = `/?room=${r.room_id}`;
    } catch (x) { err.textContent = x.message; }
  });
  const list = h('div', { id: 'room-list' }, h('p', { class: 'muted' }, 'Loading rooms...'));
  $app.replaceChildren(h('div', { class: 'lobby' },
    h('section', { class: 'panel' }, h('h2', {}, 'New room'), form, err),
    h('section', { class: 'panel' }, h('h2', {}, 'Open rooms'), list,
      h('p', { class: 'muted' }, 'Finished games: ', h('a', { href: '/api/games' }, '/api/games'))),
  ));
  const refresh = async () => {
    try {
      const { rooms } = await api('GET', '/api/rooms?limit=50');
      if (!rooms.length) { list.replaceChildren(h('p', { class: 'muted' }, 'No listed rooms yet.')); return; }
      list.replaceChildren(h('table', {},
        h('tr', {}, h('th', {}, 'Room'), h('th', {}, 'Status'), h('th', {}, 'Seats'), h('th', {}, 'VP'), h('th', {}, 'Map')),
        rooms.map((r) => h('tr', {},
          h('td', {}, h('a', { href: `/?room=${r.id}`, class: 'room-link' }, r.id.slice(0, 8))),
          h('td', {}, r.status),
          h('td', {}, `${r.seats.filter((s) => s.occupant).length}/${r.options.players}`),
          h('td', {}, r.options.vp_target),
          h('td', {}, r.options.map)))));
    } catch (x) { list.replaceChildren(h('p', { class: 'error' }, x.message)); }
  };
  refresh();
  setInterval(refresh, 4000);
}

// ---------------------------------------------------------------- room page state

const S = {
  roomId: null,
  session: {},
  room: null,
  you: null,
  view: null,
  legal: [],
  deadline: null,
  offerDeadlines: [],
  gameOver: null,
  lastSeq: null,
  ws: null,
  retries: 0,
  retryTimer: null,
  noRetry: false,
  mode: null, // 'road' | 'settlement' | 'city' while choosing where to build
  pending: null, // request id of the action in flight
  reqN: 0,
  log: [],
  trade: { give: {}, get: {}, to: '', counterTo: null },
  maritime: { give: null, get: null },
  discard: {},
  dialog: null, // 'victim' | 'yop' | 'monopoly'
  dialogData: null,
  setupFirst: 0,
  flash: '',
  form: { name: localStorage.getItem('catan.name') || '' },
  gameOverDismissed: false,
};
window.__catan = S; // for debugging in the console

const seatName = (s) => {
  if (s === null || s === undefined) return 'nobody';
  return S.room?.seats?.[s]?.occupant?.name || `Seat ${s + 1}`;
};
const dot = (s) => h('span', { class: 'seat-dot', style: `background:${SEAT_COLORS[s]}`, title: SEAT_NAMES[s] });
const who = (s) => h('span', { class: 'who' }, dot(s), seatName(s));
const legalOf = (type) => S.legal.filter((a) => a.type === type);
const hasLegal = (type) => S.legal.some((a) => a.type === type);

function logLine(cls, ...parts) {
  S.log.push(h('div', { class: cls }, ...parts));
  if (S.log.length > 400) S.log.splice(0, S.log.length - 400);
}

// ---------------------------------------------------------------- applying events

function setupSeat(index) {
  const n = S.view.options.players;
  const f = S.setupFirst;
  return index < n ? (f + index) % n : (f + 2 * n - 1 - index) % n;
}

function gain(seat, cards, fromBank) {
  const v = S.view;
  v.players[seat].resource_cards += total(cards);
  if (v.me && v.me.seat === seat) addRes(v.me.hand, cards, 1);
  if (fromBank) addRes(v.bank, cards, -1);
}
function lose(seat, cards, toBank) {
  const v = S.view;
  v.players[seat].resource_cards -= total(cards);
  if (v.me && v.me.seat === seat) addRes(v.me.hand, cards, -1);
  if (toBank) addRes(v.bank, cards, 1);
}

function applyEvent(ev) {
  const v = S.view;
  if (!v) return;
  switch (ev.type) {
    case 'turn_started':
      v.current = ev.seat; v.turn = ev.turn; v.dev_card_played = false;
      if (v.me) v.me.dev_cards_new = {};
      logLine('turn', `— Turn ${ev.turn}: `, who(ev.seat));
      break;
    case 'phase_changed':
      v.phase = ev.phase;
      if (ev.phase.name === 'setup') v.current = setupSeat(ev.phase.index);
      if (ev.phase.name === 'over') v.winner = ev.phase.winner;
      break;
    case 'settlement_built':
      v.buildings.push({ vertex: ev.vertex, seat: ev.seat, city: false });
      v.buildings.sort((a, b) => a.vertex - b.vertex);
      v.players[ev.seat].settlements_left -= 1; v.players[ev.seat].public_vp += 1;
      logLine('', who(ev.seat), ` built a settlement (${ev.vertex})`);
      break;
    case 'road_built':
      v.roads.push({ edge: ev.edge, seat: ev.seat });
      v.roads.sort((a, b) => a.edge - b.edge);
      v.players[ev.seat].roads_left -= 1;
      logLine('', who(ev.seat), ` built a road (${ev.edge})`);
      break;
    case 'city_built': {
      const b = v.buildings.find((x) => x.vertex === ev.vertex);
      if (b) b.city = true;
      const p = v.players[ev.seat];
      p.cities_left -= 1; p.settlements_left += 1; p.public_vp += 1;
      logLine('', who(ev.seat), ` built a city (${ev.vertex})`);
      break;
    }
    case 'paid': lose(ev.seat, ev.cards, true); break;
    case 'starting_resources':
      gain(ev.seat, ev.cards, true);
      logLine('', who(ev.seat), ` received ${fmtRes(ev.cards)}`);
      break;
    case 'produced':
      gain(ev.seat, ev.cards, true);
      logLine('', who(ev.seat), ` collected ${fmtRes(ev.cards)}`);
      break;
    case 'dice_rolled':
      v.last_roll = ev.dice;
      logLine('roll', who(ev.seat), ` rolled ${ev.dice[0]} + ${ev.dice[1]} = ${ev.dice[0] + ev.dice[1]}`);
      break;
    case 'shortage': logLine('', `The bank is short of ${ev.resource}: nobody collects it`); break;
    case 'discarded':
      lose(ev.seat, ev.cards, true);
      if (v.phase.name === 'discard') v.phase.pending[ev.seat] = 0;
      logLine('', who(ev.seat), ` discarded ${fmtRes(ev.cards)}`);
      break;
    case 'robber_moved':
      v.robber = ev.tile;
      logLine('', who(ev.seat), ` moved the robber to tile ${ev.tile}`);
      break;
    case 'stolen': {
      const one = ev.resource ? { [ev.resource]: 1 } : null;
      v.players[ev.thief].resource_cards += 1; v.players[ev.victim].resource_cards -= 1;
      if (one && v.me) {
        if (v.me.seat === ev.thief) addRes(v.me.hand, one, 1);
        if (v.me.seat === ev.victim) addRes(v.me.hand, one, -1);
      }
      logLine('', who(ev.thief), ' stole ', ev.resource ? `1 ${ev.resource}` : 'a card', ' from ', who(ev.victim));
      break;
    }
    case 'dev_card_bought':
      v.dev_deck -= 1; v.players[ev.seat].dev_cards += 1;
      if (v.me && v.me.seat === ev.seat && ev.card) {
        v.me.dev_cards[ev.card] = (v.me.dev_cards[ev.card] || 0) + 1;
        v.me.dev_cards_new[ev.card] = (v.me.dev_cards_new[ev.card] || 0) + 1;
      }
      logLine('', who(ev.seat), ev.card ? ` bought a development card (${DEV_LABELS[ev.card]})` : ' bought a development card');
      break;
    case 'dev_card_played':
      v.players[ev.seat].dev_cards -= 1; v.dev_card_played = true;
      if (ev.card === 'knight') v.players[ev.seat].knights_played += 1;
      if (v.me && v.me.seat === ev.seat) {
        v.me.dev_cards[ev.card] -= 1;
        if (!v.me.dev_cards[ev.card]) delete v.me.dev_cards[ev.card];
      }
      logLine('', who(ev.seat), ` played ${DEV_LABELS[ev.card]}`);
      break;
    case 'year_of_plenty':
      gain(ev.seat, ev.cards, true);
      logLine('', who(ev.seat), ` took ${fmtRes(ev.cards)} from the bank`);
      break;
    case 'monopoly': {
      let got = 0;
      ev.taken.forEach((n, s) => {
        if (!n || s >= v.players.length) return;
        lose(s, { [ev.resource]: n }, false); got += n;
      });
      gain(ev.seat, { [ev.resource]: got }, false);
      logLine('', who(ev.seat), ` took every ${ev.resource} (${got})`);
      break;
    }
    case 'maritime_traded':
      lose(ev.seat, ev.gave, true); gain(ev.seat, ev.got, true);
      logLine('', who(ev.seat), ` traded ${fmtRes(ev.gave)} with the bank for ${fmtRes(ev.got)}`);
      break;
    case 'offer_made':
      v.offers.push(ev.offer);
      logLine('', who(ev.offer.from), ev.offer.counter_to ? ` countered #${ev.offer.counter_to}` : ' offered',
        ` #${ev.offer.id} to `, ev.offer.to === null ? 'everyone' : who(ev.offer.to),
        `: gives ${fmtRes(ev.offer.give)}, wants ${fmtRes(ev.offer.get)}`);
      break;
    case 'offer_accepted': {
      const o = v.offers.find((x) => x.id === ev.offer);
      if (o) { o.accepted |= 1 << ev.seat; o.rejected &= ~(1 << ev.seat); }
      logLine('', who(ev.seat), ` accepted offer #${ev.offer}`);
      break;
    }
    case 'offer_rejected': {
      const o = v.offers.find((x) => x.id === ev.offer);
      if (o) { o.rejected |= 1 << ev.seat; o.accepted &= ~(1 << ev.seat); }
      logLine('', who(ev.seat), ` rejected offer #${ev.offer}`);
      break;
    }
    case 'offer_closed':
      v.offers = v.offers.filter((x) => x.id !== ev.offer);
      if (S.trade.counterTo === ev.offer) S.trade = { give: {}, get: {}, to: '', counterTo: null };
      logLine('muted', `Offer #${ev.offer} closed (${ev.reason.replace('_', ' ')})`);
      break;
    case 'trade_completed':
      lose(ev.from, ev.gave, false); gain(ev.to, ev.gave, false);
      lose(ev.to, ev.got, false); gain(ev.from, ev.got, false);
      logLine('', who(ev.from), ` traded ${fmtRes(ev.gave)} to `, who(ev.to), ` for ${fmtRes(ev.got)}`);
      break;
    case 'longest_road':
      if (v.longest_road !== null && v.longest_road !== undefined) v.players[v.longest_road].public_vp -= 2;
      v.longest_road = ev.holder;
      if (ev.holder !== null) v.players[ev.holder].public_vp += 2;
      logLine('', 'Longest Road: ', ev.holder === null ? 'nobody' : who(ev.holder), ev.holder === null ? '' : ` (${ev.length})`);
      break;
    case 'largest_army':
      if (v.largest_army !== null && v.largest_army !== undefined) v.players[v.largest_army].public_vp -= 2;
      v.largest_army = ev.holder;
      if (ev.holder !== null) v.players[ev.holder].public_vp += 2;
      logLine('', 'Largest Army: ', who(ev.holder), ` (${ev.knights} knights)`);
      break;
    case 'timed_out': logLine('muted', who(ev.seat), ' ran out of time'); break;
    case 'game_won':
      v.winner = ev.seat;
      logLine('turn', who(ev.seat), ` wins with ${ev.points} points!`);
      break;
    default: break; // unknown events are skipped (protocol.md 2.4)
  }
}

// ---------------------------------------------------------------- connection

function wsUrl(withLastSeq) {
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const q = new URLSearchParams();
  if (S.session.token) q.set('token', S.session.token);
  if (withLastSeq && S.lastSeq !== null) q.set('last_seq', String(S.lastSeq));
  return `${proto}://${location.host}/api/rooms/${S.roomId}/ws?${q}`;
}

function connect(resume) {
  clearTimeout(S.retryTimer);
  if (S.ws) { S.ws.intentional = true; S.ws.close(); }
  const ws = new WebSocket(wsUrl(resume));
  S.ws = ws;
  ws.onopen = () => { S.retries = 0; showConn(''); };
  ws.onmessage = (m) => {
    if (S.ws !== ws) return;
    let msg;
    try { msg = JSON.parse(m.data); } catch { return; }
    onMessage(msg);
  };
  ws.onclose = (ev) => {
    if (ws.intentional || S.ws !== ws) return;
    S.pending = null;
    if (ev.code === 4000) {
      showConn('This seat was opened in another tab or device.');
      return;
    }
    if (ev.code === 4010) {
      showConn('The room was closed or you left your seat.');
      return;
    }
    const delay = Math.min(10000, 500 * 2 ** S.retries);
    S.retries += 1;
    showConn(`Connection lost; reconnecting in ${Math.round(delay / 100) / 10}s...`);
    S.retryTimer = setTimeout(() => connect(S.lastSeq !== null), delay);
  };
}

function send(obj) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(obj));
}

function act(action) {
  if (S.pending) return;
  S.reqN += 1;
  const id = `r${S.reqN}`;
  S.pending = id;
  S.mode = null;
  send({ type: 'action', request_id: id, action });
  render();
}

const SEQUENCED = new Set(['events', 'chat', 'presence', 'room', 'game_over']);

function onMessage(msg) {
  if (SEQUENCED.has(msg.type)) {
    if (S.lastSeq !== null && msg.seq <= S.lastSeq) return; // duplicate
    if (S.lastSeq !== null && msg.seq > S.lastSeq + 1) { connect(true); return; } // gap
    S.lastSeq = msg.seq;
  }
  switch (msg.type) {
    case 'snapshot':
      if (msg.protocol_version !== 1) {
        showConn(`Unsupported protocol version ${msg.protocol_version}`);
        S.ws.intentional = true; S.ws.close();
        return;
      }
      S.room = msg.room; S.you = msg.you; S.view = msg.view; S.legal = msg.legal || [];
      S.deadline = msg.deadline; S.offerDeadlines = msg.offer_deadlines || [];
      S.gameOver = msg.game_over; S.lastSeq = msg.seq; S.pending = null;
      if (S.view && !S.log.length && S.view.turn > 0) logLine('muted', `— joined the game at turn ${S.view.turn} —`);
      if (S.view && S.view.phase.name === 'setup') {
        const n = S.view.options.players;
        const k = S.view.phase.index;
        const back = k < n ? k : 2 * n - 1 - k;
        S.setupFirst = (((S.view.current - back) % n) + n) % n;
      }
      break;
    case 'events':
      for (const ev of msg.events) applyEvent(ev);
      S.legal = msg.legal || [];
      S.deadline = msg.deadline ?? null;
      S.offerDeadlines = msg.offer_deadlines || [];
      if (msg.request_id && msg.request_id === S.pending) S.pending = null;
      break;
    case 'rejected':
      if (msg.request_id === S.pending) S.pending = null;
      S.flash = `Refused: ${msg.message} (${msg.code})`;
      break;
    case 'error':
      S.flash = `Error: ${msg.message}`;
      break;
    case 'chat':
      logLine('chat', msg.seat === undefined || msg.seat === null ? h('b', {}, `${msg.name}: `) : h('b', {}, dot(msg.seat), `${msg.name}: `), msg.text);
      break;
    case 'presence':
      if (S.room?.seats?.[msg.seat]) S.room.seats[msg.seat].connected = msg.connected;
      break;
    case 'room':
      S.room = msg.room;
      break;
    case 'resumed':
      S.legal = msg.legal || []; S.deadline = msg.deadline ?? null;
      S.offerDeadlines = msg.offer_deadlines || []; S.lastSeq = msg.seq; S.pending = null;
      break;
    case 'game_over':
      S.gameOver = msg;
      break;
    default: break;
  }
  render();
}

// ---------------------------------------------------------------- room page

async function roomPage(id) {
  S.roomId = id;
  S.session = loadSession(id);
  document.title = 'Catan: room';
  try {
    S.room = await api('GET', `/api/rooms/${id}`);
  } catch (x) {
    $app.replaceChildren(h('div', { class: 'panel' }, h('p', { class: 'error' }, `Room ${id}: ${x.message}`), h('a', { href: '/' }, 'Back to the lobby')));
    return;
  }
  await loadBoard();
  if (S.session.token || S.room.options.spectators) connect(false);
  else pollRoom();
  render();
}

async function pollRoom() {
  if (S.session.token || S.ws) return;
  try { S.room = await api('GET', `/api/rooms/${S.roomId}`); render(); } catch { /* keep polling */ }
  setTimeout(pollRoom, 2000);
}

function render() {
  if (!S.room) return;
  const flash = S.flash ? h('p', { class: 'error', id: 'flash' }, S.flash) : null;
  if (!S.view) renderRoomLobby(flash);
  else renderGame(flash);
  renderModal();
}

function renderRoomLobby(flash) {
  const r = S.room;
  const link = `${location.origin}/?room=${r.id}`;
  const free = r.seats.filter((s) => !s.occupant);
  const host = S.session.host_token;
  $status.textContent = `Room ${r.id.slice(0, 8)} · ${r.status}`;
  const seats = h('table', { id: 'seats' },
    h('tr', {}, h('th', {}, 'Seat'), h('th', {}, 'Player'), h('th', {}, 'Online')),
    r.seats.map((s) => h('tr', {},
      h('td', {}, dot(s.seat), `${s.seat + 1}`),
      h('td', {}, s.occupant ? `${s.occupant.name}${s.occupant.bot ? ` (${s.occupant.bot} bot)` : ''}${S.you === s.seat && S.session.token ? ' (you)' : ''}` : h('span', { class: 'muted' }, 'free')),
      h('td', {}, s.connected ? 'yes' : 'no'))));
  const parts = [
    h('h2', {}, 'Room'),
    h('p', {}, `${r.options.players} players · ${r.options.vp_target} VP · ${r.options.map} map · turn timer ${r.options.turn_timer_secs || 'off'} · trade timeout ${r.options.trade_timeout_secs}s · discard timeout ${r.options.discard_timeout_secs || 'off'} · ${r.options.listed ? 'listed' : 'unlisted'} · spectators ${r.options.spectators ? 'allowed' : 'not allowed'}`),
    h('label', {}, 'Join link: ', h('input', { class: 'share', id: 'share-link', readonly: true, value: link, onclick: (e) => e.target.select() })),
    h('button', { id: 'copy-link', onclick: () => navigator.clipboard?.writeText(link).then(() => { S.flash = 'Link copied'; render(); }) }, 'Copy link'),
    seats,
  ];
  const side = [];
  if (r.status === 'lobby' && !S.session.token) {
    const name = h('input', {
      id: 'join-name', maxlength: 32, placeholder: 'your name', value: S.form.name,
      oninput: (e) => { S.form.name = e.target.value; },
    });
    side.push(h('h3', {}, 'Take a seat'), name,
      h('button', {
        class: 'primary', id: 'join', disabled: !free.length,
        onclick: async () => {
          try {
            const nm = S.form.name.trim();
            localStorage.setItem('catan.name', nm);
            const t = await api('POST', `/api/rooms/${r.id}/seats`, { name: nm });
            S.session = saveSession(r.id, { token: t.token, seat: t.seat, name: nm });
            S.flash = '';
            connect(false);
          } catch (x) { S.flash = x.message; render(); }
        },
      }, 'Join'),
      r.options.spectators ? h('p', { class: 'muted' }, 'Not joining? You are watching as a spectator.') : null);
  } else if (r.status === 'lobby' && S.session.token) {
    side.push(h('p', {}, `You are seat ${S.session.seat + 1}.`),
      h('button', {
        id: 'leave',
        onclick: async () => {
          try {
            await api('DELETE', `/api/rooms/${r.id}/seats/${S.session.seat}`, undefined, S.session.token);
          } catch (x) { S.flash = x.message; }
          S.session = saveSession(r.id, { token: null, seat: null });
          S.you = null;
          if (r.options.spectators) connect(false); else { S.ws = null; pollRoom(); }
          render();
        },
      }, 'Leave seat'));
  }
  if (host && r.status === 'lobby') {
    const kind = h('select', { id: 'bot-kind' }, h('option', { value: 'random' }, 'random bot'), h('option', { value: 'heuristic' }, 'heuristic bot'));
    side.push(h('h3', {}, 'Host'), kind,
      h('button', {
        id: 'add-bot', disabled: !free.length,
        onclick: async () => {
          try { await api('POST', `/api/rooms/${r.id}/bots`, { kind: kind.value }, host); S.flash = ''; } catch (x) {
            S.flash = x.code === 'bad_request' && kind.value !== 'random' ? `This server does not offer ${kind.value} bots` : x.message;
          }
          if (!S.ws) { S.room = await api('GET', `/api/rooms/${r.id}`); }
          render();
        },
      }, 'Add bot'),
      h('button', {
        class: 'primary', id: 'start', disabled: free.length > 0,
        onclick: async () => {
          try { await api('POST', `/api/rooms/${r.id}/start`, undefined, host); S.flash = ''; } catch (x) { S.flash = x.message; render(); }
        },
      }, 'Start game'));
  }
  if (r.status !== 'lobby' && !S.view) {
    side.push(h('p', { class: 'muted' }, r.options.spectators || S.session.token ? 'Loading the game...' : 'This room does not allow spectators.'));
  }
  $app.replaceChildren(h('div', { class: 'lobby' },
    h('section', { class: 'panel' }, parts),
    h('section', { class: 'panel' }, side, flash, chatPanel())));
}

function chatPanel() {
  const log = h('div', { class: 'log', id: 'log' }, S.log);
  const input = h('input', { id: 'chat-input', maxlength: 500, placeholder: 'chat', value: S.form.chat || '', oninput: (e) => { S.form.chat = e.target.value; } });
  const form = h('form', {
    id: 'chat-form',
    onsubmit: (e) => {
      e.preventDefault();
      const text = (S.form.chat || '').trim();
      if (text) send({ type: 'chat', text });
      S.form.chat = '';
      input.value = '';
    },
  }, input, h('button', { type: 'submit' }, 'Send'));
  requestAnimationFrame(() => { log.scrollTop = log.scrollHeight; });
  return h('div', {}, h('h3', {}, 'Log and chat'), log, form);
}

// ---------------------------------------------------------------- the game

function phasePrompt() {
  const v = S.view;
  const mine = S.you !== null && v.current === S.you;
  if (v.phase.name === 'over') return `${seatName(v.winner)} won the game.`;
  if (S.you === null) return `Spectating: ${seatName(v.current)} to ${PHASE_LABELS[v.phase.name]}`;
  if (S.pending) return 'Waiting for the server...';
  if (hasLegal('discard')) return `Discard ${v.phase.pending[S.you]} cards.`;
  if (v.phase.name === 'discard') return 'Waiting for others to discard...';
  if (!mine) {
    if (hasLegal('accept_offer') || hasLegal('reject_offer')) return 'An offer awaits your answer.';
    return `Waiting for ${seatName(v.current)} (${PHASE_LABELS[v.phase.name]})`;
  }
  switch (v.phase.name) {
    case 'setup': return v.phase.settlement === null ? 'Place a settlement on a highlighted spot.' : 'Place a road next to it.';
    case 'pre_roll': return 'Roll the dice (or play a development card).';
    case 'move_robber': return 'Move the robber: click a highlighted tile.';
    case 'road_building': return `Place a free road (${v.phase.remaining} left).`;
    case 'main':
      if (S.mode) return `Choose where to build a ${S.mode} (click the button again to cancel).`;
      return 'Build, trade or end your turn.';
    default: return '';
  }
}

function highlights() {
  const hl = { vertices: new Map(), edges: new Set(), tiles: new Set() };
  if (S.pending || S.you === null) return hl;
  const ph = S.view.phase.name;
  const auto = ph === 'setup' || ph === 'road_building';
  if (auto || S.mode === 'settlement') for (const a of legalOf('build_settlement')) hl.vertices.set(a.vertex, 'settlement');
  if (S.mode === 'city') for (const a of legalOf('build_city')) hl.vertices.set(a.vertex, 'city');
  if (auto || S.mode === 'road') for (const a of legalOf('build_road')) hl.edges.add(a.edge);
  for (const a of legalOf('move_robber')) hl.tiles.add(a.tile);
  return hl;
}

function onPick(kind, id) {
  if (S.pending) return;
  if (kind === 'settlement') act({ type: 'build_settlement', vertex: id });
  else if (kind === 'city') act({ type: 'build_city', vertex: id });
  else if (kind === 'edge') act({ type: 'build_road', edge: id });
  else if (kind === 'tile') {
    const options = legalOf('move_robber').filter((a) => a.tile === id);
    if (options.length === 1) act({ type: 'move_robber', tile: id, victim: options[0].victim });
    else if (options.length > 1) { S.dialog = 'victim'; S.dialogData = { tile: id, options }; render(); }
  }
}

function renderGame(flash) {
  const v = S.view;
  const me = S.you;
  const dice = v.last_roll ? `${'⚀⚁⚂⚃⚄⚅'[v.last_roll[0] - 1]}${'⚀⚁⚂⚃⚄⚅'[v.last_roll[1] - 1]} ${v.last_roll[0] + v.last_roll[1]}` : '–';
  $status.replaceChildren(...[
    h('span', { id: 'turn-info' }, `Turn ${v.turn} · `, who(v.current), ` · ${PHASE_LABELS[v.phase.name]}`),
    ' · ', h('span', { class: 'dice', id: 'dice', title: 'last roll' }, dice),
    S.deadline ? h('span', {}, ' · ⏱ ', countdown(S.deadline)) : null,
    me === null ? ' · spectator' : null,
  ].filter((x) => x !== null));

  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.id = 'board';
  drawBoard(svg, v, highlights(), onPick);
  const boardWrap = h('section', { class: 'board-wrap panel' },
    h('div', { class: 'prompt', id: 'prompt' }, phasePrompt()), flash, svg);

  const side = [playersPanel()];
  if (me !== null && v.phase.name !== 'over') side.push(actionsPanel(), handPanel(), tradePanel(), offersPanel());
  else side.push(offersPanel());
  side.push(bankPanel(), h('section', { class: 'panel' }, chatPanel()));
  $app.replaceChildren(h('div', { class: 'game' }, boardWrap, h('div', { class: 'side' }, side)));
}

function playersPanel() {
  const v = S.view;
  return h('section', { class: 'panel' }, h('h3', {}, 'Players'),
    h('table', { id: 'players' },
      h('tr', {}, h('th', {}, 'Player'), h('th', { title: 'victory points' }, 'VP'), h('th', { title: 'resource cards' }, 'Cards'), h('th', { title: 'development cards' }, 'Dev'), h('th', { title: 'knights played' }, 'Knights'), h('th', { title: 'longest route' }, 'Road')),
      v.players.map((p) => {
        const seat = S.room.seats[p.seat];
        const vp = v.me && v.me.seat === p.seat ? `${p.public_vp + (v.me.dev_cards.victory_point || 0)}` : `${p.public_vp}`;
        return h('tr', { class: p.seat === v.current ? 'current' : '', 'data-seat': p.seat },
          h('td', {}, dot(p.seat), seatName(p.seat), seat?.occupant?.bot ? h('span', { class: 'badge' }, 'bot') : null,
            p.seat === S.you ? h('span', { class: 'badge' }, 'you') : null,
            seat && !seat.connected ? h('span', { class: 'badge', title: 'disconnected' }, 'away') : null,
            v.longest_road === p.seat ? h('span', { class: 'badge', title: 'Longest Road' }, '🛣 LR') : null,
            v.largest_army === p.seat ? h('span', { class: 'badge', title: 'Largest Army' }, '⚔ LA') : null),
          h('td', { class: 'vp' }, vp),
          h('td', {}, p.resource_cards),
          h('td', {}, p.dev_cards),
          h('td', {}, p.knights_played),
          h('td', {}, p.road_length));
      })),
    h('p', { class: 'muted' }, `First to ${v.options.vp_target} VP wins. Longest Road: `,
      v.longest_road === null ? 'nobody' : who(v.longest_road), ' · Largest Army: ',
      v.largest_army === null ? 'nobody' : who(v.largest_army)));
}

function button(id, label, enabled, onclick, extra = {}) {
  return h('button', { id, disabled: !enabled || !!S.pending, onclick, ...extra }, label);
}

function actionsPanel() {
  const v = S.view;
  const main = v.phase.name === 'main';
  const modeBtn = (mode, label, type, cost) => button(`build-${mode}`, label, main && hasLegal(type),
    () => { S.mode = S.mode === mode ? null : mode; render(); },
    { class: S.mode === mode ? 'active' : '', title: cost });
  return h('section', { class: 'panel', id: 'actions' }, h('h3', {}, 'Actions'),
    h('div', {},
      button('roll', 'Roll dice', hasLegal('roll_dice'), () => act({ type: 'roll_dice' }), { class: 'primary' }),
      modeBtn('road', 'Road', 'build_road', '1 lumber, 1 brick'),
      modeBtn('settlement', 'Settlement', 'build_settlement', '1 lumber, 1 brick, 1 wool, 1 grain'),
      modeBtn('city', 'City', 'build_city', '2 grain, 3 ore'),
      button('buy-dev', 'Buy development card', hasLegal('buy_dev_card'), () => act({ type: 'buy_dev_card' }), { title: '1 wool, 1 grain, 1 ore' }),
      button('end-turn', 'End turn', hasLegal('end_turn'), () => act({ type: 'end_turn' }), { class: 'primary' })),
    h('div', {},
      button('play-knight', 'Play Knight', hasLegal('play_knight'), () => act({ type: 'play_knight' })),
      button('play-road-building', 'Play Road Building', hasLegal('play_road_building'), () => act({ type: 'play_road_building' })),
      button('play-yop', 'Play Year of Plenty...', hasLegal('play_year_of_plenty'), () => { S.dialog = 'yop'; render(); }),
      button('play-monopoly', 'Play Monopoly...', hasLegal('play_monopoly'), () => { S.dialog = 'monopoly'; render(); })));
}

function handPanel() {
  const m = S.view.me;
  if (!m) return null;
  const devs = Object.entries(m.dev_cards).filter(([, n]) => n > 0);
  return h('section', { class: 'panel', id: 'hand' }, h('h3', {}, `Your hand · ${S.view.players[m.seat].public_vp + (m.dev_cards.victory_point || 0)} VP`),
    h('div', { class: 'cards' }, RES.map((r) => h('span', {
      class: 'card', style: `background:${RESOURCE_COLORS[r]}`, 'data-resource': r,
    }, `${r} ${m.hand[r] || 0}`))),
    h('div', { class: 'cards', style: 'margin-top:.4em' }, devs.length
      ? devs.map(([k, n]) => h('span', { class: 'card', 'data-dev': k }, `${DEV_LABELS[k]} ×${n}${m.dev_cards_new[k] ? ` (${m.dev_cards_new[k]} new)` : ''}`))
      : h('span', { class: 'muted' }, 'no development cards')));
}

function stepper(obj, r, max, onchange, prefix) {
  const n = obj[r] || 0;
  return h('span', { class: 'stepper' },
    h('button', { type: 'button', 'data-step': `${prefix}-${r}-minus`, disabled: n <= 0, onclick: () => { obj[r] = n - 1; if (!obj[r]) delete obj[r]; onchange(); } }, '−'),
    h('span', { style: `border-bottom:3px solid ${RESOURCE_COLORS[r]}` }, `${r} ${n}`),
    h('button', { type: 'button', 'data-step': `${prefix}-${r}-plus`, disabled: n >= max, onclick: () => { obj[r] = n + 1; onchange(); } }, '+'));
}

function tradePanel() {
  const v = S.view;
  const m = v.me;
  const parts = [];
  const mar = legalOf('maritime_trade');
  if (mar.length) {
    const ratios = maritimeRatios(v, S.you);
    const gives = [...new Set(mar.map((a) => a.give))];
    if (!gives.includes(S.maritime.give)) S.maritime.give = gives[0];
    const gets = mar.filter((a) => a.give === S.maritime.give).map((a) => a.get);
    if (!gets.includes(S.maritime.get)) S.maritime.get = gets[0];
    parts.push(h('h3', {}, 'Trade with the bank'),
      h('select', { id: 'maritime-give', onchange: (e) => { S.maritime.give = e.target.value; render(); } },
        gives.map((g) => h('option', { value: g, selected: g === S.maritime.give }, `${ratios[RES.indexOf(g)]} ${g}`))),
      ' for 1 ',
      h('select', { id: 'maritime-get', onchange: (e) => { S.maritime.get = e.target.value; } },
        gets.map((g) => h('option', { value: g, selected: g === S.maritime.get }, g))),
      button('maritime', 'Trade', true, () => act({ type: 'maritime_trade', give: S.maritime.give, get: S.maritime.get })),
      h('p', { class: 'muted' }, `Your ratios: ${RES.map((r, i) => `${r} ${ratios[i]}:1`).join(', ')}`));
  }
  const t = S.trade;
  const canOffer = hasLegal('offer_trade');
  const counterable = t.counterTo !== null && legalOf('counter_offer').some((a) => a.offer === t.counterTo);
  if (canOffer || counterable) {
    const rerender = () => render();
    const overlap = RES.some((r) => t.give[r] && t.get[r]);
    const ok = total(t.give) > 0 && total(t.get) > 0 && !overlap;
    const opponents = v.players.map((p) => p.seat).filter((s) => s !== S.you);
    parts.push(h('h3', {}, counterable ? `Counter-offer to #${t.counterTo}` : 'Offer a trade'),
      h('div', {}, 'You give: ', RES.map((r) => stepper(t.give, r, m.hand[r] || 0, rerender, 'give'))),
      h('div', {}, 'You get: ', RES.map((r) => stepper(t.get, r, 19, rerender, 'get'))),
      counterable ? null : h('label', {}, 'To: ', h('select', { id: 'offer-to', onchange: (e) => { t.to = e.target.value; } },
        h('option', { value: '' }, 'everyone'),
        opponents.map((s) => h('option', { value: s, selected: String(s) === t.to }, seatName(s))))),
      counterable
        ? [button('send-counter', 'Send counter-offer', ok, () => {
          act({ type: 'counter_offer', offer: t.counterTo, give: { ...t.give }, get: { ...t.get } });
          S.trade = { give: {}, get: {}, to: '', counterTo: null };
        }), h('button', { onclick: () => { S.trade = { give: {}, get: {}, to: '', counterTo: null }; render(); } }, 'Cancel')]
        : button('send-offer', 'Offer', ok, () => {
          act({ type: 'offer_trade', to: t.to === '' ? null : Number(t.to), give: { ...t.give }, get: { ...t.get } });
          S.trade = { give: {}, get: {}, to: t.to, counterTo: null };
        }),
      overlap ? h('p', { class: 'error' }, 'A resource cannot be on both sides.') : null);
  }
  return parts.length ? h('section', { class: 'panel', id: 'trade' }, parts) : null;
}

function seatsIn(mask) {
  return S.view.players.map((p) => p.seat).filter((s) => mask & (1 << s));
}

function offersPanel() {
  const v = S.view;
  if (!v.offers.length) return null;
  return h('section', { class: 'panel', id: 'offers' }, h('h3', {}, 'Open offers'),
    v.offers.map((o) => {
      const dl = S.offerDeadlines.find((d) => d.offer === o.id);
      const acc = seatsIn(o.accepted);
      const rej = seatsIn(o.rejected);
      const mine = (type) => S.legal.find((a) => a.type === type && a.offer === o.id);
      const confirms = S.legal.filter((a) => a.type === 'confirm_trade' && a.offer === o.id);
      return h('div', { class: 'offer', 'data-offer': o.id },
        h('div', {}, `#${o.id} `, who(o.from), ' → ', o.to === null ? 'everyone' : who(o.to),
          o.counter_to ? ` (counter to #${o.counter_to})` : '', dl ? [' ⏱ ', countdown(dl.deadline)] : null),
        h('div', {}, `gives ${fmtRes(o.give)}, wants ${fmtRes(o.get)}`),
        acc.length || rej.length ? h('div', { class: 'muted' },
          acc.length ? ['accepted: ', acc.map((s) => who(s))] : null, ' ',
          rej.length ? ['rejected: ', rej.map((s) => who(s))] : null) : null,
        h('div', {},
          mine('accept_offer') ? button(`accept-${o.id}`, 'Accept', true, () => act({ type: 'accept_offer', offer: o.id })) : null,
          mine('reject_offer') ? button(`reject-${o.id}`, 'Reject', true, () => act({ type: 'reject_offer', offer: o.id })) : null,
          mine('counter_offer') ? button(`counter-${o.id}`, 'Counter...', true, () => {
            S.trade = { give: { ...o.get }, get: { ...o.give }, to: '', counterTo: o.id }; render();
          }) : null,
          confirms.map((a) => button(`confirm-${o.id}-${a.with}`, `Trade with ${seatName(a.with)}`, true, () => act({ type: 'confirm_trade', offer: o.id, with: a.with }))),
          mine('withdraw_offer') ? button(`withdraw-${o.id}`, 'Withdraw', true, () => act({ type: 'withdraw_offer', offer: o.id })) : null));
    }));
}

function bankPanel() {
  const v = S.view;
  return h('section', { class: 'panel', id: 'bank' }, h('h3', {}, 'Bank'),
    h('div', { class: 'cards' }, RES.map((r) => h('span', { class: 'card', style: `background:${RESOURCE_COLORS[r]}` }, `${r} ${v.bank[r] || 0}`)),
      h('span', { class: 'card' }, `dev cards ${v.dev_deck}`)));
}

// ---------------------------------------------------------------- dialogs

function dialog(id, title, ...body) {
  return h('div', { class: 'dialog', id, role: 'dialog', 'aria-label': title }, h('h2', {}, title), ...body);
}

function renderModal() {
  let content = null;
  const v = S.view;
  if (S.gameOver && !S.gameOverDismissed) content = gameOverDialog();
  else if (v && hasLegal('discard') && !S.pending) {
    const owed = v.phase.pending[S.you];
    const chosen = total(S.discard);
    content = dialog('discard-dialog', `Discard ${owed} cards`,
      h('p', {}, `A 7 was rolled and you hold more than 7 cards: choose exactly ${owed}.`),
      h('div', {}, RES.map((r) => stepper(S.discard, r, Math.min(v.me.hand[r] || 0, (S.discard[r] || 0) + owed - chosen), render, 'discard'))),
      h('p', {}, `${chosen} / ${owed} chosen`),
      button('discard-confirm', 'Discard', chosen === owed, () => { const cards = { ...S.discard }; S.discard = {}; act({ type: 'discard', cards }); }, { class: 'primary' }));
  } else if (v && S.dialog === 'victim' && !S.pending) {
    const { tile, options } = S.dialogData;
    content = dialog('victim-dialog', 'Rob whom?',
      options.map((a) => button(`victim-${a.victim}`, [dot(a.victim), `${seatName(a.victim)} (${v.players[a.victim].resource_cards} cards)`], true,
        () => { S.dialog = null; act({ type: 'move_robber', tile, victim: a.victim }); })),
      h('button', { onclick: () => { S.dialog = null; render(); } }, 'Cancel'));
  } else if (v && S.dialog === 'yop' && hasLegal('play_year_of_plenty') && !S.pending) {
    content = dialog('yop-dialog', 'Year of Plenty: take two cards',
      legalOf('play_year_of_plenty').map((a, i) => button(`yop-${i}`, fmtRes(a.take), true,
        () => { S.dialog = null; act({ type: 'play_year_of_plenty', take: a.take }); })),
      h('div', {}, h('button', { onclick: () => { S.dialog = null; render(); } }, 'Cancel')));
  } else if (v && S.dialog === 'monopoly' && hasLegal('play_monopoly') && !S.pending) {
    content = dialog('monopoly-dialog', 'Monopoly: take every card of',
      legalOf('play_monopoly').map((a) => button(`monopoly-${a.resource}`, a.resource, true,
        () => { S.dialog = null; act({ type: 'play_monopoly', resource: a.resource }); })),
      h('div', {}, h('button', { onclick: () => { S.dialog = null; render(); } }, 'Cancel')));
  } else if (S.dialog && !S.pending) {
    S.dialog = null;
  }
  if (content) { $modal.replaceChildren(content); $modal.hidden = false; } else { $modal.replaceChildren(); $modal.hidden = true; }
}

function gameOverDialog() {
  const g = S.gameOver;
  const scores = [...g.scores].sort((a, b) => b.points - a.points);
  return dialog('game-over', 'Game over',
    h('p', { id: 'winner' }, who(g.winner), ' wins!'),
    h('table', { id: 'final-scores' },
      h('tr', {}, h('th', {}, 'Player'), h('th', {}, 'Points'), h('th', {}, 'VP cards')),
      scores.map((s) => h('tr', {}, h('td', {}, who(s.seat)), h('td', {}, s.points), h('td', {}, s.vp_cards)))),
    h('p', { class: 'muted' }, `Seed ${g.seed} (salt ${g.seed_salt}); check it against the room's commitment.`),
    h('p', {}, h('a', { href: `/api/games/${S.roomId}/replay`, id: 'replay-link', target: '_blank' }, 'Replay (JSON)'), ' · ',
      h('a', { href: '/' }, 'Back to the lobby'), ' · ',
      h('button', { id: 'close-game-over', onclick: () => { S.gameOverDismissed = true; render(); } }, 'Show the board')));
}

// ---------------------------------------------------------------- start

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && (S.mode || S.dialog)) { S.mode = null; S.dialog = null; render(); }
});

const room = new URLSearchParams(location.search).get('room');
if (room) roomPage(room); else lobbyPage();
export { topology };
