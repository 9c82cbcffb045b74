// Quick play (protocol.md 26): on the lobby page, first, a person asks for a game
// of three or four, rated or not, bots allowed or not; the page then waits with
// the time waited and the place in line (GET /api/queue every second), can be
// cancelled, and opens the game by itself once the table is seated. A reload (or a
// return to the lobby) while waiting comes back to the waiting screen.

import { api } from './kit.js';
import { t, refusal } from './i18n.js';
import { h } from './ui.js';
import { icon } from './icons.js';
import { accountLink, loadMe, playerFor } from './players.js';

/** @typedef {import('./protocol').QueueStatus} QueueStatus */

const POLL_MS = 1000;

/**
 * The mark that this browser queued (set on joining, cleared when seated, cancelled
 * or no longer queued): only then does the lobby ask GET /api/queue, so that a
 * visit that never queued asks nothing that can only answer 404.
 */
const QUEUED = 'catan.queued';

/** `ms` as m:ss. @param {number} ms */
const clock = (ms) => {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/** A button that is on or off (`aria-pressed`), as large as any other to tap. */
function toggle(id, label, pressed) {
  const b = h('button', {
    id, type: 'button', class: 'toggle', 'aria-pressed': String(pressed),
    onclick: () => b.setAttribute('aria-pressed', String(!on(b))),
  }, label);
  return b;
}

/** Whether toggle `b` is on. @param {Element} b */
const on = (b) => b.getAttribute('aria-pressed') === 'true';

/**
 * The quick-play part of the lobby's first panel.
 * @param {{ name: () => string, seated: (s: NonNullable<QueueStatus['seated']>, name: string) => void }} how
 *   `name`: the name typed (or the default); `seated`: keeps the seat and opens its room.
 */
export function quickPlay({ name, seated }) {
  const part = h('div', { id: 'quick-play', class: 'quick-play' });
  const err = h('p', { class: 'error', id: 'qp-error', role: 'alert' });
  let poll = 0;
  let tick = 0;
  const stop = () => { clearTimeout(poll); clearInterval(tick); };

  function choose() {
    stop();
    const seats = h('select', { id: 'qp-seats', 'aria-label': t('qp.seats') },
      h('option', { value: 4 }, t('qp.n_players', { n: 4 })), h('option', { value: 3 }, t('qp.n_players', { n: 3 })));
    const rated = toggle('qp-rated', t('qp.rated'), false);
    const bots = toggle('qp-bots', t('qp.bots'), true);
    const go = /** @type {HTMLButtonElement} */ (h('button', {
      class: 'primary', id: 'qp-join', type: 'button',
      onclick: async () => {
        go.disabled = true;
        err.textContent = '';
        try {
          if (!(await playerFor(name()))) throw Object.assign(new Error(t('err.not_signed_in')), { code: 'not_signed_in' });
          accountLink();
          /** @type {QueueStatus} */
          const s = await api('POST', '/api/queue', {
            seats: Number(/** @type {HTMLSelectElement} */ (seats).value),
            rated: on(rated),
            bots: on(bots),
          });
          localStorage.setItem(QUEUED, '1');
          waiting(s);
        } catch (x) { err.textContent = refusal(x); go.disabled = false; }
      },
    }, icon('person'), t('qp.join')));
    part.replaceChildren(
      h('div', { class: 'row hero-row' }, seats, go),
      h('div', { class: 'row qp-choices' }, rated, bots),
      err, h('p', { class: 'muted small' }, t('qp.about')));
  }

  /** The waiting screen for `s`, polled until seated or gone. @param {QueueStatus} s */
  function waiting(s) {
    stop();
    if (s.seated) { localStorage.removeItem(QUEUED); seated(s.seated, name()); return; }
    const got = Date.now() - s.waited_ms;
    const waited = h('b', { id: 'qp-waited' }, clock(s.waited_ms));
    const place = h('span', { id: 'qp-position' }, s.position ? t('qp.position', { n: s.position }) : '');
    const cancel = /** @type {HTMLButtonElement} */ (h('button', {
      id: 'qp-cancel', type: 'button',
      onclick: async () => {
        cancel.disabled = true;
        try { await api('DELETE', '/api/queue'); } catch (x) { if (x.status !== 404) { err.textContent = refusal(x); cancel.disabled = false; return; } }
        localStorage.removeItem(QUEUED);
        choose();
      },
    }, t('qp.cancel')));
    part.replaceChildren(
      h('p', { id: 'qp-waiting', role: 'status', class: 'qp-waiting' }, icon('wait'), ' ',
        t(s.bots ? 'qp.looking_bots' : 'qp.looking', { n: s.seats }), s.rated ? ` · ${t('rated')}` : ''),
      h('p', { class: 'row' }, t('qp.waited'), ' ', waited, ' · ', place),
      h('p', { class: 'row' }, cancel), err);
    tick = setInterval(() => { waited.textContent = clock(Date.now() - got); }, 1000);
    const again = async () => {
      try {
        /** @type {QueueStatus} */
        const now = await api('GET', '/api/queue');
        if (now.seated) { stop(); localStorage.removeItem(QUEUED); seated(now.seated, name()); return; }
        if (now.position) place.textContent = t('qp.position', { n: now.position });
      } catch (x) {
        if (x.status === 404) { localStorage.removeItem(QUEUED); choose(); return; }
        err.textContent = refusal(x);
      }
      poll = setTimeout(again, POLL_MS);
    };
    poll = setTimeout(again, POLL_MS);
  }

  choose();
  // Back on the lobby while waiting (a reload, Back): the waiting screen again.
  if (localStorage.getItem(QUEUED)) {
    loadMe().then(async (me) => {
      if (!me) return;
      try {
        /** @type {QueueStatus} */
        const s = await api('GET', '/api/queue');
        if (s.seated) localStorage.removeItem(QUEUED); else waiting(s);
      } catch { localStorage.removeItem(QUEUED); }
    });
  }
  return part;
}
