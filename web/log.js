// Log lines and toasts from events, in the page's language, naming players and
// places in words ("the 6 fields and 8 hills"), never raw ids.

import { topology } from './board.js';
import { t, cardsText } from './i18n.js';

/** @typedef {import('./protocol').Event} GameEvent */
/** @typedef {import('./protocol').GameView} GameView */

/** A tile in words: "6 fields" (the desert: "desert"). @param {GameView} v @param {number} id */
export function tileName(v, id) {
  const terrain = t(`terrain.${v.map.terrain[id]}`);
  const n = v.map.numbers[id];
  return n ? t('tile_n', { n, terrain }) : terrain;
}

/** The tiles touching a place, in words, the most productive first. */
function around(v, tiles) {
  const pips = (id) => 6 - Math.abs(7 - (v.map.numbers[id] || 7));
  const named = [...tiles].sort((a, b) => pips(b) - pips(a)).map((id) => tileName(v, id));
  return named.length ? named.join(t('and')) : t('the_coast');
}

/** An intersection in words. @param {GameView} v @param {number} id */
export function vertexName(v, id) {
  return t('at_place', { place: around(v, topology().vertices[id].tiles) });
}

/** A path in words: the tiles both ends touch. @param {GameView} v @param {number} id */
export function edgeName(v, id) {
  const b = topology();
  const e = b.edges[id];
  const shared = b.vertices[e.a].tiles.filter((x) => b.vertices[e.b].tiles.includes(x));
  return t('at_place', { place: around(v, shared) });
}

/**
 * One event as parts of a log line (strings and `who(seat)` nodes), or null for events
 * not worth a line. `who` renders a seat; `you` is the viewer's seat.
 * @param {GameEvent} ev
 * @param {GameView} v the view before the event
 * @param {(seat: number) => any} who
 * @returns {{ cls: string, parts: any[] } | null}
 */
export function describe(ev, v, who) {
  const line = (cls, key, params = {}) => {
    // Split the translated text at {seat}-like placeholders holding nodes.
    const text = t(key, Object.fromEntries(Object.entries(params).filter(([, x]) => typeof x !== 'object')));
    const parts = [];
    for (const piece of text.split(/(\{\w+\})/)) {
      const m = piece.match(/^\{(\w+)\}$/);
      parts.push(m && params[m[1]] !== undefined ? params[m[1]] : piece);
    }
    return { cls, parts };
  };
  switch (ev.type) {
    case 'turn_started': return line('turn', 'log.turn', { turn: ev.turn, seat: who(ev.seat) });
    case 'settlement_built': return line('', 'log.settlement', { seat: who(ev.seat), place: vertexName(v, ev.vertex) });
    case 'city_built': return line('', 'log.city', { seat: who(ev.seat), place: vertexName(v, ev.vertex) });
    case 'road_built': return line('', 'log.road', { seat: who(ev.seat), place: edgeName(v, ev.edge) });
    case 'starting_resources': return line('', 'log.starting', { seat: who(ev.seat), cards: cardsText(ev.cards) });
    case 'produced': return line('', 'log.produced', { seat: who(ev.seat), cards: cardsText(ev.cards) });
    case 'dice_rolled': return line('roll', 'log.rolled', { seat: who(ev.seat), a: ev.dice[0], b: ev.dice[1], sum: ev.dice[0] + ev.dice[1] });
    case 'shortage': return line('', 'log.shortage', { res: t(`res.${ev.resource}`) });
    case 'discarded': return line('', 'log.discarded', { seat: who(ev.seat), cards: cardsText(ev.cards) });
    case 'robber_moved': return line('', 'log.robber', { seat: who(ev.seat), tile: tileName(v, ev.tile) });
    case 'stolen': return ev.resource
      ? line('', 'log.stole_res', { thief: who(ev.thief), victim: who(ev.victim), res: t(`res.${ev.resource}`) })
      : line('', 'log.stole', { thief: who(ev.thief), victim: who(ev.victim) });
    case 'dev_card_bought': return ev.card
      ? line('', 'log.bought_card', { seat: who(ev.seat), card: t(`dev.${ev.card}`) })
      : line('', 'log.bought', { seat: who(ev.seat) });
    case 'dev_card_played': return line('', 'log.played', { seat: who(ev.seat), card: t(`dev.${ev.card}`) });
    case 'year_of_plenty': return line('', 'log.yop', { seat: who(ev.seat), cards: cardsText(ev.cards) });
    case 'monopoly': return line('', 'log.monopoly', { seat: who(ev.seat), res: t(`res.${ev.resource}`), n: ev.taken.reduce((a, b) => a + b, 0) });
    case 'maritime_traded': return line('', 'log.maritime', { seat: who(ev.seat), gave: cardsText(ev.gave), got: cardsText(ev.got) });
    case 'offer_made': return line('', ev.offer.to === null ? 'log.offer_all' : 'log.offer_to', {
      seat: who(ev.offer.from), to: ev.offer.to === null ? '' : who(ev.offer.to), give: cardsText(ev.offer.give), get: cardsText(ev.offer.get),
    });
    case 'offer_accepted': return line('', 'log.accepted', { seat: who(ev.seat) });
    case 'offer_rejected': return line('', 'log.rejected', { seat: who(ev.seat) });
    case 'offer_closed': return line('muted', 'log.closed', { reason: t(`close.${ev.reason}`) });
    case 'trade_completed': return line('', 'log.traded', { from: who(ev.from), to: who(ev.to), gave: cardsText(ev.gave), got: cardsText(ev.got) });
    case 'longest_road': return ev.holder === null ? line('', 'log.lr_none')
      : line('', 'log.lr', { seat: who(ev.holder), n: ev.length });
    case 'largest_army': return ev.holder === null ? line('', 'log.la_none')
      : line('', 'log.la', { seat: who(ev.holder), n: ev.knights });
    case 'timed_out': return line('muted', 'log.timed_out', { seat: who(ev.seat) });
    case 'game_won': return line('turn', 'log.won', { seat: who(ev.seat), n: ev.points });
    case 'turn_limit_reached': return line('turn', 'log.turn_limit', { turn: ev.turn });
    default: return null;
  }
}
