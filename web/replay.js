// The replay viewer (`/?replay=<game id>`): steps forward and back through a finished
// game from `GET /api/games/{id}/replay` (protocol.md 4.11), drawn with the board
// code of the game screen. The view after step n is the replay's `start` with the
// events of steps 1..n folded in by the kit (`foldEvent`), as a connection keeps its
// view from `events`; the public points the events do not state come with each step.
// Back rebuilds from the start. No rule is applied here.

import { drawBoard, loadBoard } from './board.js';
import { t, refusal } from './i18n.js';
import { api, foldEvent } from './kit.js';
import { describe } from './log.js';
import { setRoom } from './state.js';
import { h, dot, who, seatName } from './ui.js';

/** @typedef {import('./protocol').Replay} Replay */
/** @typedef {import('./protocol').GameView} GameView */

const NO_HIGHLIGHTS = { vertices: new Map(), edges: new Set(), tiles: new Set() };

/**
 * The view after the first `n` steps, and the last piece placed by them.
 * @param {Replay} r
 * @param {number} n
 */
export function viewAt(r, n) {
  /** @type {GameView} */
  const v = structuredClone(r.start);
  /** @type {{ kind: string, id: number } | null} */
  let last = null;
  for (const step of r.actions.slice(0, n)) {
    for (const ev of step.events) {
      foldEvent(v, ev);
      if (ev.type === 'settlement_built' || ev.type === 'city_built') last = { kind: 'vertex', id: ev.vertex };
      if (ev.type === 'road_built') last = { kind: 'edge', id: ev.edge };
    }
    step.public_vp.forEach((vp, i) => { if (v.players[i]) v.players[i].public_vp = vp; });
  }
  return { view: v, last };
}

/** @param {string} id */
export async function replayPage(id) {
  const $app = document.getElementById('app');
  document.title = t('title.replay');
  /** @type {Replay} */
  let r;
  try {
    [r] = await Promise.all([api('GET', `/api/games/${id}/replay`), loadBoard()]);
  } catch (x) {
    $app.replaceChildren(h('div', { class: 'panel' }, h('p', { class: 'error' }, refusal(x)), h('a', { href: '/' }, t('back_lobby'))));
    return;
  }
  // Names as the game had them, for the shared helpers (seatName, who).
  setRoom(/** @type {any} */ ({
    id, options: r.game.options,
    seats: r.game.players.map((p) => ({ seat: p.seat, occupant: { name: p.name, bot: p.bot }, connected: false })),
  }));
  const total = r.actions.length;
  let n = 0;
  const go = (to) => { n = Math.max(0, Math.min(total, to)); draw(); };
  const btn = (bid, label, to) => h('button', { id: bid, onclick: () => go(to()) }, label);
  function draw() {
    const { view: v, last } = viewAt(r, n);
    const before = n > 0 ? viewAt(r, n - 1).view : null;
    const step = n > 0 ? r.actions[n - 1] : null;
    const svg = /** @type {SVGSVGElement} */ (/** @type {unknown} */ (document.createElementNS('http://www.w3.org/2000/svg', 'svg')));
    svg.id = 'board';
    drawBoard(svg, v, NO_HIGHLIGHTS, () => {}, { last });
    // At the end every Victory Point card is revealed: the final scores count them.
    const vpAt = (p) => (n === total && r.final_scores ? r.final_scores.find((x) => x.seat === p.seat)?.points ?? p.public_vp : p.public_vp);
    const lines = step && before
      ? step.events.map((ev) => describe(ev, before, who)).filter(Boolean).map((l) => h('div', { class: l.cls }, ...l.parts))
      : [h('div', { class: 'muted' }, t('replay.start'))];
    const slider = h('input', {
      id: 'replay-slider', type: 'range', min: 0, max: total, value: n, 'aria-label': t('replay.step', { n, of: total }),
      oninput: (e) => go(Number(e.target.value)),
    });
    document.getElementById('status-line').textContent = t('replay.title', { turn: v.turn });
    $app.replaceChildren(h('div', { class: 'game replay' },
      h('section', { class: 'board-col' },
        h('div', { class: 'prompt', id: 'replay-step', 'data-step': n, 'data-steps': total }, t('replay.step', { n, of: total }),
          step ? [' · ', step.seat === null || step.seat === undefined ? t('replay.system') : who(step.seat)] : null),
        svg,
        h('div', { class: 'actionbar', id: 'replay-controls' },
          btn('replay-first', t('replay.first'), () => 0),
          btn('replay-back', t('replay.back'), () => n - 1),
          btn('replay-forward', t('replay.forward'), () => n + 1),
          btn('replay-last', t('replay.last'), () => total),
          slider)),
      h('div', { class: 'side' },
        h('section', { class: 'panel' }, h('h3', {}, t('players')),
          h('table', { id: 'replay-players' },
            h('tr', {}, h('th', {}, t('player')), h('th', {}, t('vp')), h('th', {}, t('cards'))),
            v.players.map((p) => h('tr', { 'data-seat': p.seat },
              h('td', {}, dot(p.seat), seatName(p.seat)), h('td', { class: 'vp' }, vpAt(p)), h('td', {}, p.resource_cards))))),
        h('section', { class: 'panel', id: 'replay-log' }, h('h3', {}, t('replay.events')), h('div', { class: 'log' }, lines)),
        h('p', {}, h('a', { href: `/api/games/${id}/replay`, target: '_blank' }, t('replay')), ' · ', h('a', { href: '/' }, t('back_lobby'))))));
  }
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type !== 'range') return;
    if (e.key === 'ArrowRight') go(n + 1);
    if (e.key === 'ArrowLeft') go(n - 1);
  });
  draw();
}
