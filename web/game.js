// The game screen. Phone first: the players across the top, the board filling the
// width (zoomed and panned with pinch, drag and buttons), the hand docked under it
// and the actions in thumb reach at the bottom; trade, bank, log and help open as
// sheets over the board, and close by themselves whenever the board must be tapped.
// From 1000 px wide the sheets are panels beside the board.
//
// Everything shown comes from the kit's view (`W().view`), nothing re-derived. Each
// part is drawn again only when what it shows changed (its key), and then in place
// (dom.js), so that a message from the server redraws only what it changed and a
// tap held while one arrives is not lost.

import { drawBoard, viewBoxOf, BOARD_BOX, SEAT_COLORS } from './board.js';
import { t, cardsText, refusal, language } from './i18n.js';
import { tileName, vertexName, edgeName } from './log.js';
import { countCards } from './kit.js';
import { Part, h } from './dom.js';
import { icon, avatar, RESOURCE_TINT } from './icons.js';
import { helpPanel, costsCard } from './help.js';
import {
  S, clearTrade, closeSheet, counterOffer, dismissGameOver, openDialog, setMaritime, setZoom, toggleMode, toggleSheet, tradeCard, tradeTo,
} from './state.js';
import {
  W, RES, COSTS, seatName, who, legalOf, hasLegal, act, button, lacking, countdown, gainsText, glance, fmtDuration, clockNow, DAY,
} from './ui.js';

const phaseName = (v) => t(`phase.${v.phase.name}`);
/** A part's key: what it shows, summed up as text (the view is changed in place). */
const key = (...xs) => JSON.stringify([language(), ...xs]);
/** The seats as a part shows them: names, bots, presence, stand-ins. */
const seatsKey = () => W().room?.seats;
const playing = () => W().you !== null && W().view.phase.name !== 'over';
/** Whether the room is a game over days (protocol 27): its countdowns in days, hours and minutes. */
const overDays = () => !!(W().clocks || W().room?.options?.days);

/** The prompt over the board: what to do now. */
function phasePrompt() {
  const { view: v, you, pending } = W();
  const mine = you !== null && v.current === you;
  if (v.phase.name === 'over') {
    return v.winner === null || v.winner === undefined ? t('prompt.no_winner', { n: v.turn }) : t('prompt.won', { name: seatName(v.winner) });
  }
  if (you === null) return t('prompt.spectating', { name: seatName(v.current), phase: phaseName(v) });
  if (pending) return t('prompt.waiting_server');
  if (hasLegal('discard') && v.phase.name === 'discard') return t('prompt.discard', { n: v.phase.pending[you] });
  if (v.phase.name === 'discard') return t('prompt.others_discard');
  if (!mine) {
    if (hasLegal('accept_offer') || hasLegal('reject_offer')) return t('prompt.offer_waits');
    return t('prompt.waiting_for', { name: seatName(v.current), phase: phaseName(v) });
  }
  switch (v.phase.name) {
    case 'setup': return v.phase.settlement === null ? t('prompt.setup_settlement') : t('prompt.setup_road');
    case 'pre_roll': return t('prompt.roll');
    case 'move_robber': return t('prompt.robber');
    case 'road_building': return t('prompt.free_road', { n: v.phase.remaining });
    case 'main': return S.mode ? t('prompt.choose', { piece: t(`piece.${S.mode}`) }) : t('prompt.main');
    default: return '';
  }
}

export function highlights() {
  const hl = { vertices: new Map(), edges: new Set(), tiles: new Set() };
  const { view, you, pending } = W();
  if (pending || you === null) return hl;
  const auto = view.phase.name === 'setup' || view.phase.name === 'road_building';
  if (auto || S.mode === 'settlement') for (const a of legalOf('build_settlement')) hl.vertices.set(a.vertex, 'settlement');
  if (S.mode === 'city') for (const a of legalOf('build_city')) hl.vertices.set(a.vertex, 'city');
  if (auto || S.mode === 'road') for (const a of legalOf('build_road')) hl.edges.add(a.edge);
  for (const a of legalOf('move_robber')) hl.tiles.add(a.tile);
  return hl;
}
/** Whether the person must tap the board now (then it is in view: no sheet over it). */
export const boardNeeded = () => { const x = highlights(); return x.vertices.size + x.edges.size + x.tiles.size > 0; };

/** A legal spot in words, for screen readers: "Settlement at the 6 fields and 8 hills". */
function spotLabel(kind, id) {
  const v = W().view;
  if (kind === 'tile') return t('spot.robber', { place: tileName(v, id) });
  if (kind === 'edge') return t('spot.road', { place: edgeName(v, id) });
  return t(kind === 'city' ? 'spot.city' : 'spot.settlement', { place: vertexName(v, id) });
}

function onPick(kind, id) {
  if (W().pending || panned) return;
  if (kind === 'settlement') act({ type: 'build_settlement', vertex: id });
  else if (kind === 'city') act({ type: 'build_city', vertex: id });
  else if (kind === 'edge') act({ type: 'build_road', edge: id });
  else if (kind === 'tile') {
    const options = legalOf('move_robber').filter((a) => a.tile === id);
    if (options.length === 1) act({ type: 'move_robber', tile: id, victim: options[0].victim });
    else if (options.length > 1) openDialog('victim', { tile: id, options });
  }
}

