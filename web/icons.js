// The page's icons: one SVG sprite of symbols (resources, development cards, pieces,
// controls, the logo), put in the page once, and `icon(name)` to show one. Every icon
// is a shape of its own, so that it reads without colour (greyscale, colour
// blindness); resources are also coloured, each in its terrain's colour.

import { h } from './dom.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Symbols in a 24x24 box; `currentColor` strokes, fills as given. */
const SYMBOLS = {
  // Resources.
  lumber: '<path d="M12 2 L19 12 H15 L20 19 H4 L9 12 H5 Z" fill="currentColor"/><rect x="10.5" y="19" width="3" height="4" fill="currentColor"/>',
  brick: '<g fill="currentColor"><rect x="2" y="4" width="9" height="5" rx="1"/><rect x="13" y="4" width="9" height="5" rx="1"/><rect x="6.5" y="10.5" width="11" height="5" rx="1"/><rect x="2" y="17" width="9" height="5" rx="1"/><rect x="13" y="17" width="9" height="5" rx="1"/></g>',
  wool: '<g fill="currentColor"><circle cx="8" cy="11" r="4"/><circle cx="13" cy="9" r="4.5"/><circle cx="17" cy="12" r="3.8"/><circle cx="11" cy="14" r="4"/><circle cx="5" cy="10" r="2.4"/></g><path d="M9 17 V21 M15 17 V21" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>',
  grain: '<path d="M12 22 V6" stroke="currentColor" stroke-width="2" stroke-linecap="round"/><g fill="currentColor"><ellipse cx="12" cy="4" rx="2" ry="3"/><ellipse cx="8.6" cy="9" rx="2" ry="3.2" transform="rotate(-35 8.6 9)"/><ellipse cx="15.4" cy="9" rx="2" ry="3.2" transform="rotate(35 15.4 9)"/><ellipse cx="8.6" cy="14" rx="2" ry="3.2" transform="rotate(-35 8.6 14)"/><ellipse cx="15.4" cy="14" rx="2" ry="3.2" transform="rotate(35 15.4 14)"/></g>',
  ore: '<path d="M2 20 L8 8 L12 13 L15 6 L22 20 Z" fill="currentColor"/><path d="M8 8 L10 14 M15 6 L14 12" stroke="#fff" stroke-width="1.2" opacity=".7"/>',
  // Development cards.
  knight: '<path d="M12 2 L20 5 V11 C20 16.5 16.5 20.5 12 22 C7.5 20.5 4 16.5 4 11 V5 Z" fill="currentColor"/><path d="M12 6 V17 M8.5 10 H15.5" stroke="#fff" stroke-width="2" stroke-linecap="round"/>',
  road_building: '<path d="M7 22 L10 2 H14 L17 22 Z" fill="currentColor"/><path d="M12 4 V7 M12 10 V13 M12 16 V20" stroke="#fff" stroke-width="1.6"/>',
  year_of_plenty: '<path d="M3 8 C6 20 18 22 21 10 C17 14 9 14 3 8 Z" fill="currentColor"/><circle cx="8" cy="6" r="2.2" fill="currentColor"/><circle cx="13" cy="4.5" r="2.2" fill="currentColor"/><circle cx="17.5" cy="7" r="2.2" fill="currentColor"/>',
  monopoly: '<path d="M3 18 L4 7 L9 12 L12 4 L15 12 L20 7 L21 18 Z" fill="currentColor"/><rect x="3" y="19" width="18" height="3" rx="1" fill="currentColor"/>',
  victory_point: '<path d="M12 2 L14.9 8.6 L22 9.3 L16.6 14 L18.2 21 L12 17.3 L5.8 21 L7.4 14 L2 9.3 L9.1 8.6 Z" fill="currentColor"/>',
  card_back: '<rect x="4" y="2" width="16" height="20" rx="2.5" fill="currentColor"/><path d="M12 6 L16 12 L12 18 L8 12 Z" fill="#fff" opacity=".55"/>',
  // Pieces.
  road: '<rect x="2" y="9" width="20" height="6" rx="2" fill="currentColor" transform="rotate(-25 12 12)"/>',
  settlement: '<path d="M4 21 V11 L12 4 L20 11 V21 Z" fill="currentColor"/>',
  city: '<path d="M2 21 V9 L7 4 L12 9 V12 H22 V21 Z" fill="currentColor"/><rect x="15" y="15" width="3" height="3" fill="#fff" opacity=".6"/><rect x="5.5" y="12" width="3" height="3" fill="#fff" opacity=".6"/>',
  // Controls.
  dice: '<rect x="3.5" y="3.5" width="17" height="17" rx="4" fill="none" stroke="currentColor" stroke-width="2.2"/><g fill="currentColor"><circle cx="8.5" cy="8.5" r="1.8"/><circle cx="15.5" cy="15.5" r="1.8"/><circle cx="12" cy="12" r="1.8"/></g>',
  trade: '<path d="M4 8 H18 M14 4 L18 8 L14 12 M20 16 H6 M10 12 L6 16 L10 20" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/>',
  bank: '<path d="M2 9 L12 3 L22 9 Z M4 10 H20 V11 H4 Z M5 12 H8 V18 H5 Z M10.5 12 H13.5 V18 H10.5 Z M16 12 H19 V18 H16 Z M3 19 H21 V21 H3 Z" fill="currentColor"/>',
  help: '<circle cx="12" cy="12" r="10" fill="none" stroke="currentColor" stroke-width="2"/><path d="M9 9.5 C9 6 15 6 15 9.5 C15 12 12 12 12 15" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/><circle cx="12" cy="18.5" r="1.3" fill="currentColor"/>',
  log: '<path d="M4 4 H20 V16 H10 L5 20 V16 H4 Z" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/><path d="M8 8 H16 M8 12 H13" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>',
  zoom_in: '<circle cx="10" cy="10" r="7" fill="none" stroke="currentColor" stroke-width="2.2"/><path d="M15 15 L21 21 M7 10 H13 M10 7 V13" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
  zoom_out: '<circle cx="10" cy="10" r="7" fill="none" stroke="currentColor" stroke-width="2.2"/><path d="M15 15 L21 21 M7 10 H13" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
  fit: '<path d="M3 9 V3 H9 M15 3 H21 V9 M21 15 V21 H15 M9 21 H3 V15" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
  close: '<path d="M5 5 L19 19 M19 5 L5 19" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>',
  check: '<path d="M4 12.5 L9.5 18 L20 6" fill="none" stroke="currentColor" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/>',
  cross: '<path d="M6 6 L18 18 M18 6 L6 18" stroke="currentColor" stroke-width="3" stroke-linecap="round"/>',
  wait: '<circle cx="6" cy="12" r="1.8" fill="currentColor"/><circle cx="12" cy="12" r="1.8" fill="currentColor"/><circle cx="18" cy="12" r="1.8" fill="currentColor"/>',
  sound_on: '<path d="M3 9 H7 L12 5 V19 L7 15 H3 Z" fill="currentColor"/><path d="M15.5 8.5 C17.5 10.5 17.5 13.5 15.5 15.5 M18 6 C21.5 9.5 21.5 14.5 18 18" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>',
  sound_off: '<path d="M3 9 H7 L12 5 V19 L7 15 H3 Z" fill="currentColor"/><path d="M16 9 L22 15 M22 9 L16 15" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>',
  robber: '<circle cx="12" cy="6" r="4" fill="currentColor"/><path d="M6 22 C6 13 8 10 12 10 C16 10 18 13 18 22 Z" fill="currentColor"/>',
  // Players: a person (the account), a cup (the leaderboard).
  // A game over days (protocol 27): the move's time, the time bank, vacation days, a time-out.
  hourglass: '<path d="M6 2.5 H18 M6 21.5 H18" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/><path d="M7.5 3 C7.5 9 11 10 11 12 C11 14 7.5 15 7.5 21 H16.5 C16.5 15 13 14 13 12 C13 10 16.5 9 16.5 3 Z" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/><path d="M9.5 19.5 C10 17 12 16 12 16 C12 16 14 17 14.5 19.5 Z" fill="currentColor"/>',
  piggy: '<path d="M4 12 C4 8 7.5 6 12 6 C14 6 15.5 6.4 16.7 7.2 L19 5.5 V9 C20 9.8 20.6 10.8 20.9 12 H22 V15 H20.6 C20 16.5 18.9 17.6 17.5 18.3 V21 H14.5 V19 H10 V21 H7 V18.2 C5.2 17.2 4 15 4 12 Z" fill="currentColor"/><circle cx="16.5" cy="10.5" r="1.1" fill="#fff"/><path d="M10 8.4 H13.5" stroke="#fff" stroke-width="1.5" stroke-linecap="round"/>',
  vacation: '<path d="M3 11 C4 5.5 8 3 12 3 C16 3 20 5.5 21 11 Z" fill="currentColor"/><path d="M12 11 V20 M12 20 C12 21.5 10 21.5 9.5 20" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>',
  alarm: '<circle cx="12" cy="13" r="8" fill="none" stroke="currentColor" stroke-width="2.2"/><path d="M12 9 V13.5 L14.8 15.3 M3 6 L6 3 M21 6 L18 3" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/>',
  person: '<circle cx="12" cy="8" r="4.2" fill="none" stroke="currentColor" stroke-width="2.2"/><path d="M3.5 21.5 C4.5 15.5 8 13.8 12 13.8 C16 13.8 19.5 15.5 20.5 21.5" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
  trophy: '<path d="M7 3 H17 V10 C17 13 14.8 15 12 15 C9.2 15 7 13 7 10 Z" fill="currentColor"/><path d="M7 5 H3.5 C3.5 9 5 10.5 7.5 10.8 M17 5 H20.5 C20.5 9 19 10.5 16.5 10.8" fill="none" stroke="currentColor" stroke-width="1.8"/><path d="M12 15 V19 M7.5 21 H16.5" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
  // A key: a passkey (the account page).
  key: '<circle cx="8" cy="12" r="4.2" fill="none" stroke="currentColor" stroke-width="2.2"/><path d="M12.2 12 H21 M17.5 12 V15.5 M20.5 12 V14.5" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
  // A bell: notifications (the account page).
  bell: '<path d="M6 16.5 V11 C6 7.4 8.4 4.8 12 4.8 C15.6 4.8 18 7.4 18 11 V16.5 L20 18.5 H4 Z" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linejoin="round"/><path d="M9.8 20.6 C10.3 21.6 11.1 22 12 22 C12.9 22 13.7 21.6 14.2 20.6" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/><path d="M12 2.2 V4.8" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
  // The logo: a hexagon tile with a settlement on it.
  logo: '<path d="M12 1.5 L21.5 7 V17 L12 22.5 L2.5 17 V7 Z" fill="#e0a526"/><path d="M12 1.5 L21.5 7 V17 L12 22.5 L2.5 17 V7 Z" fill="none" stroke="#7a4b12" stroke-width="1.4"/><path d="M7.5 17 V11.5 L12 7.5 L16.5 11.5 V17 Z" fill="#b3362b"/><rect x="10.6" y="13" width="2.8" height="4" fill="#fff6dc"/>',
};

