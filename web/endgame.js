// After the game: the end screen (winner, points by source, the dice histogram, the
// resources gained and lost per seat, the rating change of a rated game, the
// rematch) and the lobby's list of finished games. Every number comes from the
// server: the `stats` of `game_over` (protocol.md 5.2.9), the stored game's rating
// change, nothing counted here. The seed check is kept behind a disclosure. The
// players who come back (account, profile, leaderboard) are players.js's.

import { t, refusal } from './i18n.js';
import { api } from './kit.js';
import { dismissGameOver, setFlash, setRating } from './state.js';
import { h, S, W, who, seatName, occupantName } from './ui.js';
import { seatMark } from './game.js';
import { icon } from './icons.js';
import { provisionalMark, signed } from './players.js';

/** @typedef {import('./protocol').GameOverInfo} GameOverInfo */
/** @typedef {import('./protocol').RematchResponse} RematchResponse */
/** @typedef {import('./protocol').GameList} GameList */
/** @typedef {import('./protocol').GameSummary} GameSummary */

const POINT_SOURCES = /** @type {const} */ (['settlements', 'cities', 'vp_cards', 'longest_road', 'largest_army']);
const GAINED = /** @type {const} */ (['setup', 'production', 'trades', 'maritime', 'stolen', 'year_of_plenty', 'monopoly']);
const LOST = /** @type {const} */ (['spent', 'discarded', 'stolen', 'monopoly', 'trades', 'maritime']);

/** A table with one row per source and one column per seat. */
function bySeat(id, seats, rows) {
  return h('div', { class: 'scroll-x' }, h('table', { id, class: 'stats' },
    // Each seat's mark and name over its column (the name cut short on a phone: four
    // columns fit 390 px).
    h('tr', {}, h('th', {}), seats.map((s) => h('th', { 'data-seat': s, title: seatName(s) }, seatMark(s), h('span', { class: 'th-name' }, seatName(s))))),
    rows));
}

/** Points by source, the total last. @param {GameOverInfo} g */
function pointsTable(g) {
  const pts = g.stats.points;
  const seats = pts.map((p) => p.seat);
  return bySeat('points-by-source', seats, [
    ...POINT_SOURCES.map((k) => h('tr', { 'data-source': k }, h('th', {}, t(`end.pts.${k}`)),
      pts.map((p) => h('td', { 'data-seat': p.seat }, p[k])))),
    h('tr', { class: 'total', 'data-source': 'total' }, h('th', {}, t('points')),
      pts.map((p) => h('td', { 'data-seat': p.seat }, p.total))),
  ]);
}

/** How often each total was rolled: simple CSS bars. @param {GameOverInfo} g */
function diceHistogram(g) {
  const counts = g.stats.dice;
  const max = Math.max(1, ...counts);
  return h('div', { id: 'dice-histogram', class: 'histogram', role: 'img', 'aria-label': t('end.dice') },
    counts.map((n, i) => h('div', { class: 'bar-col', 'data-total': i + 2, 'data-count': n, title: `${i + 2}: ${n}` },
      h('span', { class: 'bar-n' }, n),
      h('span', { class: 'bar', style: `height:${Math.round((n / max) * 100)}%` }),
      h('span', { class: 'bar-label' }, i + 2))));
}

/** Cards gained by source and lost by cause, per seat. @param {GameOverInfo} g */
function resourceTables(g) {
  const flows = g.stats.resources;
  const seats = flows.map((f) => f.seat);
  const row = (side, k) => h('tr', { 'data-side': side, 'data-source': k }, h('th', {}, t(`end.${side}.${k}`)),
    flows.map((f) => h('td', { 'data-seat': f.seat }, f[side][k])));
  return [
    h('h3', {}, t('end.gained')), bySeat('resources-gained', seats, GAINED.map((k) => row('gained', k))),
    h('h3', {}, t('end.lost')), bySeat('resources-lost', seats, LOST.map((k) => row('lost', k))),
  ];
}

