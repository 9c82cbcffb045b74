// The admin page (protocol 22), served by the admin listener at /admin/ui: the same
// calls as the admin API, for an operator without a terminal. The page itself holds
// nothing secret; it asks for the admin token once and keeps it for the tab only
// (sessionStorage), sending it as a bearer token with every call. Rooms: list,
// inspect, close, kick a seat with a message the player sees. Players: find by
// name, see their sessions, games and moderation record, mute, ban, lift either.

import { t, refusal, language, setLanguage, LANGUAGES } from './i18n.js';
import { h } from './dom.js';

const TOKEN_KEY = 'catan.admin.token';

/** @typedef {import('./protocol').AdminRoomSummary} AdminRoomSummary */
/** @typedef {import('./protocol').AdminPlayer} AdminPlayer */
/** @typedef {import('./protocol').AdminPlayerDetail} AdminPlayerDetail */

/** A call of the admin API; its JSON answer, or a thrown `{ status, code, message }`. */
async function call(method, path, body) {
  const r = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) || ''}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  const json = text ? JSON.parse(text) : null;
  if (!r.ok) throw { status: r.status, code: json?.error?.code, message: json?.error?.message };
  return json;
}

/** A date and time in the page's language. @param {number} ms */
const when = (ms) => new Date(ms).toLocaleString(language());

/** The outcome of the last thing done, said at the top. */
let said = { text: '', ok: true };
/** The player whose record is open, if any. @type {string | null} */
let openPlayer = null;
/** The room whose inspection is open, if any. @type {string | null} */
let openRoom = null;

async function done(text, ok = true) { said = { text, ok }; await draw(); }
const failed = (e) => done(e?.status === 401 ? t('admin.wrong_token') : refusal(e), false);

function languageSwitcher() {
  const names = { en: 'English', 'zh-Hans': '简体中文', 'zh-Hant': '繁體中文' };
  const sel = /** @type {HTMLSelectElement} */ (h('select', { id: 'lang', 'aria-label': t('language') },
    LANGUAGES.map((l) => h('option', { value: l, selected: l === language() }, names[l]))));
  sel.addEventListener('change', () => { setLanguage(sel.value); document.documentElement.lang = language(); draw(); });
  document.getElementById('lang-slot').replaceChildren(sel);
  document.querySelector('#topbar .brand').textContent = t('admin.title');
  document.title = t('admin.title');
  document.documentElement.lang = language();
}

/** The token form, when the tab has none (or the last one was refused). */
function tokenForm() {
  const input = h('input', { id: 'admin-token', type: 'password', autocomplete: 'off', required: true });
  const form = h('form', { id: 'token-form', class: 'account-form' },
    h('label', { class: 'field' }, h('span', {}, t('admin.token')), input),
    h('button', { type: 'submit', class: 'primary', id: 'token-submit' }, t('admin.enter')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, /** @type {HTMLInputElement} */ (input).value.trim());
    said = { text: '', ok: true };
    await draw();
  });
  return h('section', { class: 'panel' }, h('h1', {}, t('admin.title')), h('p', { class: 'muted' }, t('admin.token_about')), form);
}

/** A text field and its label. */
const field = (id, label, attrs = {}) => h('label', { class: 'field' }, h('span', {}, label), h('input', { id, ...attrs }));
const valueOf = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id))?.value.trim() ?? '';