function statusBar() {
  const { view: v, deadline, you } = W();
  // The dice of each roll are one element (keyed by the roll's number), so that a
  // roll seen live tumbles once (CSS; not with prefers-reduced-motion), however
  // often the status is drawn again.
  const rolling = Date.now() - S.rolledAt < 800;
  const dice = v.last_roll
    ? h('span', {
      class: `dice${rolling ? ' rolling' : ''}`, id: 'dice', 'data-key': `dice-${S.rolls}`, title: t('last_roll'),
      'data-sum': v.last_roll[0] + v.last_roll[1], 'aria-label': t('rolled_sum', { sum: v.last_roll[0] + v.last_roll[1] }),
    }, h('span', { class: 'die' }, v.last_roll[0]), h('span', { class: 'die' }, v.last_roll[1]), h('span', { class: 'dice-sum' }, `= ${v.last_roll[0] + v.last_roll[1]}`))
    : h('span', { class: 'dice', id: 'dice' });
  return [
    h('span', { id: 'turn-info', 'data-turn': v.turn }, h('span', { class: 'turn-n' }, t('turn_n', { n: v.turn })), ' ', who(v.current), ' ', h('span', { class: 'phase' }, phaseName(v))),
    dice,
    deadline ? h('span', { class: 'timer', title: t('timer') }, countdown(deadline, overDays())) : null,
    you === null ? h('span', { class: 'badge' }, t('spectator')) : null,
  ].filter(Boolean);
}

// ---------------------------------------------------------------- the board

function boardSvg() {
  const svg = /** @type {SVGSVGElement} */ (/** @type {unknown} */ (document.createElementNS('http://www.w3.org/2000/svg', 'svg')));
  svg.id = 'board';
  const v = W().view;
  drawBoard(svg, v, highlights(), onPick, {
    last: S.lastPiece, glow: glance()?.tiles, label: spotLabel, zoom: S.zoom,
    // The setup's hint: each candidate spot shows its pips.
    hints: v.phase.name === 'setup' && W().you === v.current,
  });
  return svg;
}

function zoomButtons() {
  const z = S.zoom.scale;
  return h('div', { class: 'zoom', role: 'group', 'aria-label': t('zoom') },
    h('button', { type: 'button', id: 'zoom-in', 'aria-label': t('zoom_in'), title: t('zoom_in'), disabled: z >= 3, onclick: () => setZoom(z * 1.5) }, icon('zoom_in')),
    h('button', { type: 'button', id: 'zoom-out', 'aria-label': t('zoom_out'), title: t('zoom_out'), disabled: z <= 1, onclick: () => setZoom(z / 1.5) }, icon('zoom_out')),
    h('button', { type: 'button', id: 'zoom-fit', 'aria-label': t('zoom_fit'), title: t('zoom_fit'), disabled: z <= 1, onclick: () => setZoom(1, 0, 0) }, icon('fit')));
}

/**
 * Pinch to zoom, drag to pan (when zoomed), on the board: pointer events, the
 * viewBox changed directly while the fingers move, the state's zoom set when they
 * lift. A drag of more than a few pixels is not a tap on a spot.
 */
let panned = false;
function gestures(wrap) {
  /** @type {Map<number, { x: number, y: number }>} */
  const pts = new Map();
  let start = null;
  const svgOf = () => /** @type {SVGSVGElement | null} */ (wrap.querySelector('#board'));
  const unitsPerPx = () => { const r = svgOf()?.getBoundingClientRect(); return r && r.width ? (BOARD_BOX.w / S.zoom.scale) / r.width : 1; };
  let live = { ...S.zoom };
  wrap.addEventListener('pointerdown', (e) => {
    if (e.target instanceof Element && e.target.closest('.zoom')) return;
    pts.set(e.pointerId, { x: e.clientX, y: e.clientY });
    live = { ...S.zoom };
    start = { pts: new Map([...pts].map(([k, p]) => [k, { ...p }])), zoom: { ...S.zoom }, upp: unitsPerPx() };
    panned = false;
  });
  wrap.addEventListener('pointermove', (e) => {
    if (!pts.has(e.pointerId) || !start) return;
    pts.set(e.pointerId, { x: e.clientX, y: e.clientY });
    const [a, b] = [...pts.values()];
    const [a0, b0] = [...start.pts.values()];
    if (!a0) return;
    if (b && b0) {
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      const d0 = Math.hypot(a0.x - b0.x, a0.y - b0.y) || 1;
      live = { ...live, scale: Math.max(1, Math.min(3, start.zoom.scale * (d / d0))) };
      panned = true;
    } else if (start.zoom.scale > 1) {
      const dx = a.x - a0.x;
      const dy = a.y - a0.y;
      if (!panned && Math.hypot(dx, dy) < 8) return;
      panned = true;
      live = { ...live, x: start.zoom.x - dx * start.upp, y: start.zoom.y - dy * start.upp };
    } else return;
    const svg = svgOf();
    if (svg) svg.setAttribute('viewBox', viewBoxOf(live));
  });
  const end = (e) => {
    if (!pts.delete(e.pointerId)) return;
    if (pts.size === 0 && start) {
      start = null;
      if (panned) setZoom(live.scale, live.x, live.y);
      // (The click that ends a drag is not a tap: `panned` is cleared after it.)
      setTimeout(() => { panned = false; }, 0);
    }
  };
  wrap.addEventListener('pointerup', end);
  wrap.addEventListener('pointercancel', end);
  wrap.addEventListener('wheel', (e) => {
    if (!e.ctrlKey) return; // a trackpad's pinch; a plain wheel scrolls the page
    e.preventDefault();
    setZoom(S.zoom.scale * (e.deltaY < 0 ? 1.15 : 1 / 1.15));
  }, { passive: false });
}

