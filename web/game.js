// The game screen: status bar, board, actions, players, hand, offers, trade, bank.
// Everything shown comes from the kit's view (`W().view`), nothing re-derived.

import { drawBoard, RESOURCE_COLORS } from './board.js';
import { t, cardsText, refusal } from './i18n.js';
import { tileName, vertexName, edgeName } from './log.js';
import { countCards } from './kit.js';
import {
  h, S, W, RES, COSTS, seatName, dot, who, legalOf, hasLegal, act, button, lacking, countdown, gainsText, glance,
} from './ui.js';

const $status = () => document.getElementById('status-line');
const phaseName = (v) => t(`phase.${v.phase.name}`);

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

function highlights() {
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

/** A legal spot in words, for screen readers: "Settlement at the 6 fields and 8 hills". */
function spotLabel(kind, id) {
  const v = W().view;
  if (kind === 'tile') return t('spot.robber', { place: tileName(v, id) });
  if (kind === 'edge') return t('spot.road', { place: edgeName(v, id) });
  return t(kind === 'city' ? 'spot.city' : 'spot.settlement', { place: vertexName(v, id) });
}

function onPick(kind, id) {
  if (W().pending) return;
  if (kind === 'settlement') act({ type: 'build_settlement', vertex: id });
  else if (kind === 'city') act({ type: 'build_city', vertex: id });
  else if (kind === 'edge') act({ type: 'build_road', edge: id });
  else if (kind === 'tile') {
    const options = legalOf('move_robber').filter((a) => a.tile === id);
    if (options.length === 1) act({ type: 'move_robber', tile: id, victim: options[0].victim });
    else if (options.length > 1) { S.dialog = 'victim'; S.dialogData = { tile: id, options }; S.render(); }
  }
}

/** The dice shown, kept from one redraw to the next so that a roll animates once. */
let diceShown = { key: '', el: /** @type {HTMLElement | null} */ (null) };

function statusBar() {
  const { view: v, deadline, you } = W();
  const key = v.last_roll ? `${v.last_roll.join('+')}@${S.rolledAt}` : '-';
  if (diceShown.key !== key || !diceShown.el) {
    // A roll seen live (S.rolledAt) tumbles briefly (CSS; not with prefers-reduced-motion).
    const rolling = Date.now() - S.rolledAt < 800;
    const el = v.last_roll
      ? h('span', { class: `dice${rolling ? ' rolling' : ''}`, id: 'dice', title: t('last_roll'), 'data-sum': v.last_roll[0] + v.last_roll[1], 'aria-label': t('rolled_sum', { sum: v.last_roll[0] + v.last_roll[1] }) },
        h('span', { class: 'die' }, v.last_roll[0]), h('span', { class: 'die' }, v.last_roll[1]), ` = ${v.last_roll[0] + v.last_roll[1]}`)
      : h('span', { class: 'dice', id: 'dice' }, '–');
    diceShown = { key, el };
  }
  const dice = diceShown.el;
  $status().replaceChildren(...[
    h('span', { id: 'turn-info', 'data-turn': v.turn }, t('turn_n', { n: v.turn }), ' ', who(v.current), ' ', h('span', { class: 'phase' }, phaseName(v))),
    dice,
    deadline ? h('span', { class: 'timer', title: t('timer') }, countdown(deadline)) : null,
    you === null ? h('span', { class: 'badge' }, t('spectator')) : null,
  ].filter(Boolean));
}

export function renderGame() {
  const { view: v, you, refusal: refused } = W();
  statusBar();
  const svg = /** @type {SVGSVGElement} */ (/** @type {unknown} */ (document.createElementNS('http://www.w3.org/2000/svg', 'svg')));
  svg.id = 'board';
  drawBoard(svg, v, highlights(), onPick, { last: S.lastPiece, glow: glance()?.tiles, label: spotLabel });
  const problem = refused ? refusal(refused) : S.flash;
  const boardCol = h('section', { class: 'board-col' },
    h('div', { class: 'prompt', id: 'prompt' }, phasePrompt()),
    problem ? h('p', { class: 'error', id: 'flash', role: 'alert' }, problem) : null,
    svg,
    you !== null && v.phase.name !== 'over' ? actionsPanel() : null);
  /** @type {any[]} */
  const side = [playersPanel()];
  if (you !== null && v.phase.name !== 'over') side.push(handPanel());
  side.push(offersPanel(), S.chatPanel());
  if (you !== null && v.phase.name !== 'over') side.push(tradePanel());
  side.push(bankPanel());
  document.getElementById('app').replaceChildren(h('div', { class: 'game' }, boardCol, h('div', { class: 'side' }, side)));
}

function playersPanel() {
  const { view: v, room, you, deadline } = W();
  const shown = glance();
  const award = (held, key) => (held ? h('span', { class: 'badge award', title: t(key), 'data-award': key }, t(key)) : null);
  return h('section', { class: 'panel', id: 'players-panel' }, h('h3', {}, t('players')),
    h('table', { id: 'players' },
      h('tr', {}, h('th', {}, t('player')), h('th', { title: t('vp_long') }, t('vp')), h('th', { title: t('cards_long') }, t('cards')),
        h('th', { title: t('dev_long') }, t('dev')), h('th', { title: t('knights_long') }, t('knights')), h('th', { title: t('road_long') }, t('road'))),
      v.players.map((p) => {
        const seat = room.seats[p.seat];
        const vp = v.me && v.me.seat === p.seat ? v.me.total_vp : p.public_vp;
        const current = p.seat === v.current;
        return h('tr', { class: current ? 'current' : '', 'data-seat': p.seat },
          h('td', {}, dot(p.seat), seatName(p.seat),
            seat?.occupant?.bot ? h('span', { class: 'badge' }, t('bot')) : null,
            p.seat === you ? h('span', { class: 'badge', 'data-you': '' }, t('you')) : null,
            seat && !seat.connected ? h('span', { class: 'badge' }, t('away')) : null,
            seat?.stand_in ? h('span', { class: 'badge', 'data-stand-in': '' }, t('stand_in')) : null,
            current && deadline ? h('span', { class: 'badge timer', title: t('timer') }, countdown(deadline)) : null,
            award(v.longest_road === p.seat, 'longest_road'),
            award(v.largest_army === p.seat, 'largest_army'),
            shown?.gains[p.seat] ? h('span', { class: 'badge gain', 'data-gain': p.seat }, gainsText(shown.gains[p.seat])) : null),
          h('td', { class: 'vp' }, vp),
          h('td', { class: 'n-cards' }, p.resource_cards),
          h('td', {}, p.dev_cards),
          h('td', {}, p.knights_played),
          h('td', { class: 'road-length' }, p.road_length));
      })),
    h('p', { class: 'muted' }, t('goal', { vp: v.options.vp_target, turns: v.options.turn_limit ?? 1000 })));
}

/** A button with the reason it is disabled under its label. */
function actionButton(id, label, enabled, why, onclick, extra = {}) {
  const reason = enabled ? '' : why;
  return button(id, [h('span', {}, label), reason ? h('small', { class: 'why' }, reason) : null], enabled, onclick,
    { title: reason || undefined, ...extra });
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
    () => { S.mode = S.mode === mode ? null : mode; S.render(); }, { class: S.mode === mode ? 'active' : '' });
  const play = (id, card, type, onclick) => (v.me.dev_cards[card]
    ? actionButton(id, t('play', { card: t(`dev.${card}`) }), hasLegal(type), t('why.cannot_play'), onclick) : null);
  return h('section', { class: 'actionbar', id: 'actions', 'aria-label': t('actions') },
    actionButton('roll', t('roll'), hasLegal('roll_dice'), rollWhy, () => act({ type: 'roll_dice' }), { class: 'primary' }),
    modeBtn('road', 'build_road'),
    modeBtn('settlement', 'build_settlement'),
    modeBtn('city', 'build_city'),
    actionButton('buy-dev', t('buy_dev'), hasLegal('buy_dev_card'), !mine || !main ? notNow : lacking(COSTS.dev) || t('why.deck_empty'), () => act({ type: 'buy_dev_card' })),
    play('play-knight', 'knight', 'play_knight', () => act({ type: 'play_knight' })),
    play('play-road-building', 'road_building', 'play_road_building', () => act({ type: 'play_road_building' })),
    play('play-yop', 'year_of_plenty', 'play_year_of_plenty', () => { S.dialog = 'yop'; S.render(); }),
    play('play-monopoly', 'monopoly', 'play_monopoly', () => { S.dialog = 'monopoly'; S.render(); }),
    actionButton('end-turn', t('end_turn'), hasLegal('end_turn'), endWhy, () => act({ type: 'end_turn' }), { class: 'primary' }));
}

