// Motion that explains what happened: the cards a roll produced move from their
// tiles to the players who get them, a stolen card from the victim to the thief.
// Nothing moves with `prefers-reduced-motion: reduce`. The moving cards are drawn
// over the page (fixed, not clickable) and removed when they arrive; the numbers on
// the page change as they always do.

import { topology, tileCenter } from './board.js';
import { icon, RESOURCE_TINT } from './icons.js';
import { h } from './dom.js';

/** @typedef {import('./protocol').GameView} GameView */

const reduced = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
/** How many cards are moving now (the tests count them). */
export const moving = { started: 0 };

/** Where a player is on the page: their row, or the hand for the viewer. */
function playerBox(seat, you) {
  const el = (seat === you && document.querySelector('#hand .hand-cards')) || document.querySelector(`#players [data-seat="${seat}"]`);
  const r = el?.getBoundingClientRect();
  return r && r.width ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : null;
}

/** Where a point of the board (board units) is on the page. */
function boardPoint(x, y) {
  const svg = /** @type {SVGSVGElement | null} */ (document.querySelector('#board'));
  const m = svg?.getScreenCTM();
  if (!svg || !m) return null;
  const p = new DOMPoint(x, y).matrixTransform(m);
  return { x: p.x, y: p.y };
}

/** One card moving from `a` to `b` (page points), `delay` ms after now. */
function fly(content, a, b, delay = 0, tint = '') {
  moving.started += 1;
  const el = h('div', { class: 'fly', style: `left:${a.x}px;top:${a.y}px;${tint ? `--tint:${tint}` : ''}`, 'aria-hidden': 'true' }, content);
  document.body.append(el);
  const go = () => { el.style.transform = `translate(${b.x - a.x}px, ${b.y - a.y}px) scale(.8)`; el.style.opacity = '.2'; };
  setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(go)), delay);
  setTimeout(() => el.remove(), delay + 900);
}

/**
 * The cards of one `produced` event moving from the tiles that gave them: for each
 * kind, a tile of the roll next to one of the seat's buildings that yields it.
 * @param {GameView} view the view before the event
 * @param {number} seat @param {Record<string, number>} cards @param {number | null} you
 */
export function flyResources(view, seat, cards, you) {
  if (reduced()) return;
  const board = topology();
  if (!board) return;
  const yields = { forest: 'lumber', hills: 'brick', pasture: 'wool', fields: 'grain', mountains: 'ore' };
  const mine = new Set(view.buildings.filter((b) => b.seat === seat).map((b) => b.vertex));
  requestAnimationFrame(() => {
    const to = playerBox(seat, you);
    if (!to) return;
    let i = 0;
    for (const [r, n] of Object.entries(cards)) {
      const tile = board.tiles.find((t) => yields[view.map.terrain[t.id]] === r && t.vertices.some((v) => mine.has(v)) && view.robber !== t.id);
      const c = tile ? tileCenter(tile.id) : null;
      const from = c ? boardPoint(c.x, c.y) : null;
      if (!from) continue;
      for (let k = 0; k < Math.min(n, 3); k++) fly(icon(r), from, to, 120 * i++, RESOURCE_TINT[r]);
    }
  });
}

/** A stolen card moving from the victim to the thief (its kind shown only to those two). */
export function flyCard(victim, thief, resource, you) {
  if (reduced()) return;
  requestAnimationFrame(() => {
    const a = playerBox(victim, you);
    const b = playerBox(thief, you);
    if (a && b) fly(icon(resource || 'card_back'), a, b, 0, resource ? RESOURCE_TINT[resource] : '#5b4a8a');
  });
}