// ---------------------------------------------------------------- players

/** A seat's mark: its shape and colour with its name's first letter. */
export const seatMark = (s) => avatar(s, seatName(s), SEAT_COLORS[s]);

function playersPanel() {
  const { view: v, room, you, deadline, gameOver } = W();
  const shown = glance();
  const award = (held, k) => (held ? h('span', { class: 'badge award', title: t(k), 'data-award': k }, icon(k === 'longest_road' ? 'road' : 'knight'), h('span', { class: 'award-name' }, t(k))) : null);
  // Once the game is over every Victory Point card is revealed (game_over's scores).
  const final = (seat) => gameOver?.scores?.find((x) => x.seat === seat);
  return h('section', { class: 'panel players-panel', id: 'players-panel', 'aria-label': t('players') },
    h('div', { id: 'players', role: 'list' },
      v.players.map((p) => {
        const seat = room.seats[p.seat];
        const vp = final(p.seat)?.points ?? (v.me && v.me.seat === p.seat ? v.me.total_vp : p.public_vp);
        const current = p.seat === v.current;
        const stat = (cls, ic, n, label) => h('span', { class: `stat ${cls}`, title: label, 'aria-label': `${label}: ${n}` }, icon(ic), h('b', {}, n));
        return h('div', { class: `player${current ? ' current' : ''}`, role: 'listitem', 'data-seat': p.seat, 'data-key': `player-${p.seat}` },
          h('div', { class: 'who-line' }, seatMark(p.seat),
            h('span', { class: 'name' }, seatName(p.seat)),
            seat?.occupant?.bot ? h('span', { class: 'badge bot-badge' }, t('bot')) : null,
            p.seat === you ? h('span', { class: 'badge you', 'data-you': '' }, t('you')) : null,
            seat && !seat.connected ? h('span', { class: 'badge' }, t('away')) : null,
            seat?.stand_in ? h('span', { class: 'badge', 'data-stand-in': '' }, t('stand_in')) : null,
            current && deadline && !clockOf(p.seat) ? h('span', { class: 'badge timer', title: t('timer') }, countdown(deadline)) : null),
          h('div', { class: 'player-stats' },
            stat('vp', 'victory_point', vp, t('vp_long')),
            stat('n-cards', 'card_back', p.resource_cards, t('cards_long')),
            stat('n-dev', 'card_back', p.dev_cards, t('dev_long')),
            stat('n-knights', 'knight', p.knights_played, t('knights_long')),
            stat('road-length', 'road', p.road_length, t('road_long')),
            award(v.longest_road === p.seat, 'longest_road'),
            award(v.largest_army === p.seat, 'largest_army')),
          clockOf(p.seat) ? clockLine(clockOf(p.seat)) : null,
          shown?.gains[p.seat] ? h('span', { class: 'badge gain', 'data-gain': p.seat }, gainsText(shown.gains[p.seat])) : null);
      })),
    h('p', { class: 'muted goal' }, t('goal', { vp: v.options.vp_target, turns: v.options.turn_limit ?? 1000 })));
}

/** The time-outs after which a bot plays a seat for good (protocol 27.2). */
const TIME_OUTS_REPLACED = 3;

/** A seat's clock in a game over days (protocol 27.3), or undefined. @param {number} seat */
const clockOf = (seat) => W().clocks?.find((c) => c.seat === seat);

/**
 * A seat's clock in a game over days: the countdown of its move while it owes one,
 * its time bank (hours and minutes), vacation days and time-outs, and once a bot
 * plays it for good, the mark. While its turn runs past the move's hours the bank,
 * then the vacation, go down (ui.js keeps them up to date).
 * @param {import('./protocol').SeatClock} c
 */
function clockLine(c) {
  const v = W().view;
  // (A discard has its own hours, without bank or vacation: nothing is drawn on.)
  const spending = !!c.deadline && v.current === c.seat && v.phase.name !== 'discard' && v.phase.name !== 'over';
  const spendFrom = spending ? c.deadline - c.bank_ms - c.vacation_days * DAY : null;
  const now = clockNow(c, spendFrom);
  const label = (k) => h('span', { class: 'sr-only' }, `${t(k)}: `);
  return h('div', {
    class: 'clock-line', 'data-clock': c.seat, 'data-spend-from': spendFrom ?? undefined, 'data-bank': c.bank_ms, 'data-vacation': c.vacation_days,
  },
  c.deadline && v.phase.name !== 'over'
    ? h('span', { class: 'badge move-clock', title: t('days.move_left') }, icon('hourglass'), label('days.move_left'), countdown(c.deadline, true)) : null,
  h('span', { class: 'clock-stat bank', title: t('days.bank') }, icon('piggy'), label('days.bank'), h('span', { class: 'bank-left' }, fmtDuration(now.bank, { days: false }))),
  h('span', { class: 'clock-stat vacation', title: t('days.vacation') }, icon('vacation'), label('days.vacation'), h('span', { class: 'vacation-left' }, t('dur.d', { n: now.vacation }))),
  h('span', { class: `clock-stat time-outs${c.time_outs ? ' some' : ''}`, title: t('days.time_outs') }, icon('alarm'), label('days.time_outs'), h('b', {}, `${c.time_outs}/${TIME_OUTS_REPLACED}`)),
  c.replaced ? h('span', { class: 'badge replaced', 'data-replaced': '', title: t('days.replaced_about') }, t('days.replaced')) : null);
}