function handPanel() {
  const m = W().view.me;
  const devs = Object.entries(m.dev_cards).filter(([, n]) => n > 0);
  return h('section', { class: 'panel', id: 'hand' }, h('h3', {}, t('your_hand', { vp: m.total_vp })),
    h('div', { class: 'cards' }, RES.map((r) => h('span', {
      class: 'card', style: `background:${RESOURCE_COLORS[r]}`, 'data-resource': r, 'data-count': m.hand[r] || 0,
    }, `${t(`res.${r}`)} ${m.hand[r] || 0}`))),
    h('div', { class: 'cards' }, devs.length
      ? devs.map(([k, n]) => h('span', { class: 'card', 'data-dev': k }, `${t(`dev.${k}`)} ×${n}${m.dev_cards_new[k] ? ` ${t('new_n', { n: m.dev_cards_new[k] })}` : ''}`))
      : h('span', { class: 'muted' }, t('no_dev'))),
    h('p', { class: 'muted', id: 'ratios' }, t('ratios'), ' ', RES.map((r, i) => `${t(`res.${r}`)} ${m.maritime_ratios[i]}:1`).join(t('list_sep'))));
}

export function stepper(obj, r, max, onchange, prefix) {
  const n = obj[r] || 0;
  return h('span', { class: 'stepper' },
    h('button', { type: 'button', 'data-step': `${prefix}-${r}-minus`, 'aria-label': `− ${t(`res.${r}`)}`, disabled: n <= 0, onclick: () => { obj[r] = n - 1; if (!obj[r]) delete obj[r]; onchange(); } }, '−'),
    h('span', { class: 'step-label', style: `border-bottom:3px solid ${RESOURCE_COLORS[r]}` }, `${t(`res.${r}`)} ${n}`),
    h('button', { type: 'button', 'data-step': `${prefix}-${r}-plus`, 'aria-label': `+ ${t(`res.${r}`)}`, disabled: n >= max, onclick: () => { obj[r] = n + 1; onchange(); } }, '+'));
}