const sessionKey = (id) => `catan.room.${id}`;
function saveSession(id, patch) {
  let old = {};
  try { old = JSON.parse(localStorage.getItem(sessionKey(id)) || '{}'); } catch { /* a fresh one */ }
  localStorage.setItem(sessionKey(id), JSON.stringify({ ...old, ...patch }));
}

/**
 * Takes a seat in the rematch room, the same one as here if it is free (else any),
 * and goes there. Someone who is only the host (no seat here) just goes there.
 * @param {string} roomId
 */
async function joinRematch(roomId) {
  const seat = W().you;
  const name = S.session.name || localStorage.getItem('catan.name') || seatName(seat);
  if (seat !== null && S.session.token) {
    const take = (/** @type {number | null} */ which) => api('POST', `/api/rooms/${roomId}/seats`, { name, seat: which });
    /** @type {import('./protocol').TakeSeatResponse} */
    let got;
    try { got = await take(seat); } catch (x) {
      if (x.code !== 'seat_taken' && x.code !== 'no_such_seat') throw x;
      got = await take(null);
    }
    saveSession(roomId, { token: got.token, seat: got.seat, name });
  }
  location.href = `/?room=${roomId}`;
}

/** Asks for the rematch (protocol.md 4.17), keeps the new room's host token, joins it. */
async function rematch() {
  const token = S.session.token || S.session.host_token;
  setFlash('', false, false);
  try {
    /** @type {RematchResponse} */
    const r = await api('POST', `/api/rooms/${S.roomId}/rematch`, undefined, token);
    if (r.host_token) saveSession(r.room_id, { host_token: r.host_token });
    await joinRematch(r.room_id);
  } catch (x) { setFlash(refusal(x)); }
}

/** The rematch controls: ask for one, or join the one someone made. */
function rematchPart() {
  const made = W().rematch;
  const may = Boolean(S.session.token || S.session.host_token);
  if (made && may) {
    return h('p', { class: 'rematch' }, t('end.rematch_made'), ' ',
      h('button', { id: 'join-rematch', class: 'primary', 'data-room': made, onclick: () => joinRematch(made).catch((x) => setFlash(refusal(x))) }, t('end.join_rematch')));
  }
  if (made) return h('p', { class: 'rematch' }, h('a', { href: `/?room=${made}`, id: 'watch-rematch' }, t('end.watch_rematch')));
  if (!may) return null;
  return h('p', { class: 'rematch' }, h('button', { id: 'rematch', class: 'primary', onclick: rematch }, t('end.rematch')),
    ' ', h('small', { class: 'muted' }, t('end.rematch_why')));
}

/**
 * The end screen's content, for the game-over dialog.
 * @param {GameOverInfo} g
 * @param {any} room
 * @returns {any[]}
 */
export function endScreen(g, room) {
  // a game the turn limit ended has no winner (`winner: null`).
  const result = g.winner === null || g.winner === undefined
    ? h('p', { id: 'winner', class: 'no-winner', 'data-winner': '' }, t('no_winner', { n: room?.options?.turn_limit ?? 1000 }))
    : h('p', { id: 'winner', 'data-winner': g.winner }, who(g.winner), ' ', t('wins'));
  return [
    result,
    ratingLine(room),
    h('div', { class: 'end-grid' },
      h('section', {}, h('h3', {}, t('end.points')), pointsTable(g)),
      h('section', {}, h('h3', {}, t('end.dice')), diceHistogram(g))),
    h('section', { id: 'resource-flow' }, resourceTables(g)),
    rematchPart(),
    S.flash ? h('p', { class: 'error', id: 'flash', role: 'alert' }, S.flash) : null,
    h('details', { id: 'seed-details' }, h('summary', {}, t('end.verify')),
      h('p', { class: 'muted', id: 'seed-line' }, t('seed', { seed: g.seed, salt: g.seed_salt })),
      h('p', {}, h('a', { href: `/api/games/${S.roomId}/replay`, id: 'replay-json', target: '_blank' }, t('replay')))),
    h('p', {}, h('a', { href: `/?replay=${S.roomId}`, id: 'replay-link' }, t('end.watch_replay')), ' · ',
      h('a', { href: '/' }, t('back_lobby')), ' · ',
      h('button', { id: 'close-game-over', onclick: () => dismissGameOver() }, t('show_board'))),
  ];
}