// ---------------------------------------------------------------- actions

/** A button with the reason it is disabled under its label. */
function actionButton(id, label, enabled, why, onclick, extra = {}, ic = null) {
  const reason = enabled ? '' : why;
  return button(id, [ic ? icon(ic) : null, h('span', { class: 'label' }, label), reason ? h('small', { class: 'why' }, reason) : null], enabled, onclick,
    { title: reason || undefined, ...extra });
}

/** A button that opens a sheet (on a phone), with a count (open offers) if any. */
function sheetButton(name, ic, label, count = 0) {
  return h('button', {
    type: 'button', id: `open-${name}`, class: `sheet-toggle${S.sheet === name ? ' active' : ''}`, 'aria-expanded': S.sheet === name ? 'true' : 'false',
    'aria-controls': `${name}-sheet`, onclick: () => toggleSheet(name),
  }, icon(ic), h('span', { class: 'label' }, label), count ? h('span', { class: 'count' }, count) : null);
}

function actionsPanel() {
  const { view: v, you } = W();
  const mine = v.current === you;
  const main = v.phase.name === 'main';
  const notNow = !mine ? t('why.not_your_turn') : t('why.not_now');
  const pre = v.phase.name === 'pre_roll';
  const rollWhy = mine && !pre && ['main', 'discard', 'move_robber', 'road_building'].includes(v.phase.name) ? t('why.rolled') : notNow;
  const endWhy = mine && pre ? t('why.roll_first') : notNow;
  const buildWhy = (type, cost) => (!mine || !main ? notNow : lacking(cost) || (hasLegal(type) ? '' : t('why.no_spot')));
  const modeBtn = (mode, type) => actionButton(`build-${mode}`, t(`piece.${mode}`), main && hasLegal(type), buildWhy(type, COSTS[mode]),
    () => toggleMode(mode), { class: S.mode === mode ? 'active' : '', 'aria-pressed': S.mode === mode ? 'true' : 'false' }, mode);
  const play = (id, card, type, onclick) => (v.me.dev_cards[card]
    ? actionButton(id, t('play', { card: t(`dev.${card}`) }), hasLegal(type), t('why.cannot_play'), onclick, { class: 'play-card' }, card) : null);
  const primary = hasLegal('roll_dice') || !hasLegal('end_turn')
    ? actionButton('roll', t('roll'), hasLegal('roll_dice'), rollWhy, () => act({ type: 'roll_dice' }), { class: 'primary' }, 'dice')
    : null;
  return h('section', { class: 'actionbar', id: 'actions', 'aria-label': t('actions') },
    h('div', { class: 'action-row builds' },
      primary,
      modeBtn('road', 'build_road'),
      modeBtn('settlement', 'build_settlement'),
      modeBtn('city', 'build_city'),
      actionButton('buy-dev', t('buy_dev'), hasLegal('buy_dev_card'), !mine || !main ? notNow : lacking(COSTS.dev) || t('why.deck_empty'), () => act({ type: 'buy_dev_card' }), {}, 'card_back'),
      play('play-knight', 'knight', 'play_knight', () => act({ type: 'play_knight' })),
      play('play-road-building', 'road_building', 'play_road_building', () => act({ type: 'play_road_building' })),
      play('play-yop', 'year_of_plenty', 'play_year_of_plenty', () => openDialog('yop')),
      play('play-monopoly', 'monopoly', 'play_monopoly', () => openDialog('monopoly')),
      hasLegal('end_turn') || !primary
        ? actionButton('end-turn', t('end_turn'), hasLegal('end_turn'), endWhy, () => act({ type: 'end_turn' }), { class: 'primary' }) : null),
    h('div', { class: 'action-row sheets' },
      sheetButton('trade', 'trade', t('trade'), W().view.offers.length),
      sheetButton('bank', 'bank', t('bank')),
      sheetButton('log', 'log', t('log_short')),
      sheetButton('help', 'help', t('help'))));
}

/** The sheet buttons of a spectator or after the game (log and help). */
function watchBar() {
  const over = W().gameOver && S.gameOverDismissed;
  return h('section', { class: `actionbar${over ? '' : ' watching'}`, id: 'watch-bar', 'aria-label': t('actions') },
    over ? h('div', { class: 'action-row' }, h('button', { type: 'button', id: 'show-results', class: 'primary', onclick: () => dismissGameOver(false) }, icon('victory_point'), t('game_over'))) : null,
    h('div', { class: 'action-row sheets' }, sheetButton('log', 'log', t('log_short')), sheetButton('help', 'help', t('help'))));
}

// ---------------------------------------------------------------- the hand

