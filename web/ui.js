// What the page's modules share: seat names, buttons, countdowns and toasts. The page
// state is state.js's (`S`, written through its named updates), the wire state the
// kit's Connection's (`S.conn.state`), the DOM helpers dom.js's.

import { SEAT_COLORS, SEAT_NAMES } from './board.js';
import { t, cardsText } from './i18n.js';
import { h } from './dom.js';
import { S, leaveMode, onUpdate } from './state.js';

export { h, S };

/** @typedef {import('./protocol').Action} Action */
/** @typedef {import('./protocol').ActionInput} ActionInput */
/** @typedef {import('./kit.js').Connection} Connection */

export const RES = ['lumber', 'brick', 'wool', 'grain', 'ore'];
/** What each build or purchase costs (R-5.1), for the reason a button is disabled. */
export const COSTS = {
  road: { lumber: 1, brick: 1 },
  settlement: { lumber: 1, brick: 1, wool: 1, grain: 1 },
  city: { grain: 2, ore: 3 },
  dev: { wool: 1, grain: 1, ore: 1 },
};

/** @type {any} */ (window).__catan = S; // read by the tests and in the console (read-only)

/** The wire state (an empty one before the connection). */
export const W = () => S.conn?.state || {
  room: S.room, you: null, view: null, legal: [], deadline: null, offerDeadlines: [], clocks: null, gameOver: null, rematch: null, lastSeq: null, pending: null, refusal: null,
};

export function seatName(s) {
  if (s === null || s === undefined) return t('nobody');
  const room = W().room || S.room;
  const occupant = room?.seats?.[s]?.occupant;
  return occupant ? occupantName(occupant) : t('seat_n', { n: s + 1 });
}

/**
 * A seat occupant's name as shown: a built-in bot keeps the server's default name,
 * "Bot N", shown in the page's language ("机器人 N"); any other name as given.
 */
export function occupantName(occupant) {
  const botNumber = occupant.bot ? /^Bot (\d+)$/.exec(occupant.name)?.[1] : null;
  return botNumber ? t('bot_n', { n: botNumber }) : occupant.name;
}
export const dot = (s) => h('span', { class: 'seat-dot', style: `background:${SEAT_COLORS[s]}`, title: t(`color.${SEAT_NAMES[s]}`) });
export const who = (s) => h('span', { class: 'who' }, dot(s), seatName(s));

/**
 * The legal actions of one type.
 * @template {Action['type']} T
 * @param {T} type
 * @returns {Extract<Action, { type: T }>[]}
 */
export const legalOf = (type) => /** @type {any[]} */ (W().legal.filter((a) => a.type === type));
/** @param {Action['type']} type */
export const hasLegal = (type) => W().legal.some((a) => a.type === type);

/** Sends an action (one in flight at a time); leaves the build mode. @param {ActionInput} action */
export function act(action) {
  if (!S.conn || W().pending) return;
  leaveMode();
  S.conn.act(action);
  redrawNow();
}

/** @type {() => void} */
let redrawNow = () => {};
/** The page's redraw (app.js), for what the person did. */
export function onRedraw(fn) {
  redrawNow = () => fn(true);
  onUpdate(fn);
}

/**
 * A button; `why` (a reason, shown as its title and under it) when it is disabled.
 * @param {string} id @param {any} label @param {boolean} enabled @param {() => void} onclick
 * @param {Record<string, any>} [extra]
 */
export function button(id, label, enabled, onclick, extra = {}) {
  const busy = !!W().pending;
  return h('button', { id, disabled: !enabled || busy, onclick, ...extra }, label);
}

/** What `cards` lacks from the viewer's hand, in words ("needs 1 brick"), or ''. */
export function lacking(cards) {
  const hand = W().view?.me?.hand || {};
  const missing = Object.fromEntries(RES.filter((r) => (cards[r] || 0) > (hand[r] || 0)).map((r) => [r, cards[r] - (hand[r] || 0)]));
  return Object.keys(missing).length ? t('needs', { cards: cardsText(missing) }) : '';
}

/** How long the tiles that produced glow and the gains show after a roll. */
export const GLANCE_MS = 3000;
/**
 * What the last roll produced while it is still shown: the tiles that produced and
 * each seat's gains (from the `produced` events), or null once GLANCE_MS is past.
 * @returns {{ at: number, tiles: Set<number>, gains: Record<number, Record<string, number>> } | null}
 */
export const glance = () => (S.glance && Date.now() - S.glance.at < GLANCE_MS ? S.glance : null);

/** The last seconds of a deadline, shown in the warning colour. */
export const WARN_MS = 10000;

