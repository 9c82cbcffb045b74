// The modal dialogs: discard, robber victim, Year of Plenty, Monopoly, game over.

import { t, cardsText, language } from './i18n.js';
import { countCards } from './kit.js';
import { stepper } from './game.js';
import { Part } from './dom.js';
import { clearDiscard, closeDialog, discardCard } from './state.js';
import { h, S, W, RES, dot, seatName, legalOf, hasLegal, act, button } from './ui.js';
import { endScreen } from './endgame.js';

function dialog(id, title, ...body) {
  return h('div', { class: 'dialog', id, role: 'dialog', 'aria-modal': 'true', 'aria-label': title }, h('h2', {}, title), ...body);
}
const cancel = () => h('div', {}, h('button', { onclick: () => closeDialog() }, t('cancel')));

function discardDialog() {
  const { view: v, you } = W();
  const owed = v.phase.name === 'discard' ? v.phase.pending[you] : 0;
  const chosen = countCards(S.discard);
  return dialog('discard-dialog', t('discard_title', { n: owed }),
    h('p', {}, t('discard_why', { n: owed })),
    // One row a kind: how many to discard, and how many the hand holds (the hand is
    // behind the dialog).
    h('div', { class: 'discard-rows' }, RES.map((r) => h('div', { class: 'discard-row', 'data-resource': r },
      stepper(S.discard, r, Math.min(v.me.hand[r] || 0, (S.discard[r] || 0) + owed - chosen), (x, by) => discardCard(x, by, v.me.hand[x] || 0), 'discard'),
      h('span', { class: 'muted' }, t('discard_held', { n: v.me.hand[r] || 0 }))))),
    h('p', {}, t('chosen', { n: chosen, of: owed })),
    button('discard-confirm', t('discard'), chosen === owed, () => { const cards = { ...S.discard }; clearDiscard(); act({ type: 'discard', cards }); }, { class: 'primary' }));
}

function gameOverDialog() {
  const { gameOver: g, room } = W();
  return h('div', { class: 'dialog end-screen', id: 'game-over', role: 'dialog', 'aria-modal': 'true', 'aria-label': t('game_over') },
    h('h2', {}, t('game_over')), ...endScreen(g, room));
}

/** What the dialogs show, summed up (the modal is drawn again when it changes). */
const modalKey = () => {
  const { view: v, gameOver, pending, legal, rematch } = W();
  return JSON.stringify([language(), !!gameOver, S.gameOverDismissed, rematch, S.rating, S.flash, S.dialog, S.dialogData, S.discard, pending,
    legal, v?.phase, v?.me?.hand, v?.players?.map((p) => p.resource_cards), W().room?.seats]);
};
const modal = new Part(modalKey, modalContent);

/** Draws the open dialog, if it changed. */
export function renderModal() {
  const $modal = document.getElementById('modal');
  if (!modal.update($modal)) return;
  $modal.hidden = !$modal.firstChild;
}

function modalContent() {
  const { view: v, gameOver, pending } = W();
  let content = null;
  if (gameOver && !S.gameOverDismissed) content = gameOverDialog();
  else if (v && hasLegal('discard') && v.phase.name === 'discard' && !pending) content = discardDialog();
  else if (v && S.dialog === 'victim' && !pending) {
    const { tile, options } = S.dialogData;
    content = dialog('victim-dialog', t('rob_whom'),
      options.map((a) => button(`victim-${a.victim}`, [dot(a.victim), t('victim_cards', { name: seatName(a.victim), n: v.players[a.victim].resource_cards })], true,
        () => { closeDialog({ now: false }); act({ type: 'move_robber', tile, victim: a.victim }); })),
      cancel());
  } else if (v && S.dialog === 'yop' && hasLegal('play_year_of_plenty') && !pending) {
    content = dialog('yop-dialog', t('yop_title'),
      legalOf('play_year_of_plenty').map((a, i) => button(`yop-${i}`, cardsText(a.take), true,
        () => { closeDialog({ now: false }); act({ type: 'play_year_of_plenty', take: a.take }); })),
      cancel());
  } else if (v && S.dialog === 'monopoly' && hasLegal('play_monopoly') && !pending) {
    content = dialog('monopoly-dialog', t('monopoly_title'),
      legalOf('play_monopoly').map((a) => button(`monopoly-${a.resource}`, t(`res.${a.resource}`), true,
        () => { closeDialog({ now: false }); act({ type: 'play_monopoly', resource: a.resource }); })),
      cancel());
  } else if (S.dialog && !pending) {
    // (Its action is no longer legal: the dialog closes.)
    closeDialog({ now: false });
  }
  return content;
}