/** A resource card: its colour, its icon (a shape of its own) and how many. */
export function resourceCard(r, n, attrs = {}) {
  return h('span', { class: 'card res-card', style: `--tint:${RESOURCE_TINT[r]}`, 'data-resource': r, 'data-count': n, title: t(`res.${r}`), ...attrs },
    icon(r), h('span', { class: 'card-n' }, n), h('span', { class: 'card-name' }, t(`res.${r}`)));
}

/** A development card, drawn as a card: its icon, its name, what it does. */
export function devCard(k, n, fresh = 0) {
  return h('span', { class: 'card dev-card', 'data-dev': k, 'data-count': n, title: t(`devhelp.${k}`) },
    icon(k), h('span', { class: 'card-name' }, t(`dev.${k}`)), h('span', { class: 'card-n' }, `×${n}`),
    fresh ? h('span', { class: 'card-new' }, t('new_n', { n: fresh })) : null);
}

function handPanel() {
  const m = W().view.me;
  const devs = Object.entries(m.dev_cards).filter(([, n]) => n > 0);
  return h('section', { class: 'panel hand', id: 'hand', 'aria-label': t('your_hand', { vp: m.total_vp }) },
    h('h3', { class: 'hand-title' }, t('your_hand', { vp: m.total_vp })),
    h('div', { class: 'cards hand-cards' },
      RES.map((r) => resourceCard(r, m.hand[r] || 0)),
      devs.map(([k, n]) => devCard(k, n, m.dev_cards_new[k] || 0))),
    h('p', { class: 'muted ratios', id: 'ratios' }, t('ratios'), ' ', RES.map((r, i) => `${t(`res.${r}`)} ${m.maritime_ratios[i]}:1`).join(t('list_sep'))));
}

// ---------------------------------------------------------------- trading

/**
 * − n + for the cards of `r` in `cards`, at most `max`; `change(r, by)` is the named
 * update that changes them (the discard dialog).
 * @param {Record<string, number>} cards @param {string} r @param {number} max
 * @param {(r: string, by: number) => void} change @param {string} prefix
 */
export function stepper(cards, r, max, change, prefix) {
  const n = cards[r] || 0;
  return h('span', { class: 'stepper', style: `--tint:${RESOURCE_TINT[r]}` },
    h('button', { type: 'button', 'data-step': `${prefix}-${r}-minus`, 'aria-label': `− ${t(`res.${r}`)}`, disabled: n <= 0, onclick: () => change(r, -1) }, '−'),
    h('span', { class: 'step-label' }, icon(r), ` ${t(`res.${r}`)} ${n}`),
    h('button', { type: 'button', 'data-step': `${prefix}-${r}-plus`, 'aria-label': `+ ${t(`res.${r}`)}`, disabled: n >= max, onclick: () => change(r, 1) }, '+'));
}

/** @returns {any[]} */
function maritimeParts() {
  const mar = legalOf('maritime_trade');
  const ratios = W().view.me.maritime_ratios;
  const costs = costsCard('bank-costs');
  if (!mar.length) {
    return [h('p', { class: 'muted' }, t('bank_not_now')), h('p', { class: 'muted ratios' }, t('ratios'), ' ', RES.map((r, i) => `${t(`res.${r}`)} ${ratios[i]}:1`).join(t('list_sep'))), costs];
  }
  const gives = [...new Set(mar.map((a) => a.give))];
  const give = gives.find((g) => g === S.maritime.give) ?? gives[0];
  const gets = mar.filter((a) => a.give === give).map((a) => a.get);
  const get = gets.find((g) => g === S.maritime.get) ?? gets[0];
  return [
    h('div', { class: 'tap-row', role: 'group', 'aria-label': t('you_give') }, h('span', { class: 'side-label' }, t('you_give')),
      gives.map((g) => resourceCard(g, `${ratios[RES.indexOf(g)]}`, {
        role: 'button', tabindex: 0, class: `card res-card tap${g === give ? ' chosen' : ''}`, 'data-maritime-give': g, 'aria-pressed': g === give ? 'true' : 'false',
        onclick: () => setMaritime(g, S.maritime.get), onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); setMaritime(g, S.maritime.get); } },
      }))),
    h('div', { class: 'tap-row', role: 'group', 'aria-label': t('you_get') }, h('span', { class: 'side-label' }, t('you_get')),
      gets.map((g) => resourceCard(g, 1, {
        role: 'button', tabindex: 0, class: `card res-card tap${g === get ? ' chosen' : ''}`, 'data-maritime-get': g, 'aria-pressed': g === get ? 'true' : 'false',
        onclick: () => setMaritime(give, g), onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); setMaritime(give, g); } },
      }))),
    // The selects stay for the keyboard and the tests' older steps.
    h('div', { class: 'row maritime-selects' },
      h('select', { id: 'maritime-give', 'aria-label': t('you_give'), onchange: (e) => setMaritime(e.target.value, S.maritime.get) },
        gives.map((g) => h('option', { value: g, selected: g === give }, `${ratios[RES.indexOf(g)]} ${t(`res.${g}`)}`))),
      h('span', {}, t('for_one')),
      h('select', { id: 'maritime-get', 'aria-label': t('you_get'), onchange: (e) => setMaritime(give, e.target.value) },
        gets.map((g) => h('option', { value: g, selected: g === get }, t(`res.${g}`)))),
      button('maritime', t('trade_bank', { give: `${ratios[RES.indexOf(give)]} ${t(`res.${give}`)}`, get: t(`res.${get}`) }), true,
        () => act({ type: 'maritime_trade', give, get }), { class: 'primary' })),
    costs];
}

