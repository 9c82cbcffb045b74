// My games (protocol 27.4): on the lobby page, first, the games the signed-in player
// has a seat in and that are not over (GET /api/me/games), those where the move is
// theirs marked and first, as the server sends them. One tap opens a game: its room's
// page, which plays the seat with the seat's token this browser kept when it took the
// seat (app.js, localStorage per room); a seat taken on another device has no token
// here, and the list says that the room then opens to watch.

import { api } from './kit.js';
import { t } from './i18n.js';
import { h, countdown, fmtDuration, occupantName } from './ui.js';
import { icon } from './icons.js';
import { loadMe } from './players.js';

/** @typedef {import('./protocol').MyGames} MyGames */
/** @typedef {MyGames['games'][number]} MyGame */

/** The hours per move a game over days offers (the presets of protocol 27.1). */
export const MOVE_HOURS = [1, 12, 24, 72];

/** How often the list is asked for again while the lobby is open. */
const REFRESH_MS = 20000;

/**
 * The list, hidden until the player is known to have games (nobody signed in, or no
 * game: nothing shown).
 * @param {{ hasSeat: (roomId: string) => boolean }} how `hasSeat`: whether this
 *   browser holds the seat's token for the room
 */
export function myGames({ hasSeat }) {
  const part = h('section', { class: 'panel my-games', id: 'my-games', hidden: true, 'aria-labelledby': 'my-games-title' });
  let shown = '';
  const refresh = async () => {
    const me = await loadMe();
    /** @type {MyGame[]} */
    let games = [];
    if (me) {
      try { games = (/** @type {MyGames} */ (await api('GET', '/api/me/games'))).games; } catch { games = []; }
    }
    // Drawn again only when it changed (a countdown keeps itself up to date).
    const drawn = JSON.stringify(games.map((g) => [g, hasSeat(g.room_id)]));
    if (drawn === shown) return;
    shown = drawn;
    part.hidden = !games.length;
    part.replaceChildren(h('h2', { id: 'my-games-title' }, t('my_games')),
      h('ul', { class: 'my-games-list', id: 'my-games-list' }, games.map((g) => entry(g, hasSeat(g.room_id)))));
  };
  refresh();
  setInterval(refresh, REFRESH_MS);
  return part;
}

/**
 * A name at the table as shown: a built-in bot's default name ("Bot 2") in the
 * page's language, as a seat's occupant is shown (ui.js `occupantName`; the list
 * has the names only).
 * @param {string | null} n
 */
const shownName = (n) => (n === null ? null : occupantName({ name: n, bot: /^Bot \d+$/.test(n) ? 'medium' : null }));

/**
 * One game: the "your move" mark, the names at the table (the player's own in bold),
 * the pace, whose move it is or how full the table is, and the time left for the
 * player's move.
 * @param {MyGame} g @param {boolean} here whether this browser holds the seat's token
 */
function entry(g, here) {
  const days = g.options.days;
  const name = (seat) => shownName(g.names[seat]) ?? t('seat_n', { n: seat + 1 });
  const names = g.names.map((n, i) => (i === g.seat ? h('b', {}, shownName(n) ?? t('free')) : (shownName(n) ?? t('free'))))
    .flatMap((n, i) => (i ? [t('list_sep'), n] : [n]));
  const state = g.status === 'lobby'
    ? t('my.gathering', { n: g.names.filter((n) => n !== null).length, of: g.options.players })
    : !g.your_move && g.to_move.length ? t('my.waiting_for', { name: g.to_move.map(name).join(t('list_sep')) }) : null;
  const left = g.your_move && g.clock?.deadline
    ? h('span', { class: 'my-left', title: t('days.move_left') }, icon('hourglass'), countdown(g.clock.deadline, true)) : null;
  return h('li', { 'data-room': g.room_id, 'data-your-move': g.your_move ? '1' : '0', 'data-seat-here': here ? '1' : '0', 'data-status': g.status },
    h('a', { class: 'my-game', href: `/?room=${g.room_id}` },
      h('span', { class: 'my-game-head' },
        g.your_move ? h('span', { class: 'badge your-move' }, t('my.your_move')) : null,
        h('span', { class: 'my-names' }, names)),
      h('span', { class: 'my-game-line' },
        h('span', { class: 'my-pace' }, days ? t('days.per_move', { time: fmtDuration(days.move_hours * 3600000) }) : t('my.live')),
        state ? h('span', { class: 'my-state' }, state) : null,
        left)),
    here ? null : h('p', { class: 'muted small no-seat' }, t('my.no_token')));
}