/** The terrain colour of each resource (the cards, the harbors). */
export const RESOURCE_TINT = { lumber: '#2f7d32', brick: '#b4532f', wool: '#7dbb4a', grain: '#e0b52e', ore: '#7b7f8f' };

/** Puts the sprite into the page (once). */
export function installIcons() {
  if (document.getElementById('icon-sprite')) return;
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('id', 'icon-sprite');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('width', '0');
  svg.setAttribute('height', '0');
  svg.setAttribute('class', 'sprite');
  svg.innerHTML = Object.entries(SYMBOLS).map(([name, body]) => `<symbol id="i-${name}" viewBox="0 0 24 24">${body}</symbol>`).join('');
  document.body.prepend(svg);
}

/**
 * An icon: `<svg class="icon icon-NAME"><use href="#i-NAME"/></svg>`; with `label`
 * it is read out (role img), else hidden from screen readers (its text is beside it).
 * @param {string} name
 * @param {{ label?: string, cls?: string }} [o]
 */
export function icon(name, { label = '', cls = '' } = {}) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('class', `icon icon-${name}${cls ? ` ${cls}` : ''}`);
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('data-key', `icon-${name}`);
  if (label) { svg.setAttribute('role', 'img'); svg.setAttribute('aria-label', label); } else svg.setAttribute('aria-hidden', 'true');
  const use = document.createElementNS(SVG_NS, 'use');
  use.setAttribute('href', `#i-${name}`);
  svg.append(use);
  return svg;
}