/**
 * The offer composed by taps: tapping a card of the hand puts one into "you give",
 * tapping one of the five kinds into "you get", tapping a chosen card takes it back;
 * to everyone or one player; sent when the rules allow (composed at any time).
 */
function composer() {
  const { view: v, you } = W();
  const tr = S.trade;
  const counterable = tr.counterTo !== null && legalOf('counter_offer').some((a) => a.offer === tr.counterTo);
  const overlap = RES.some((r) => tr.give[r] && tr.get[r]);
  const ok = countCards(tr.give) > 0 && countCards(tr.get) > 0 && !overlap;
  const chips = (side) => RES.flatMap((r) => (tr[side][r] ? [h('button', {
    type: 'button', class: 'chip', style: `--tint:${RESOURCE_TINT[r]}`, 'data-step': `${side}-${r}-minus`,
    'aria-label': `− ${t(`res.${r}`)} (${tr[side][r]})`, onclick: () => tradeCard(side, r, -1),
  }, icon(r), h('b', {}, tr[side][r]), icon('close', { cls: 'chip-x' }))] : []));
  const tap = (side, r, max, n) => h('button', {
    type: 'button', class: 'card res-card tap', style: `--tint:${RESOURCE_TINT[r]}`, 'data-step': `${side}-${r}-plus`, 'data-resource': r,
    'aria-label': `+ ${t(`res.${r}`)}`, disabled: (tr[side][r] || 0) >= max, onclick: () => tradeCard(side, r, 1, max),
  }, icon(r), h('span', { class: 'card-n' }, n), h('span', { class: 'card-name' }, t(`res.${r}`)));
  const sendable = counterable || hasLegal('offer_trade');
  const others = v.players.map((p) => p.seat).filter((s) => s !== you);
  return h('div', { class: 'composer', id: 'trade', 'data-counter': counterable ? tr.counterTo : undefined },
    h('h3', { 'data-counter': counterable ? tr.counterTo : undefined }, counterable ? t('counter_to', { id: tr.counterTo }) : t('offer_trade')),
    h('p', { class: 'muted hint' }, t('compose_hint')),
    h('div', { class: 'tap-row', role: 'group', 'aria-label': t('you_give') }, h('span', { class: 'side-label' }, t('you_give')),
      RES.map((r) => tap('give', r, v.me.hand[r] || 0, (v.me.hand[r] || 0) - (tr.give[r] || 0)))),
    h('div', { class: 'chosen-row', 'data-side': 'give' }, chips('give').length ? chips('give') : h('span', { class: 'muted' }, t('nothing'))),
    h('div', { class: 'tap-row', role: 'group', 'aria-label': t('you_get') }, h('span', { class: 'side-label' }, t('you_get')),
      RES.map((r) => tap('get', r, 19, '+'))),
    h('div', { class: 'chosen-row', 'data-side': 'get' }, chips('get').length ? chips('get') : h('span', { class: 'muted' }, t('nothing'))),
    counterable ? null : h('div', { class: 'tap-row to-row', role: 'radiogroup', 'aria-label': t('to') }, h('span', { class: 'side-label' }, t('to')),
      [['', t('everyone')], ...others.map((s) => [String(s), seatName(s)])].map(([val, label]) => h('button', {
        type: 'button', role: 'radio', class: `to${tr.to === val ? ' chosen' : ''}`, 'data-offer-to': val, 'aria-checked': tr.to === val ? 'true' : 'false',
        onclick: () => tradeTo(val),
      }, val === '' ? icon('trade') : seatMark(Number(val)), label))),
    h('div', { class: 'row' },
      counterable
        ? [button('send-counter', t('send_counter'), ok, () => {
          act({ type: 'counter_offer', offer: tr.counterTo, give: { ...tr.give }, get: { ...tr.get } }); clearTrade(false);
        }, { class: 'primary' }), h('button', { type: 'button', id: 'cancel-counter', onclick: () => clearTrade() }, t('cancel'))]
        : button('send-offer', t('offer'), ok && sendable, () => {
          const to = tr.to;
          act({ type: 'offer_trade', to: to === '' ? null : Number(to), give: { ...tr.give }, get: { ...tr.get } });
          clearTrade(false);
          tradeTo(to);
        }, { class: 'primary', title: sendable ? undefined : t('why.offer_not_now') }),
      countCards(tr.give) + countCards(tr.get) && !counterable ? h('button', { type: 'button', id: 'clear-offer', onclick: () => clearTrade() }, t('clear')) : null,
      !sendable && !counterable ? h('small', { class: 'why' }, t('why.offer_not_now')) : null),
    overlap ? h('p', { class: 'error' }, t('both_sides')) : null);
}

const seatsIn = (mask) => W().view.players.map((p) => p.seat).filter((s) => mask & (1 << s));