/** The lobby's finished games, newest first, each with its replay. */
export function historyList() {
  const box = h('div', { id: 'history' }, h('p', { class: 'muted' }, t('loading_rooms')));
  api('GET', '/api/games?per_page=10').then((/** @type {GameList} */ list) => {
    if (!list.games.length) { box.replaceChildren(h('p', { class: 'muted' }, t('end.no_games'))); return; }
    box.replaceChildren(h('table', {},
      h('tr', {}, h('th', {}, t('players')), h('th', {}, t('end.winner')), h('th', {})),
      list.games.map((g) => {
        const won = g.players.find((p) => p.seat === g.winner);
        // A built-in bot's default name in the page's language ("機器人 2"), as in the
        // room; a person who played as a player, a link to their profile.
        const name = (/** @type {import('./protocol').PlayerResult} */ p) => (p.player_id && !p.bot
          ? h('a', { href: `/?player=${p.player_id}`, class: 'player-link' }, occupantName(p)) : occupantName(p));
        return h('tr', { 'data-game': g.id },
          h('td', {}, g.players.flatMap((p, i) => (i ? [', ', name(p)] : [name(p)]))),
          h('td', {}, won ? [name(won), ` (${won.final_vp})`] : t('nobody')),
          h('td', {}, h('a', { href: `/?replay=${g.id}`, class: 'history-replay' }, t('end.watch_replay'))));
      })));
  }).catch((x) => box.replaceChildren(h('p', { class: 'error' }, refusal(x))));
  return box;
}

// ---------------------------------------------------------------- the rating change


/** The seat's rating change on the end screen of a rated game (none for a spectator). */
function ratingLine(room) {
  if (!room?.options?.rated || W().you === null) return null;
  const r = S.rating;
  if (r === null || r === 'waiting') return h('p', { id: 'rating-change', class: 'muted', 'data-state': 'waiting' }, t('end.rating_wait'));
  if (r === 'none') return h('p', { id: 'rating-change', class: 'muted', 'data-state': 'none' }, t('end.rating_none'));
  return h('p', { id: 'rating-change', class: 'rating-change', 'data-before': r.before, 'data-after': r.after },
    icon('trophy'), t('end.rating', { before: r.before, after: r.after, delta: signed(r.after - r.before) }),
    r.provisional ? provisionalMark() : null,
    S.me ? h('a', { href: `/?player=${S.me.id}`, id: 'rating-profile' }, t('my_profile')) : null);
}

let ratingAsked = '';
/**
 * After a rated game: the seat's rating before and after it, from the stored game
 * (GET /api/games/{id}, whose seats carry it once the game is stored and rated: asked
 * again a second apart, up to 15 times), for the end screen; 'none' when the game
 * rated the others but not this seat (taken without a player). Asked once per room.
 * @param {string} roomId @param {number} seat
 */
export async function askRatingChange(roomId, seat) {
  if (ratingAsked === roomId) return;
  ratingAsked = roomId;
  setRating('waiting');
  for (let i = 0; i < 15; i++) {
    /** @type {GameSummary | null} */
    const g = await api('GET', `/api/games/${roomId}`).catch(() => null);
    if (g?.status === 'finished' && g.players.some((p) => p.rating)) {
      setRating(g.players.find((p) => p.seat === seat)?.rating || 'none');
      return;
    }
    await new Promise((ok) => { setTimeout(ok, 1000); });
  }
  setRating('none');
}