/** @returns {any[]} */
function maritimeParts() {
  const mar = legalOf('maritime_trade');
  if (!mar.length) return [];
  const ratios = W().view.me.maritime_ratios;
  const gives = [...new Set(mar.map((a) => a.give))];
  if (!gives.includes(S.maritime.give)) S.maritime.give = gives[0];
  const gets = mar.filter((a) => a.give === S.maritime.give).map((a) => a.get);
  if (!gets.includes(S.maritime.get)) S.maritime.get = gets[0];
  return [h('h3', {}, t('bank_trade')),
    h('div', { class: 'row' },
      h('select', { id: 'maritime-give', 'aria-label': t('you_give'), onchange: (e) => { S.maritime.give = e.target.value; S.render(); } },
        gives.map((g) => h('option', { value: g, selected: g === S.maritime.give }, `${ratios[RES.indexOf(g)]} ${t(`res.${g}`)}`))),
      h('span', {}, t('for_one')),
      h('select', { id: 'maritime-get', 'aria-label': t('you_get'), onchange: (e) => { S.maritime.get = e.target.value; } },
        gets.map((g) => h('option', { value: g, selected: g === S.maritime.get }, t(`res.${g}`)))),
      button('maritime', t('trade'), true, () => act({ type: 'maritime_trade', give: S.maritime.give, get: S.maritime.get })))];
}