/** @param {AdminRoomSummary} r */
function roomRow(r) {
  const seats = r.seats.map((s, i) => h('li', { 'data-seat': i, 'data-connected': s.connected ? 'true' : 'false' },
    `${i}: ${s.occupant ? s.occupant.name : t('admin.free')}`, s.occupant?.bot ? ` (${t(`bot.${s.occupant.bot}`)})` : '',
    s.connected ? [' · ', t('admin.connected')] : null,
    s.connected && !s.occupant?.bot ? h('button', {
      type: 'button', class: 'kick', 'data-room': r.id, 'data-seat': i,
      onclick: () => call('POST', `/admin/rooms/${r.id}/seats/${i}/kick`, { message: valueOf(`msg-${r.id}`) || undefined })
        .then(() => done(t('admin.kicked', { seat: i })), failed),
    }, t('admin.kick')) : null));
  return h('li', { class: 'panel admin-room', 'data-room': r.id },
    h('p', {}, h('code', {}, r.id.slice(0, 8)), ' · ', h('b', { class: 'room-status' }, t(`status.${r.status}`)),
      r.phase ? [' · ', h('span', { class: 'room-phase' }, r.phase.name)] : null,
      ' · ', t('admin.spectators', { n: r.spectators })),
    h('ul', { class: 'admin-seats' }, seats),
    field(`msg-${r.id}`, t('admin.message'), { maxlength: 500, placeholder: t('admin.message_hint') }),
    h('p', { class: 'row' },
      h('button', { type: 'button', class: 'inspect', 'data-room': r.id, onclick: () => { openRoom = openRoom === r.id ? null : r.id; draw(); } }, t('admin.inspect')),
      h('button', {
        type: 'button', class: 'danger close-room', 'data-room': r.id,
        onclick: () => call('POST', `/admin/rooms/${r.id}/close`, { message: valueOf(`msg-${r.id}`) || undefined })
          .then((c) => { if (openRoom === r.id) openRoom = null; return done(t('admin.closed', { n: c.connections_closed })); }, failed),
      }, t('admin.close'))));
}

async function inspection(id) {
  const d = await call('GET', `/admin/rooms/${id}?events=20`);
  return h('details', { class: 'panel', id: 'inspection', open: true }, h('summary', {}, t('admin.inspection', { id: id.slice(0, 8) })),
    h('pre', { class: 'admin-json' }, JSON.stringify({ room: d.room, deadline: d.deadline, offers: d.offers, game_over: d.game_over, events: d.events }, null, 1)));
}

/** @param {AdminPlayer} p */
const sanctionText = (p) => [p.banned ? h('span', { class: 'badge banned' }, t('admin.banned')) : null,
  p.muted ? h('span', { class: 'badge muted-badge' }, t('admin.muted')) : null];

/** @param {AdminPlayer} p */
const playerRow = (p) => h('li', { 'data-player': p.id },
  h('button', { type: 'button', class: 'player-open', 'data-player': p.id, onclick: () => { openPlayer = p.id; draw(); } }, p.name),
  ' ', h('span', { class: 'muted' }, t(p.account ? 'account.kind_account' : 'account.kind_guest')), ' ', sanctionText(p));

/** @param {AdminPlayerDetail} d */
function playerRecord(d) {
  const p = d.player;
  const act = (action) => h('button', {
    type: 'button', id: `do-${action}`, class: action === 'ban' ? 'danger' : '',
    onclick: () => {
      const hours = Number(valueOf('mod-hours')) || undefined;
      const body = { reason: valueOf('mod-reason'), by: valueOf('mod-by') || undefined, hours: action === 'ban' || action === 'mute' ? hours : undefined };
      return call('POST', `/admin/players/${p.id}/${action}`, body).then(() => done(t(`admin.done_${action}`, { name: p.name })), failed);
    },
  }, t(`admin.${action}`));
  return h('section', { class: 'panel', id: 'player-record', 'data-player': p.id },
    h('h2', {}, p.name, ' ', sanctionText(p)),
    h('p', { class: 'muted' }, t(p.account ? 'account.kind_account' : 'account.kind_guest'), ' · ', t('admin.since', { date: when(p.created_at) }),
      ' · ', t('admin.rating', { value: d.profile.rating.value }), ' · ', t('admin.games', { n: d.profile.games })),
    p.banned ? h('p', { class: 'error', id: 'ban-line' }, t('admin.banned_for', { reason: p.banned.reason, until: p.banned.until ? when(p.banned.until) : t('admin.until_lifted') })) : null,
    p.muted ? h('p', { class: 'error', id: 'mute-line' }, t('admin.muted_for', { reason: p.muted.reason, until: p.muted.until ? when(p.muted.until) : t('admin.until_lifted') })) : null,
    h('h3', {}, t('account.sessions')),
    h('ul', { id: 'admin-sessions' }, d.sessions.map((s) => h('li', {}, s.label || '—', ' · ', when(s.created_at)))),
    h('h3', {}, t('admin.recent')),
    h('ul', { id: 'admin-games' }, d.profile.recent.map((g) => h('li', {}, h('a', { href: `/?replay=${g.id}` }, g.id.slice(0, 8)), ' · ', when(g.finished_at ?? g.started_at)))),
    h('h3', {}, t('admin.moderate')),
    field('mod-reason', t('admin.reason'), { maxlength: 500 }),
    field('mod-hours', t('admin.hours'), { type: 'number', min: 1, max: 87600, inputmode: 'numeric' }),
    field('mod-by', t('admin.by'), { maxlength: 32 }),
    h('p', { class: 'row' }, act('mute'), act('unmute'), act('ban'), act('unban')),
    h('h3', {}, t('admin.record')),
    h('ol', { id: 'moderation-log' }, d.moderation.map((m) => h('li', { 'data-action': m.action },
      h('b', {}, t(`admin.${m.action}`)), ' · ', m.reason, ' · ', t('admin.by_line', { by: m.by, date: when(m.at) }),
      m.until ? [' · ', t('admin.until', { date: when(m.until) })] : null))));
}

