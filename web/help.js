// Help for a first game, in the page's language: what each build costs (R-5.1), what
// each development card does (R-8), and a short guide to a first game with a hint for
// the opening spots (the numbers on candidate spots are their pips).

import { t } from './i18n.js';
import { h } from './dom.js';
import { icon, RESOURCE_TINT } from './icons.js';

/** What each build or purchase costs (R-5.1). @type {[string, Record<string, number>, string][]} */
const COSTS = [
  ['road', { lumber: 1, brick: 1 }, 'help.road'],
  ['settlement', { lumber: 1, brick: 1, wool: 1, grain: 1 }, 'help.settlement'],
  ['city', { grain: 2, ore: 3 }, 'help.city'],
  ['card_back', { wool: 1, grain: 1, ore: 1 }, 'help.dev'],
];
const DEV = ['knight', 'road_building', 'year_of_plenty', 'monopoly', 'victory_point'];

/** The building costs card: each piece, its cost as cards, and what it brings. */
export function costsCard(id = 'costs-card') {
  const cost = (c) => Object.entries(c).flatMap(([r, n]) => Array.from({ length: n }, () => h('span', { class: 'cost-card', style: `--tint:${RESOURCE_TINT[r]}`, title: t(`res.${r}`) }, icon(r))));
  return h('section', { class: 'costs', id, 'aria-label': t('help.costs') }, h('h3', {}, t('help.costs')),
    h('ul', {}, COSTS.map(([piece, c, what]) => h('li', { 'data-cost': piece },
      h('span', { class: 'cost-piece' }, icon(piece), h('b', {}, piece === 'card_back' ? t('help.dev_card') : t(`piece.${piece}`))),
      h('span', { class: 'cost-cards', 'aria-label': Object.entries(c).map(([r, n]) => `${n} ${t(`res.${r}`)}`).join(', ') }, cost(c)),
      h('small', { class: 'muted' }, t(what))))));
}

/** Each development card, drawn as a card, with what it does. */
export function devCardsHelp() {
  return h('section', { class: 'dev-help', id: 'dev-help' }, h('h3', {}, t('help.dev_cards')),
    h('div', { class: 'dev-help-cards' }, DEV.map((k) => h('div', { class: 'card dev-card big', 'data-dev-help': k },
      icon(k), h('b', { class: 'card-name' }, t(`dev.${k}`)), h('span', { class: 'card-text' }, t(`devhelp.${k}`))))));
}

/** A short guide to a first game. */
export function firstGameGuide() {
  return h('section', { class: 'guide', id: 'first-game' }, h('h3', {}, t('help.first_game')),
    h('ol', {}, ['guide.1', 'guide.2', 'guide.3', 'guide.4', 'guide.5'].map((k) => h('li', {}, t(k)))));
}

/** The help sheet: the guide, the costs, the development cards. */
export function helpPanel() {
  return h('div', { class: 'help', id: 'help' }, firstGameGuide(), costsCard(), devCardsHelp());
}