function tradePanel() {
  const { view: v, you } = W();
  const tr = S.trade;
  const parts = maritimeParts();
  const counterable = tr.counterTo !== null && legalOf('counter_offer').some((a) => a.offer === tr.counterTo);
  if (hasLegal('offer_trade') || counterable) {
    const rerender = () => S.render();
    const overlap = RES.some((r) => tr.give[r] && tr.get[r]);
    const ok = countCards(tr.give) > 0 && countCards(tr.get) > 0 && !overlap;
    const reset = () => { S.trade = { give: {}, get: {}, to: '', counterTo: null }; };
    parts.push(h('h3', { 'data-counter': counterable ? tr.counterTo : undefined }, counterable ? t('counter_to', { id: tr.counterTo }) : t('offer_trade')),
      h('div', {}, h('span', { class: 'side-label' }, t('you_give')), RES.map((r) => stepper(tr.give, r, v.me.hand[r] || 0, rerender, 'give'))),
      h('div', {}, h('span', { class: 'side-label' }, t('you_get')), RES.map((r) => stepper(tr.get, r, 19, rerender, 'get'))),
      counterable ? null : h('label', { class: 'row' }, t('to'), ' ', h('select', { id: 'offer-to', onchange: (e) => { tr.to = e.target.value; } },
        h('option', { value: '' }, t('everyone')),
        v.players.map((p) => p.seat).filter((s) => s !== you).map((s) => h('option', { value: s, selected: String(s) === tr.to }, seatName(s))))),
      counterable
        ? [button('send-counter', t('send_counter'), ok, () => {
          act({ type: 'counter_offer', offer: tr.counterTo, give: { ...tr.give }, get: { ...tr.get } }); reset();
        }), h('button', { onclick: () => { reset(); S.render(); } }, t('cancel'))]
        : button('send-offer', t('offer'), ok, () => {
          act({ type: 'offer_trade', to: tr.to === '' ? null : Number(tr.to), give: { ...tr.give }, get: { ...tr.get } });
          S.trade = { give: {}, get: {}, to: tr.to, counterTo: null };
        }),
      overlap ? h('p', { class: 'error' }, t('both_sides')) : null);
  }
  return parts.length ? h('section', { class: 'panel', id: 'trade' }, parts) : null;
}

const seatsIn = (mask) => W().view.players.map((p) => p.seat).filter((s) => mask & (1 << s));

function offersPanel() {
  const { view: v, legal, offerDeadlines } = W();
  if (!v.offers.length) return null;
  return h('section', { class: 'panel', id: 'offers' }, h('h3', {}, t('open_offers')),
    v.offers.map((o) => {
      const dl = offerDeadlines.find((d) => d.offer === o.id);
      const acc = seatsIn(o.accepted);
      const rej = seatsIn(o.rejected);
      const mine = (type) => legal.find((a) => a.type === type && 'offer' in a && a.offer === o.id);
      return h('div', { class: 'offer', 'data-offer': o.id, 'data-from': o.from, 'data-to': o.to ?? '', 'data-counter-to': o.counter_to ?? '' },
        h('div', {}, `#${o.id} `, who(o.from), ' → ', o.to === null ? t('everyone') : who(o.to),
          o.counter_to ? ` ${t('countering', { id: o.counter_to })}` : '', dl ? [' ', countdown(dl.deadline)] : null),
        h('div', { class: 'offer-terms' }, t('gives_wants', { give: cardsText(o.give), get: cardsText(o.get) })),
        acc.length || rej.length ? h('div', { class: 'muted' },
          acc.length ? [t('accepted_by'), ' ', acc.map((s) => who(s))] : null, ' ',
          rej.length ? [t('rejected_by'), ' ', rej.map((s) => who(s))] : null) : null,
        h('div', { class: 'row' },
          mine('accept_offer') ? button(`accept-${o.id}`, t('accept'), true, () => act({ type: 'accept_offer', offer: o.id })) : null,
          mine('reject_offer') ? button(`reject-${o.id}`, t('reject'), true, () => act({ type: 'reject_offer', offer: o.id })) : null,
          mine('counter_offer') ? button(`counter-${o.id}`, t('counter'), true, () => {
            S.trade = { give: { ...o.get }, get: { ...o.give }, to: '', counterTo: o.id }; S.render();
          }) : null,
          legalOf('confirm_trade').filter((a) => a.offer === o.id).map((a) => button(`confirm-${o.id}-${a.with}`, t('trade_with', { name: seatName(a.with) }), true,
            () => act({ type: 'confirm_trade', offer: o.id, with: a.with }))),
          mine('withdraw_offer') ? button(`withdraw-${o.id}`, t('withdraw'), true, () => act({ type: 'withdraw_offer', offer: o.id })) : null));
    }));
}

function bankPanel() {
  const v = W().view;
  return h('section', { class: 'panel', id: 'bank' }, h('h3', {}, t('bank')),
    h('div', { class: 'cards' }, RES.map((r) => h('span', { class: 'card', style: `background:${RESOURCE_COLORS[r]}`, 'data-bank': r }, `${t(`res.${r}`)} ${v.bank[r] || 0}`)),
      h('span', { class: 'card', 'data-bank': 'dev' }, t('dev_deck', { n: v.dev_deck }))));
}