/**
 * The same icon drawn inside an SVG (the board): a `<use>` at (x, y) of `size` units.
 * @param {string} name @param {number} x @param {number} y @param {number} size
 */
export function boardIcon(name, x, y, size, cls = '') {
  const use = document.createElementNS(SVG_NS, 'use');
  use.setAttribute('href', `#i-${name}`);
  use.setAttribute('x', String(x - size / 2));
  use.setAttribute('y', String(y - size / 2));
  use.setAttribute('width', String(size));
  use.setAttribute('height', String(size));
  if (cls) use.setAttribute('class', cls);
  return use;
}

/**
 * A seat's mark: its colour and a shape of its own (red triangle, blue square, white
 * circle, orange diamond), so that seats read without colour too, with the name's
 * first letter.
 * @param {number} seat @param {string} name @param {string} color
 */
export function avatar(seat, name, color) {
  const shapes = [
    '<path d="M12 2.5 L22 20.5 H2 Z"/>',
    '<rect x="3" y="3" width="18" height="18" rx="2"/>',
    '<circle cx="12" cy="12" r="10"/>',
    '<path d="M12 1.5 L22.5 12 L12 22.5 L1.5 12 Z"/>',
  ];
  // (A bot's default name ends with its number: "Bot 2", "机器人 2": the number tells bots apart.)
  const letter = /\d+$/.exec((name || '').trim())?.[0] || [...(name || '?').trim()][0]?.toUpperCase() || '?';
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('class', 'avatar');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('data-seat-mark', String(seat));
  svg.innerHTML = `<g fill="${color}" stroke="#1d2430" stroke-width="1.3">${shapes[seat % 4]}</g>`
    + `<text x="12" y="${seat === 0 ? 17.5 : 16}" text-anchor="middle" class="avatar-letter">${letter.replace(/[<>&"]/g, '')}</text>`;
  return svg;
}

/** The brand: the logo and the name. @param {string} name */
export const brand = (name) => [icon('logo', { cls: 'logo' }), h('span', { class: 'brand-name' }, name)];