/** One offer as a card: who to whom, the terms as cards, each player's answer as a mark, the buttons. */
function offerCard(o) {
  const { view: v, legal, offerDeadlines, you } = W();
  const dl = offerDeadlines.find((d) => d.offer === o.id);
  const acc = seatsIn(o.accepted);
  const rej = seatsIn(o.rejected);
  const mine = (type) => legal.find((a) => a.type === type && 'offer' in a && a.offer === o.id);
  const asked = v.players.map((p) => p.seat).filter((s) => s !== o.from && (o.to === null || o.to === s));
  const cards = (c) => RES.filter((r) => c[r]).map((r) => h('span', { class: 'mini-card', style: `--tint:${RESOURCE_TINT[r]}`, title: t(`res.${r}`) }, icon(r), h('b', {}, c[r])));
  return h('div', { class: `offer${o.from === you ? ' own' : ''}`, 'data-offer': o.id, 'data-key': `offer-${o.id}`, 'data-from': o.from, 'data-to': o.to ?? '', 'data-counter-to': o.counter_to ?? '' },
    h('div', { class: 'offer-head' }, seatMark(o.from), h('span', { class: 'name' }, seatName(o.from)), ' → ', o.to === null ? t('everyone') : who(o.to),
      o.counter_to ? h('span', { class: 'muted' }, ` ${t('countering', { id: o.counter_to })}`) : null, dl ? [' ', countdown(dl.deadline)] : null,
      h('span', { class: 'muted offer-id' }, `#${o.id}`)),
    h('div', { class: 'offer-terms' },
      h('span', { class: 'terms-side', 'aria-hidden': 'true' }, cards(o.give)), icon('trade', { cls: 'terms-arrow' }), h('span', { class: 'terms-side', 'aria-hidden': 'true' }, cards(o.get)),
      // The terms in words too (read out; the cards are their picture).
      h('span', { class: 'terms-words' }, t('gives_wants', { give: cardsText(o.give), get: cardsText(o.get) }))),
    // Each answer as a mark beside the player: accepted, rejected, not yet.
    h('ul', { class: 'answers', 'aria-label': t('answers') }, asked.map((s) => {
      const a = acc.includes(s) ? 'accepted' : rej.includes(s) ? 'rejected' : 'waiting';
      return h('li', { class: `answer ${a}`, 'data-seat': s, 'data-answer': a },
        seatMark(s), h('span', { class: 'name' }, seatName(s)), icon(a === 'accepted' ? 'check' : a === 'rejected' ? 'cross' : 'wait', { label: t(`answer.${a}`) }));
    })),
    h('div', { class: 'row' },
      mine('accept_offer') ? button(`accept-${o.id}`, [icon('check'), t('accept')], true, () => act({ type: 'accept_offer', offer: o.id }), { class: 'primary' }) : null,
      mine('reject_offer') ? button(`reject-${o.id}`, [icon('cross'), t('reject')], true, () => act({ type: 'reject_offer', offer: o.id })) : null,
      mine('counter_offer') ? button(`counter-${o.id}`, t('counter'), true, () => counterOffer(o.id, o.get, o.give)) : null,
      legalOf('confirm_trade').filter((a) => a.offer === o.id).map((a) => button(`confirm-${o.id}-${a.with}`, t('trade_with', { name: seatName(a.with) }), true,
        () => act({ type: 'confirm_trade', offer: o.id, with: a.with }), { class: 'primary' })),
      mine('withdraw_offer') ? button(`withdraw-${o.id}`, t('withdraw'), true, () => act({ type: 'withdraw_offer', offer: o.id })) : null));
}

function offersPanel() {
  const v = W().view;
  if (!v.offers.length) return null;
  return h('section', { class: 'panel offers', id: 'offers', 'aria-label': t('open_offers') }, h('h3', {}, t('open_offers')), v.offers.map(offerCard));
}

function bankPanel() {
  const v = W().view;
  return h('div', { class: 'bank', id: 'bank' }, h('h3', {}, t('bank')),
    h('div', { class: 'cards' }, RES.map((r) => h('span', { class: 'card res-card small', style: `--tint:${RESOURCE_TINT[r]}`, 'data-bank': r, title: t(`res.${r}`) },
      icon(r), h('span', { class: 'card-n' }, v.bank[r] || 0), h('span', { class: 'card-name' }, t(`res.${r}`)))),
    h('span', { class: 'card dev-card small', 'data-bank': 'dev', title: t('dev_deck', { n: v.dev_deck }) }, icon('card_back'), h('span', { class: 'card-n' }, v.dev_deck), h('span', { class: 'card-name' }, t('dev_deck', { n: '' }).trim()))));
}

// ---------------------------------------------------------------- the screen

function problemLine() {
  const refused = W().refusal;
  const problem = refused ? refusal(refused) : S.flash;
  return problem ? h('p', { class: S.flashOk && !refused ? 'ok' : 'error', id: 'flash', role: 'alert' }, problem) : null;
}

const hlKey = () => { const x = highlights(); return [[...x.vertices], [...x.edges], [...x.tiles]]; };
const sheetHead = (name, title) => h('div', { class: 'sheet-head' }, h('h2', {}, title),
  h('button', { type: 'button', class: 'sheet-close', id: `close-${name}`, 'aria-label': t('close'), onclick: () => toggleSheet(null) }, icon('close')));

/**
 * The parts of the game screen: where each goes (a slot's id), what it shows (its
 * key) and how it is drawn.
 */