export function fmtCountdown(deadline) {
  if (!deadline) return '';
  const s = Math.ceil(Math.max(0, deadline - Date.now()) / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const MINUTE = 60000;
const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * A span of time in words of a game over days (protocol 27), its two largest units:
 * "2d 3h", "5h 12m", "4m 9s" (seconds only in the last hour); without `days`, in
 * hours and minutes only ("50h 30m", a time bank).
 * @param {number} ms @param {{ days?: boolean }} [o]
 */
export function fmtDuration(ms, { days = true } = {}) {
  const left = Math.max(0, ms);
  const d = days ? Math.floor(left / DAY) : 0;
  const hh = Math.floor((left - d * DAY) / HOUR);
  const m = Math.floor((left % HOUR) / MINUTE);
  const s = Math.floor((left % MINUTE) / 1000);
  /** @type {[string, number][]} */
  const units = [['d', d], ['h', hh], ['m', m], ...(days && left < HOUR ? /** @type {[string, number][]} */ ([['s', s]]) : [])];
  const first = units.findIndex(([, n]) => n > 0);
  if (first < 0) return t(`dur.${units[units.length - 1][0]}`, { n: 0 });
  return units.slice(first, first + 2).filter(([, n], i) => i === 0 || n > 0)
    .map(([u, n]) => t(`dur.${u}`, { n })).join(t('dur.sep'));
}

/**
 * A countdown to `deadline`, kept up to date: m:ss in a live room; in days, hours
 * and minutes (`long`) in a game over days.
 * @param {number | null | undefined} deadline @param {boolean} [long]
 */
export function countdown(deadline, long = false) {
  return h('span', { class: 'countdown', 'data-deadline': deadline || '', 'data-long': long ? '1' : undefined },
    long ? fmtDuration((deadline || 0) - Date.now()) : fmtCountdown(deadline));
}

/**
 * A seat's time bank and vacation days while its turn runs (protocol 27.3): what it
 * had when the move began, less the time past the move's hours (the bank first, then
 * whole days). `spendFrom` is when the move's own hours end and the bank is drawn on
 * (its deadline less the bank and the vacation days); null when nothing is drawn.
 * @param {{ bank_ms: number, vacation_days: number }} clock @param {number | null} spendFrom
 */
export function clockNow(clock, spendFrom, now = Date.now()) {
  if (spendFrom === null) return { bank: clock.bank_ms, vacation: clock.vacation_days };
  const past = now - spendFrom;
  const bank = Math.min(clock.bank_ms, Math.max(0, clock.bank_ms - past));
  const overBank = Math.max(0, past - clock.bank_ms);
  return { bank, vacation: Math.max(0, clock.vacation_days - Math.ceil(overBank / DAY)) };
}

/** The time a countdown in a game over days shows in the warning colour. */
const WARN_LONG_MS = HOUR;

setInterval(() => {
  for (const e of document.querySelectorAll('.countdown[data-deadline]')) {
    if (!(e instanceof HTMLElement)) continue;
    const d = Number(e.dataset.deadline);
    if (!d) continue;
    const long = !!e.dataset.long;
    e.textContent = long ? fmtDuration(d - Date.now()) : fmtCountdown(d);
    e.classList.toggle('warn', d - Date.now() < (long ? WARN_LONG_MS : WARN_MS));
  }
  // A time bank being drawn on, and the vacation days after it (game.js).
  for (const e of document.querySelectorAll('[data-spend-from]')) {
    if (!(e instanceof HTMLElement)) continue;
    const now = clockNow({ bank_ms: Number(e.dataset.bank), vacation_days: Number(e.dataset.vacation) }, Number(e.dataset.spendFrom));
    const bank = e.querySelector('.bank-left');
    const vacation = e.querySelector('.vacation-left');
    if (bank) bank.textContent = fmtDuration(now.bank, { days: false });
    if (vacation) vacation.textContent = t('dur.d', { n: now.vacation });
  }
}, 250);

// ---------------------------------------------------------------- sound

const SOUND_KEY = 'catan.sound';
/** Whether the sound is on (off unless the person turned it on; remembered). */
export const soundOn = () => localStorage.getItem(SOUND_KEY) === 'on';
export function setSound(on) { localStorage.setItem(SOUND_KEY, on ? 'on' : 'off'); }

/** @type {AudioContext | null} */
let audio = null;
/** A short beep (WebAudio, no file), when the sound is on. Pitch by kind. */
export function beep(kind = 'info') {
  if (!soundOn()) return;
  try {
    const Ctx = /** @type {any} */ (window).AudioContext || /** @type {any} */ (window).webkitAudioContext;
    if (!Ctx) return;
    audio = audio || new Ctx();
    const at = audio.currentTime;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = { turn: 660, robbed: 220, offer: 520, award: 880 }[kind] || 440;
    gain.gain.setValueAtTime(0.08, at);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.18);
    osc.connect(gain).connect(audio.destination);
    osc.start(at);
    osc.stop(at + 0.2);
  } catch { /* no sound then */ }
}

/** Cards gained, as "+2 lumber +1 grain". @param {Record<string, number>} cards */
export const gainsText = (cards) => RES.filter((r) => cards[r]).map((r) => `+${cards[r]} ${t(`res.${r}`)}`).join(' ');

/**
 * A line read out by screen readers (the polite live region #announce outside the
 * page's redrawn part, which keeps the last few), e.g. each new log line.
 * @param {string} text
 */
export function announce(text) {
  const box = document.getElementById('announce');
  if (!box || !text) return;
  box.append(h('div', {}, text));
  while (box.children.length > 3) box.firstElementChild.remove();
}

/**
 * A toast (announced to screen readers by the aria-live region), with a beep of
 * `sound`'s kind when the sound is on.
 * @param {string} text @param {string} [sound]
 */
export function toast(text, sound) {
  if (sound) beep(sound);
  const box = document.getElementById('toasts');
  if (!box) return;
  for (const old of box.querySelectorAll('.toast')) if (old.textContent === text) old.remove();
  const el = h('div', { class: 'toast', 'data-kind': sound || 'info' }, text);
  box.append(el);
  while (box.children.length > 3) box.firstElementChild.remove();
  setTimeout(() => el.remove(), 4000);
}
