// Quick play (protocol.md 26): on the lobby page, first, a person asks for a game
// of three or four, rated or not, bots allowed or not; the page then waits with
// the time waited and the place in line (GET /api/queue every second), can be
// cancelled, and opens the game by itself once the table is seated. A reload (or a
// return to the lobby) while waiting comes back to the waiting screen.
//
// Friends sit at one table as a party (26.3): "Play with friends" makes one and
// shows its code, a link to share (`/?party=CODE`) and its members (GET
// /api/queue/party every 2 s); a friend types the code, or opens the link, and
// joins. The leader's "Find a game" queues everyone; the others wait for it, and
// once their party is gone (the leader queued it, or left) their page asks GET
// /api/queue: queued, it shows the same waiting screen and opens the game.

import { api } from './kit.js';
import { t, refusal } from './i18n.js';
import { h } from './ui.js';
import { icon } from './icons.js';
import { accountLink, loadMe, playerFor } from './players.js';

/** @typedef {import('./protocol').QueueStatus} QueueStatus */
/** @typedef {import('./protocol').PartyInfo} PartyInfo */

const POLL_MS = 1000;
/** How often a party's page asks who is in it (and whether it still exists). */
const PARTY_POLL_MS = 2000;

/**
 * The mark that this browser queued (set on joining, cleared when seated, cancelled
 * or no longer queued): only then does the lobby ask GET /api/queue, so that a
 * visit that never queued asks nothing that can only answer 404.
 */
const QUEUED = 'catan.queued';

/**
 * The mark that this browser is in a party (its code; set on making or joining one,
 * cleared on leaving it, when it is gone, or once queued with it): only then does
 * the lobby ask GET /api/queue/party, for the same reason.
 */
const PARTY = 'catan.party';

/** A party code from an address or a field: its letters and digits, upper case. @param {string | null} code */
const partyCode = (code) => (code || '').replace(/[^0-9a-z]/gi, '').toUpperCase().slice(0, 16);

/** The code of the party the address invites to (`/?party=CODE`), if any. */
const invitedTo = () => partyCode(new URLSearchParams(location.search).get('party'));