const PARTS = {
  'status-line': new Part(() => key(W().view.turn, W().view.current, W().view.phase.name, W().view.last_roll, S.rolls, W().deadline, W().you, seatsKey()), statusBar),
  'prompt-slot': new Part(() => key(W().view.phase, W().pending, W().legal.map((a) => a.type), S.mode, W().you, W().view.current, W().view.winner, seatsKey()),
    () => h('div', { class: 'prompt', id: 'prompt', role: 'status' }, phasePrompt())),
  'flash-slot': new Part(() => key(W().refusal, S.flash, S.flashOk), problemLine),
  'board-slot': new Part(() => {
    const v = W().view;
    return key(v.buildings, v.roads, v.robber, v.map.harbors.length, hlKey(), S.lastPiece, [...(glance()?.tiles || [])], S.zoom, v.phase.name, v.current, W().you);
  }, boardSvg),
  'zoom-slot': new Part(() => key(S.zoom), zoomButtons),
  'offers-slot': new Part(() => key(W().view.offers, W().legal, W().offerDeadlines, seatsKey(), W().pending, W().you), offersPanel),
  'actions-slot': new Part(() => key(playing(), !!W().gameOver, S.gameOverDismissed, W().legal, W().pending, W().view.phase.name, W().view.current, S.mode, S.sheet, W().view.me?.hand, W().view.me?.dev_cards, W().view.dev_deck, W().view.offers.length),
    () => (playing() ? actionsPanel() : watchBar())),
  'players-slot': new Part(() => {
    const v = W().view;
    return key(v.players, v.current, W().deadline, W().clocks, v.phase.name, v.longest_road, v.largest_army, v.me?.total_vp, glance()?.gains, seatsKey(), v.options.vp_target, W().gameOver?.scores);
  }, playersPanel),
  'hand-slot': new Part(() => key(playing(), W().view.me), () => (playing() ? handPanel() : null)),
  'trade-slot': new Part(() => key(playing(), S.trade, W().legal, W().pending, W().view.me?.hand, seatsKey()),
    () => (playing() ? [sheetHead('trade', t('trade')), composer()] : null)),
  'bank-slot': new Part(() => key(playing(), S.maritime, W().legal, W().pending, W().view.me?.maritime_ratios, W().view.bank, W().view.dev_deck),
    () => [sheetHead('bank', t('bank')), bankPanel(), playing() ? h('div', { id: 'maritime-trade' }, h('h3', {}, t('bank_trade')), maritimeParts()) : null]),
  'help-slot': new Part(() => key(W().view.phase.name), () => [sheetHead('help', t('help')), helpPanel()]),
};

/** The screen's frame: the slots of the parts and the log's panel, made once per game page. */
function frame(chatPanel) {
  const slot = (id, cls = 'slot') => h('div', { id, class: cls });
  const sheet = (name, ...inner) => h('section', { class: 'sheet', id: `${name}-sheet`, 'aria-label': t(name === 'log' ? 'log_chat' : name) }, ...inner);
  const wrap = h('div', { class: 'board-wrap', id: 'board-wrap' }, slot('board-slot', 'slot board-slot'), slot('zoom-slot', 'slot zoom-slot'), slot('offers-slot', 'slot offers-slot'));
  gestures(wrap);
  return h('div', { class: 'game', id: 'game' },
    slot('players-slot', 'slot players-slot'),
    h('section', { class: 'board-col' }, slot('prompt-slot'), slot('flash-slot'), wrap, slot('hand-slot', 'slot hand-slot'), slot('actions-slot', 'slot actions-slot')),
    h('div', { class: 'side', id: 'side' },
      sheet('trade', slot('trade-slot')),
      sheet('bank', slot('bank-slot')),
      sheet('log', h('div', { class: 'sheet-head' }, h('h2', {}, t('log_chat')),
        h('button', { type: 'button', class: 'sheet-close', id: 'close-log', 'aria-label': t('close'), onclick: () => toggleSheet(null) }, icon('close'))), chatPanel),
      sheet('help', slot('help-slot'))));
}

/**
 * Draws the game screen: the frame once, then each part whose key changed. Answers
 * the ids of the parts drawn (for the tests: `window.__catanPage.drawn`).
 * @param {() => HTMLElement} chatPanel the log and chat panel (app.js), placed once
 * @returns {string[]}
 */
export function renderGame(chatPanel) {
  const $app = document.getElementById('app');
  let fresh = false;
  if (!document.getElementById('game')) {
    $app.replaceChildren(frame(chatPanel()));
    fresh = true;
  }
  // Whenever the board must be tapped it is in view: an open sheet closes (R-4, R-7:
  // the setup, the robber and a build all wait on the board).
  if (S.sheet && boardNeeded()) closeSheet();
  const game = document.getElementById('game');
  game.dataset.sheet = S.sheet || '';
  game.dataset.playing = playing() ? '1' : '';
  for (const name of ['trade', 'bank', 'log', 'help']) {
    const el = document.getElementById(`${name}-sheet`);
    if (el) el.toggleAttribute('data-open', S.sheet === name);
  }
  const drawn = [];
  for (const [id, part] of Object.entries(PARTS)) {
    const slot = document.getElementById(id);
    if (slot && part.update(slot, fresh)) drawn.push(id);
  }
  // An open sheet sits over the board, above the bar of actions (which stays in reach).
  if (S.sheet) document.documentElement.style.setProperty('--dock', `${document.getElementById('actions-slot')?.offsetHeight || 0}px`);
  return drawn;
}