async function draw() {
  languageSwitcher();
  const $app = document.getElementById('app');
  if (!sessionStorage.getItem(TOKEN_KEY)) { $app.replaceChildren(tokenForm()); return; }
  let rooms;
  let players;
  try {
    rooms = (await call('GET', '/admin/rooms')).rooms;
    const q = new URLSearchParams({ limit: '20' });
    if (valueOf('player-search')) q.set('name', valueOf('player-search'));
    players = await call('GET', `/admin/players?${q}`);
  } catch (e) {
    if (e?.status === 401) { sessionStorage.removeItem(TOKEN_KEY); said = { text: t('admin.wrong_token'), ok: false }; $app.replaceChildren(tokenForm(), h('p', { class: 'error', id: 'admin-said' }, said.text)); return; }
    $app.replaceChildren(h('p', { class: 'error', id: 'admin-said' }, refusal(e)));
    return;
  }
  const search = valueOf('player-search');
  let record = null;
  let inspected = null;
  try {
    if (openPlayer) record = playerRecord(await call('GET', `/admin/players/${openPlayer}`));
  } catch (e) { said = { text: refusal(e), ok: false }; openPlayer = null; }
  // A room inspected that has closed since is no longer shown.
  if (openRoom) inspected = await inspection(openRoom).catch(() => { openRoom = null; return null; });
  const searchForm = h('form', { id: 'player-search-form', class: 'row' },
    field('player-search', t('admin.find'), { value: search, maxlength: 32 }),
    h('button', { type: 'submit', id: 'player-search-submit' }, t('admin.search')));
  searchForm.addEventListener('submit', (e) => { e.preventDefault(); draw(); });
  $app.replaceChildren(h('div', { id: 'admin-page' },
    said.text ? h('p', { class: said.ok ? 'ok' : 'error', id: 'admin-said', role: 'status' }, said.text) : null,
    h('section', { class: 'panel' }, h('h2', {}, t('admin.players')), searchForm,
      h('p', { class: 'muted' }, t('admin.found', { n: players.total })),
      h('ul', { id: 'admin-players' }, players.players.map(playerRow))),
    record,
    h('section', { class: 'panel' }, h('h2', {}, t('admin.rooms')),
      rooms.length ? null : h('p', { class: 'muted' }, t('admin.no_rooms')),
      h('p', { class: 'row' }, h('button', { type: 'button', id: 'refresh', onclick: () => draw() }, t('admin.refresh')),
        h('button', { type: 'button', id: 'forget-token', onclick: () => { sessionStorage.removeItem(TOKEN_KEY); done(''); } }, t('admin.forget_token'))),
      h('ul', { id: 'admin-rooms', class: 'admin-rooms' }, rooms.map(roomRow))),
    inspected));
  // The search keeps what was typed across the redraw.
  const input = /** @type {HTMLInputElement | null} */ (document.getElementById('player-search'));
  if (input) input.value = search;
}

draw();