/** The address without its invitation (once joined, a reload does not offer it again). */
function forgetInvitation() {
  const u = new URL(location.href);
  if (!u.searchParams.has('party')) return;
  u.searchParams.delete('party');
  history.replaceState(history.state, '', `${u.pathname}${u.search}${u.hash}`);
}

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
  // (A party's refusals and news, under its controls.)
  const perr = h('p', { class: 'error', id: 'party-error', role: 'alert' });
  let poll = 0;
  let tick = 0;
  let partyPoll = 0;
  /** @type {PartyInfo | null} the party this browser is in */
  let party = null;
  /** @type {string | null} who this browser is signed in as (a party's leader or not) */
  let myId = null;
  /** Counts the screens drawn: an answer that comes back after the next one was drawn is dropped. */
  let drawn = 0;
  const stop = () => { drawn += 1; clearTimeout(poll); clearInterval(tick); clearTimeout(partyPoll); };

  /**
   * The player this browser acts as: the one signed in, else a guest of the name
   * typed (players.js's `playerFor`, as a seat is taken).
   */
  async function player() {
    const me = await playerFor(name());
    if (!me) throw Object.assign(new Error(t('err.not_signed_in')), { code: 'not_signed_in' });
    accountLink();
    myId = me.id;
    return me;
  }

  /**
   * `b` disabled while `work` runs; a refusal shown in `where`, in words.
   * @param {HTMLButtonElement} b @param {HTMLElement} where @param {() => Promise<void>} work
   */
  async function busy(b, where, work) {
    b.disabled = true;
    err.textContent = '';
    perr.textContent = '';
    try { await work(); } catch (x) { where.textContent = refusal(x); } finally { b.disabled = false; }
  }

  function choose() {
    stop();
    const member = party && party.leader !== myId;
    const seats = h('select', { id: 'qp-seats', 'aria-label': t('qp.seats') },
      h('option', { value: 4 }, t('qp.n_players', { n: 4 })), h('option', { value: 3 }, t('qp.n_players', { n: 3 })));
    const rated = toggle('qp-rated', t('qp.rated'), false);
    const bots = toggle('qp-bots', t('qp.bots'), true);
    const go = /** @type {HTMLButtonElement} */ (h('button', {
      class: 'primary', id: 'qp-join', type: 'button',
      onclick: () => busy(go, err, async () => {
        await player();
        /** @type {QueueStatus} */
        const s = await api('POST', '/api/queue', {
          seats: Number(/** @type {HTMLSelectElement} */ (seats).value),
          rated: on(rated),
          bots: on(bots),
        });
        // (A leader's party is queued with them, and is gone.)
        localStorage.setItem(QUEUED, '1');
        localStorage.removeItem(PARTY);
        party = null;
        waiting(s);
      }),
    }, icon('person'), t('qp.join')));
    // A party's member has no choice to make: its leader queues everyone.
    const chooser = member ? [] : [h('div', { class: 'row hero-row' }, seats, go), h('div', { class: 'row qp-choices' }, rated, bots)];
    // (Invited by a link: the invitation first, what the person came for.)
    const invited = party ? '' : invitedTo();
    part.replaceChildren(...(party ? [partyPanel(party), ...chooser, err, perr]
      : [...(invited ? [invitation(invited)] : []), ...chooser, err, h('p', { class: 'muted small' }, t('qp.about')), friends()]));
    if (party) partyPoll = setTimeout(refreshParty, PARTY_POLL_MS);
  }

  // ------------------------------------------------------------ parties

  /** The invitation of a link (`/?party=CODE`): join that party. @param {string} code */
  function invitation(code) {
    const accept = /** @type {HTMLButtonElement} */ (h('button', {
      id: 'party-accept', class: 'primary', type: 'button', onclick: () => joinParty(accept, code),
    }, icon('check'), t('party.accept')));
    return h('div', { id: 'party-invite', class: 'qp-invite' },
      h('p', {}, t('party.invited', { code })), h('p', { class: 'row' }, accept));
  }

  /** Not in a party: make one, or join one by its code. */
  function friends() {
    const code = /** @type {HTMLInputElement} */ (h('input', {
      id: 'party-code', maxlength: 16, autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false',
      placeholder: t('party.code'), 'aria-label': t('party.code'),
    }));
    const join = /** @type {HTMLButtonElement} */ (h('button', { id: 'party-join', type: 'submit' }, t('join')));
    const form = h('form', { id: 'party-join-form', class: 'row qp-code-row' }, code, join);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const c = partyCode(code.value);
      if (!c) { code.focus(); return; }
      joinParty(join, c);
    });
    const make = /** @type {HTMLButtonElement} */ (h('button', {
      id: 'party-make', type: 'button',
      onclick: () => busy(make, perr, async () => {
        await player();
        try { showParty(await api('POST', '/api/queue/party')); } catch (x) {
          if (x.code !== 'already_in_party') throw x;
          // In one already (made on another device): that one, and why not a new one.
          showParty(await api('GET', '/api/queue/party'));
          perr.textContent = refusal(x);
        }
      }),
    }, icon('person'), t('party.make')));
    return h('div', { id: 'party-friends', class: 'qp-party' },
      h('h3', {}, t('party.title')),
      h('p', { class: 'row' }, make), form, perr,
      h('p', { class: 'muted small' }, t('party.about')));
  }

  /** Joins party `code` with button `b` (a guest of the typed name made first if need be). */
  function joinParty(b, code) {
    return busy(b, perr, async () => {
      await player();
      showParty(await api('POST', `/api/queue/party/${encodeURIComponent(code)}`));
      forgetInvitation();
    });
  }

  /** In party `p`: kept (the mark), shown, asked about every 2 s. @param {PartyInfo} p */
  function showParty(p) {
    party = p;
    localStorage.setItem(PARTY, p.code);
    if (invitedTo() === p.code) forgetInvitation();
    choose();
  }

  /** The party: its code and link, its members, what to do next, Leave. @param {PartyInfo} p */
  function partyPanel(p) {
    const leader = p.leader === myId;
    const link = `${location.origin}/?party=${p.code}`;
    const said = h('p', { id: 'party-said', role: 'status', class: 'ok' });
    const field = /** @type {HTMLInputElement} */ (h('input', {
      id: 'party-link', class: 'share', readonly: true, value: link, 'aria-label': t('party.share'),
      onclick: () => field.select(),
    }));
    const copy = h('button', {
      id: 'party-copy', type: 'button',
      onclick: async () => {
        let done = false;
        try { await navigator.clipboard.writeText(link); done = true; } catch {
          field.select();
          done = document.execCommand('copy');
        }
        said.className = done ? 'ok' : 'error';
        said.textContent = t(done ? 'link_copied' : 'link_copy_failed');
      },
    }, t('copy_link'));
    const leave = /** @type {HTMLButtonElement} */ (h('button', {
      id: 'party-leave', type: 'button',
      onclick: () => busy(leave, perr, async () => {
        try { await api('DELETE', '/api/queue/party'); } catch (x) { if (x.status !== 404) throw x; }
        localStorage.removeItem(PARTY);
        party = null;
        choose();
      }),
    }, t('party.leave')));
    return h('div', { id: 'party', class: 'qp-party', 'data-leader': String(leader) },
      h('h3', {}, t('party.title'), ' · ', t('party.code'), ' ', h('b', { id: 'party-code-shown', class: 'party-code' }, p.code)),
      h('p', { class: 'muted small' }, t('party.share')),
      h('div', { class: 'row qp-share' }, field, copy), said,
      h('ul', { id: 'party-members', class: 'qp-members', 'aria-label': t('party.members') }, members(p)),
      h('p', { id: 'party-next', class: leader ? 'muted small' : 'qp-waiting', role: 'status' }, ...next(p)),
      h('p', { class: 'row' }, leave));
  }

  /** The members, the leader first. @param {PartyInfo} p */
  function members(p) {
    const sorted = [...p.members].sort((a, b) => Number(b.id === p.leader) - Number(a.id === p.leader));
    return sorted.map((m) => h('li', { 'data-member': m.id, 'data-leader': m.id === p.leader ? 'true' : undefined },
      icon('person'), ' ', h('span', { class: 'member-name' }, m.name),
      m.id === p.leader ? h('span', { class: 'kind' }, t('party.leader')) : null,
      m.id === myId ? h('span', { class: 'kind' }, t('you')) : null));
  }

  /** What happens next: for the leader, "Find a game"; for the others, waiting for the leader. @param {PartyInfo} p */
  function next(p) {
    if (p.leader === myId) return [t('party.leader_about')];
    const leader = p.members.find((m) => m.id === p.leader)?.name ?? '';
    return [icon('wait'), ' ', h('span', { id: 'party-wait' }, t('party.waiting_leader', { name: leader }))];
  }

  /** Asks who is in the party (every 2 s): the members shown again; gone, what became of it. */
  async function refreshParty() {
    const screen = drawn;
    try {
      /** @type {PartyInfo} */
      const p = await api('GET', '/api/queue/party');
      if (screen !== drawn || !party) return;
      party = p;
      document.getElementById('party-members')?.replaceChildren(...members(p));
      document.getElementById('party-next')?.replaceChildren(...next(p));
    } catch (x) {
      if (screen !== drawn || !party) return;
      if (x.status === 404) { partyGone(); return; }
      perr.textContent = refusal(x);
    }
    partyPoll = setTimeout(refreshParty, PARTY_POLL_MS);
  }

  /**
   * The party is gone: its leader queued it (GET /api/queue then answers, and the
   * page waits with everyone), or left, which ended it.
   */
  async function partyGone() {
    stop();
    party = null;
    localStorage.removeItem(PARTY);
    try {
      /** @type {QueueStatus} */
      const s = await api('GET', '/api/queue');
      localStorage.setItem(QUEUED, '1');
      waiting(s);
    } catch (x) {
      choose();
      perr.textContent = x.status === 404 ? t('party.ended') : refusal(x);
    }
  }

  // ------------------------------------------------------------ waiting

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
  // Back on the lobby while waiting (a reload, Back): the waiting screen again; in a
  // party, the party. Asked only when this browser queued or joined one.
  const queuedHere = localStorage.getItem(QUEUED);
  const partyHere = localStorage.getItem(PARTY);
  if (queuedHere || partyHere) {
    loadMe().then(async (me) => {
      if (me === null) { localStorage.removeItem(QUEUED); localStorage.removeItem(PARTY); }
      if (!me) return;
      myId = me.id;
      if (queuedHere) {
        try {
          /** @type {QueueStatus} */
          const s = await api('GET', '/api/queue');
          if (s.seated) localStorage.removeItem(QUEUED); else { waiting(s); return; }
        } catch { localStorage.removeItem(QUEUED); }
      }
      if (partyHere) {
        try { showParty(await api('GET', '/api/queue/party')); } catch (x) { if (x.status === 404) partyGone(); }
      }
    });
  }
  return part;
}
