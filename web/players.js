// The players who come back (protocol.md 25): who this browser is signed in as (a
// guest made from the first name typed, no form), the account page (with its
// notifications), a player's profile and the leaderboard. Every number
// comes from the server.

import { t, refusal, language, LANGUAGES, LANGUAGE_NAMES } from './i18n.js';
import { api } from './kit.js';
import { setMe } from './state.js';
import { h, S, occupantName } from './ui.js';
import { icon } from './icons.js';

/** @typedef {import('./protocol').GameSummary} GameSummary */
/** @typedef {import('./protocol').PlayerProfile} PlayerProfile */
/** @typedef {import('./protocol').Leaderboard} Leaderboard */

/** A rating change as "+32" or "−11" (0 as "±0"). @param {number} d */
export const signed = (d) => (d > 0 ? `+${d}` : d < 0 ? `−${-d}` : '±0');

// ---------------------------------------------------------------- who is signed in

/**
 * The mark that this browser may hold a session, set when the page made a guest or
 * signed in, cleared when the server says it holds none. The session itself is the
 * HttpOnly cookie, which the page cannot read (nor keeps anywhere): the mark only
 * spares a first visit a GET /api/me that can only answer 401.
 */
const SIGNED_IN = 'catan.signed_in';
/** @type {Promise<import('./protocol').PlayerInfo | null | undefined> | null} */
let meAsked = null;

/** Who is signed in now (null: nobody), as the page just learnt it. @param {any} me */
function noteMe(me) {
  setMe(me);
  if (me) localStorage.setItem(SIGNED_IN, '1'); else localStorage.removeItem(SIGNED_IN);
  meAsked = Promise.resolve(me);
  return me;
}

/**
 * The player this browser is signed in as (GET /api/me, asked once a page): null
 * when it is none, undefined when the server could not say (then nothing is made
 * in its place).
 */
export function loadMe() {
  if (meAsked) return meAsked;
  if (!localStorage.getItem(SIGNED_IN)) return (meAsked = Promise.resolve(noteMe(null)));
  meAsked = api('GET', '/api/me').then(noteMe, (x) => (x.status === 401 ? noteMe(null) : undefined));
  return meAsked;
}

/**
 * Guest first: the player a seat is taken as. The one signed in; else, the first
 * time the page needs a name, a guest of that name (POST /api/guests; its cookie
 * keeps it), with no form beyond the name. Null when the server keeps no players or
 * refuses: the seat is then taken without one, as before (a rated room says why).
 * @param {string} name
 */
export async function playerFor(name) {
  const me = await loadMe();
  if (me !== null || !name) return me ?? null;
  try { return noteMe((await api('POST', '/api/guests', { name })).player); } catch { return null; }
}

// ---------------------------------------------------------------- the account page

/**
 * The account link in the top bar (every page but a room's, whose bar the game
 * needs): the player's name, or "Account" for nobody yet.
 */
export function accountLink() {
  const slot = document.getElementById('account-slot');
  const me = S.me;
  slot.replaceChildren(h('a', { id: 'account-link', href: '/?account', title: t('account'), 'data-kind': me ? (me.account ? 'account' : 'guest') : 'none' },
    icon('person'), h('span', { class: 'account-name' }, me ? me.name : t('account'))));
}

/**
 * "Firefox · Linux" from a session's label (a User-Agent): the browser where the
 * label names it (it is cut at 80 characters, often before the browser's word), the
 * system; else the label as it is.
 * @param {string} label
 */
function deviceName(label) {
  /** @param {[string, RegExp][]} names */
  const first = (names) => names.find(([, re]) => re.test(label))?.[0];
  const browser = first([['Edge', /Edg\//], ['Firefox', /Firefox\//], ['Chrome', /Chrome\/|CriOS/], ['Safari', /Safari\//]]);
  const system = first([['Android', /Android/], ['iPhone', /iPhone/], ['iPad', /iPad/], ['Windows', /Windows/], ['macOS', /Mac OS X/], ['Linux', /Linux|X11/]]);
  return system ? [browser, system].filter(Boolean).join(' · ') : label;
}

const when = (ms) => new Date(ms).toLocaleString(language(), { dateStyle: 'medium', timeStyle: 'short' });
const day = (ms) => new Date(ms).toLocaleDateString(language(), { dateStyle: 'medium' });

/** A link one taps (44 px), with an icon. */
const navLink = (id, href, iconName, text) => h('a', { id, href, class: 'nav-link' }, icon(iconName), text);

/**
 * A form of labelled fields whose submit calls `send(values)`: its button disabled
 * meanwhile, a refusal shown under it in words (the code's translation).
 * @param {string} id
 * @param {[string, string, Record<string, any>][]} fields name, label, the input's attributes
 * @param {string} label the button's
 * @param {(values: Record<string, string>) => Promise<void>} send
 */
function accountForm(id, fields, label, send) {
  const err = h('p', { class: 'error', id: `${id}-error`, role: 'alert' });
  const button = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'primary', id: `${id}-submit` }, label));
  const form = h('form', { id, class: 'account-form' },
    fields.map(([name, text, attrs]) => h('label', { class: 'field' }, h('span', {}, text),
      h('input', { id: `${id}-${name}`, name, maxlength: 128, ...attrs }))),
    button, err);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const values = Object.fromEntries(fields.map(([name]) => [name, /** @type {HTMLInputElement} */ (form.querySelector(`[name="${name}"]`)).value]));
    button.disabled = true;
    err.textContent = '';
    try { await send(values); } catch (x) { err.textContent = refusal(x); button.disabled = false; }
  });
  return form;
}

// ---------------------------------------------------------------- passkeys

/** Whether this browser makes and uses passkeys from the server's JSON options. */
const passkeysWork = () => typeof PublicKeyCredential !== 'undefined'
  && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function'
  && typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function';

/**
 * What a passkey ceremony that failed in the browser (not at the server) means to
 * the person: cancelled or timed out, or a page whose address is not the server's
 * domain name (passkeys are bound to it).
 * @param {any} e
 */
function passkeyRefusal(e) {
  if (e?.name === 'NotAllowedError' || e?.name === 'AbortError') return t('account.passkey_cancelled');
  if (e?.name === 'SecurityError') return t('err.passkeys_unavailable');
  return refusal(e);
}

/** Registers a passkey for the signed-in account: its `PasskeyInfo`. */
async function addPasskey() {
  const c = await api('POST', '/api/me/passkeys/start');
  const made = /** @type {PublicKeyCredential} */ (await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(c.options.publicKey) }));
  return api('POST', '/api/me/passkeys/finish', { ceremony: c.ceremony, credential: made.toJSON() });
}

/** Signs in with a passkey the person picks: the `SignedIn` answer. */
async function passkeySignIn() {
  const c = await api('POST', '/api/sessions/passkey/start');
  const used = /** @type {PublicKeyCredential} */ (await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(c.options.publicKey) }));
  return api('POST', '/api/sessions/passkey/finish', { ceremony: c.ceremony, credential: used.toJSON() });
}

/**
 * The account page (`/?account`): who this browser is signed in as, a guest or an
 * account; renaming; claiming an account (a guest); signing in (a guest's browser or
 * a new device); the signed-in devices, each signed out on its own, and signing out
 * here or everywhere.
 */
export async function accountPage() {
  document.title = t('title.account');
  const $app = document.getElementById('app');
  /** The outcome of the last thing done, said at the top (good news, or a refusal). */
  let said = { text: '', ok: true };
  /** Whether the person asked to delete the player and is asked to confirm it. */
  let deleting = false;
  const done = async (text, ok = true) => { said = { text, ok }; accountLink(); await draw(); };
  async function draw() {
    const me = await loadMe();
    /** @type {import('./protocol').SessionInfo[]} */
    let sessions = [];
    /** @type {import('./protocol').PasskeyInfo[]} */
    let passkeys = [];
    if (me) {
      try { sessions = (await api('GET', '/api/sessions')).sessions; } catch (x) { if (x.status === 401) { noteMe(null); return draw(); } }
      if (me.account) { try { passkeys = (await api('GET', '/api/me/passkeys')).passkeys; } catch { passkeys = []; } }
    }
    const signOut = async (path) => { await api('DELETE', path); noteMe(null); await done(t('account.signed_out')); };
    /** @type {[string, string, Record<string, any>]} */
    const name = ['name', t('account.name'), { value: me?.name || '', autocomplete: 'username', maxlength: 32 }];
    /** @type {[string, string, Record<string, any>]} */
    const password = ['password', t('account.password'), { type: 'password', autocomplete: 'current-password', value: '' }];
    const who = me
      ? [h('p', { id: 'me-line', class: 'me-line', 'data-kind': me.account ? 'account' : 'guest' }, icon('person'), h('b', { id: 'me-name' }, me.name),
        h('span', { class: 'kind' }, t(me.account ? 'account.kind_account' : 'account.kind_guest'))),
        h('p', { class: 'muted' }, t(me.account ? 'account.account_about' : 'account.guest_about')),
        h('p', { class: 'row' }, navLink('my-profile', `/?player=${me.id}`, 'person', t('my_profile')), navLink('leaderboard-link', '/?leaderboard', 'trophy', t('leaderboard')))]
      : [h('p', { id: 'me-line', class: 'me-line', 'data-kind': 'none' }, t('account.nobody')),
        h('p', { class: 'row' }, h('a', { href: '/', class: 'nav-link' }, t('back_lobby')), navLink('leaderboard-link', '/?leaderboard', 'trophy', t('leaderboard')))];
    const signIn = accountForm('sign-in', [['name', t('account.name'), { value: '', autocomplete: 'username', maxlength: 32 }], password], t('account.sign_in'),
      async (v) => { const r = await api('POST', '/api/sessions', v); noteMe(r.player); await done(t('account.signed_in', { name: r.player.name })); });
    // Signing in with a passkey needs no name: the authenticator knows whose it is.
    const withPasskey = passkeysWork()
      ? h('p', { class: 'row' }, h('button', {
        id: 'passkey-sign-in', type: 'button',
        onclick: () => passkeySignIn().then((r) => { noteMe(r.player); return done(t('account.signed_in', { name: r.player.name })); },
          (e) => done(passkeyRefusal(e), false)),
      }, icon('key'), t('account.passkey_sign_in')))
      : null;
    const passkeyPanel = me?.account
      ? h('section', { class: 'panel', id: 'passkeys-panel' }, h('h2', {}, t('account.passkeys')), h('p', { class: 'muted' }, t('account.passkeys_about')),
        passkeys.length
          ? h('ul', { id: 'passkeys', class: 'sessions' }, passkeys.map((k) => h('li', { 'data-passkey': k.id },
            h('span', { class: 'device' }, h('b', {}, deviceName(k.label)), h('br'),
              h('small', { class: 'muted' }, t('account.since_added', { date: when(k.created_at) }), ' · ',
                k.last_used_at ? t('account.passkey_used', { date: when(k.last_used_at) }) : t('account.passkey_never'))),
            h('button', {
              class: 'delete-passkey', 'data-passkey': k.id, type: 'button',
              onclick: () => api('DELETE', `/api/me/passkeys/${encodeURIComponent(k.id)}`).then(() => done(t('account.passkey_removed')), (e) => done(refusal(e), false)),
            }, t('account.passkey_remove')))))
          : h('p', { id: 'no-passkeys', class: 'muted' }, t('account.no_passkeys')),
        passkeysWork()
          ? h('p', { class: 'row' }, h('button', {
            id: 'add-passkey', type: 'button',
            onclick: () => addPasskey().then(() => done(t('account.passkey_added')), (e) => done(passkeyRefusal(e), false)),
          }, icon('key'), t('account.add_passkey')))
          : h('p', { class: 'muted' }, t('account.passkeys_no_browser')))
      : null;
    $app.replaceChildren(h('div', { class: 'narrow', id: 'account-page' },
      h('section', { class: 'panel' }, h('h1', {}, t('account')), who,
        said.text ? h('p', { class: said.ok ? 'ok' : 'error', id: 'account-said', role: 'status' }, said.text) : null),
      me ? h('section', { class: 'panel' }, h('h2', {}, t('account.rename')),
        accountForm('rename', [name], t('account.rename'),
          async (v) => { const p = noteMe(await api('POST', '/api/me/name', v)); await done(t('account.renamed', { name: p.name })); })) : null,
      me && !me.account ? h('section', { class: 'panel', id: 'claim-panel' }, h('h2', {}, t('account.claim')), h('p', { class: 'muted' }, t('account.claim_about')),
        accountForm('claim', [name, [password[0], password[1], { ...password[2], autocomplete: 'new-password', placeholder: t('account.password_hint') }]], t('account.claim'),
          async (v) => { const p = noteMe(await api('POST', '/api/me/claim', v)); await done(t('account.claimed', { name: p.name })); })) : null,
      passkeyPanel,
      // Notices of games over days (it loads and redraws itself).
      me ? notifyPanel() : null,
      me ? h('section', { class: 'panel' }, h('h2', {}, t('account.sessions')),
        h('ul', { id: 'sessions', class: 'sessions' }, sessions.map((x) => h('li', { 'data-session': x.id, 'data-current': x.current ? 'true' : 'false' },
          h('span', { class: 'device' }, h('b', {}, deviceName(x.label)), x.current ? [' ', h('span', { class: 'kind' }, t('account.this_device'))] : null,
            h('br'), h('small', { class: 'muted' }, t('account.since', { date: when(x.created_at) }))),
          // (This device's is the Sign out below.)
          x.current ? null : h('button', {
            class: 'end-session', 'data-session': x.id, type: 'button',
            onclick: () => api('DELETE', `/api/sessions/${x.id}`).then(() => done(t('account.ended')), (e) => done(refusal(e), false)),
          }, t('account.sign_out'))))),
        !me.account ? h('p', { class: 'error' }, t('account.guest_warning')) : null,
        h('p', { class: 'row' },
          h('button', { id: 'sign-out', type: 'button', onclick: () => signOut('/api/sessions/current').catch((e) => done(refusal(e), false)) }, t('account.sign_out')),
          h('button', { id: 'sign-out-everywhere', type: 'button', onclick: () => signOut('/api/sessions').catch((e) => done(refusal(e), false)) }, t('account.sign_out_everywhere')))) : null,
      // Deleting the player: a second, explicit press (no browser dialog).
      me ? h('section', { class: 'panel', id: 'delete-panel' }, h('h2', {}, t('account.delete')), h('p', { class: 'muted' }, t('account.delete_about')),
        deleting
          ? h('button', {
            id: 'delete-confirm', type: 'button', class: 'danger',
            onclick: () => api('DELETE', '/api/me').then(() => { deleting = false; noteMe(null); return done(t('account.deleted')); },
              (e) => { deleting = false; return done(refusal(e), false); }),
          }, t('account.delete_confirm'))
          : h('button', { id: 'delete-me', type: 'button', onclick: () => { deleting = true; draw(); } }, t('account.delete'))) : null,
      // A guest may sign in to an account instead (folded away: it leaves the guest).
      !me ? h('section', { class: 'panel', id: 'sign-in-panel' }, h('h2', {}, t('account.sign_in')), signIn, withPasskey) : null,
      me && !me.account ? h('details', { class: 'panel more', id: 'sign-in-panel' }, h('summary', { id: 'sign-in-summary' }, t('account.sign_in')),
        h('p', { class: 'muted' }, t('account.sign_in_guest')), signIn, withPasskey) : null));
  }
  await draw();
}

// ---------------------------------------------------------------- notifications

// Notifications (protocol 27.6), a panel of the account page: the signed-in player's
// channels (GET /api/me/notifications), each removed with one tap (DELETE), and a new
// one added (POST): this browser by Web Push (the server's VAPID key from GET
// /api/notifications/vapid; the service worker, sw.js, shows what arrives), an email
// address, or a webhook (the server's signed JSON, or a WeCom, Feishu or DingTalk
// group bot). Each channel in a language (the page's by default) and for the notices
// ticked. Web Push needs the browser maker's push service, often unreachable in
// mainland China: the panel says so, and says plainly why this browser cannot
// subscribe when it cannot.

/** @typedef {import('./protocol').NotifyChannelInfo} NotifyChannelInfo */
/** @typedef {import('./protocol').NotifyChannelRequest} NotifyChannelRequest */
/** @typedef {import('./protocol').NoticeKind} NoticeKind */

/** @type {NoticeKind[]} */
const NOTICES = ['your_turn', 'offer_to_you', 'time_low'];
/** @type {import('./protocol').WebhookFormat[]} */
const FORMATS = ['json', 'we_com', 'feishu', 'ding_talk'];

/**
 * How long the browser may take to subscribe. Chromium waits for its push service
 * without end where it cannot reach it (no network to it, or a mainland Chinese
 * one): after this the person is told, and a subscription that comes later is still
 * handed to the server.
 */
const SUBSCRIBE_MS = 20000;

/** Why this browser cannot be notified, with a key of the words for it. */
class PushRefused extends Error {
  /** @param {string} key @param {string} [why] the browser's own words, if any */
  constructor(key, why = '') { super(why || key); this.key = key; }
}

/** `p`, or a `PushRefused(key)` after `ms`. @template T @param {Promise<T>} p @returns {Promise<T>} */
const within = (p, ms, key) => Promise.race([p, new Promise((_, fail) => { setTimeout(() => fail(new PushRefused(key, 'timed out')), ms); })]);

/** Whether this browser has what Web Push needs (a secure page, a service worker). */
const pushWorks = () => typeof navigator !== 'undefined' && !!navigator.serviceWorker && typeof PushManager !== 'undefined'
  && typeof Notification !== 'undefined' && globalThis.isSecureContext !== false;

/** The bytes of base64url `s`. @param {string} s */
function fromBase64url(s) {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(s.length / 4) * 4, '='));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}

/** Whether an existing subscription was made with `key`. @param {PushSubscription} sub @param {Uint8Array} key */
function sameKey(sub, key) {
  const had = sub.options?.applicationServerKey;
  if (!had) return false;
  const a = new Uint8Array(had);
  return a.length === key.length && a.every((x, i) => x === key[i]);
}

/**
 * This browser's push subscription for `publicKey` (one made before with it, else a
 * new one): asks for the notifications permission first (within the person's tap).
 * @param {string} publicKey the server's VAPID key, base64url
 * @returns {Promise<{ sub: Promise<PushSubscription> }>} the subscription, which may
 *   still come after `SUBSCRIBE_MS` (then the promise answered fails, this one not)
 */
async function subscribe(publicKey) {
  if (!pushWorks()) throw new PushRefused('notify.push_no_browser');
  const permission = Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
  if (permission !== 'granted') throw new PushRefused('notify.push_denied');
  // (Never ready where the worker could not be registered.)
  const reg = await within(navigator.serviceWorker.ready, 10000, 'notify.push_no_browser');
  const key = fromBase64url(publicKey);
  let sub = await reg.pushManager.getSubscription();
  if (sub && !sameKey(sub, key)) { await sub.unsubscribe().catch(() => {}); sub = null; }
  return { sub: sub ? Promise.resolve(sub) : reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }) };
}

/** A browser's refusal to subscribe in words. @param {any} e */
function pushRefusal(e) {
  if (e instanceof PushRefused) return t(e.key);
  if (e?.status) return refusal(e);
  if (e?.name === 'NotAllowedError' && typeof Notification !== 'undefined' && Notification.permission === 'denied') return t('notify.push_denied');
  // AbortError ("Registration failed - push service error"), NotAllowedError of a
  // private window, and the like: the push service would not have this browser.
  return t('notify.push_failed');
}

/** A channel's request fields for language and notices, from the form's choices. */
function choices(part) {
  const lang = /** @type {HTMLSelectElement} */ (part.querySelector('#notify-lang')).value;
  const notices = NOTICES.filter((n) => /** @type {HTMLInputElement} */ (part.querySelector(`#notify-notice-${n}`)).checked);
  if (!notices.length) throw new PushRefused('notify.pick_notices');
  return { lang: /** @type {import('./protocol').NoticeLang} */ (lang), notices };
}

/** One channel: what and where, its language and notices, Remove. @param {NotifyChannelInfo} c @param {(c: NotifyChannelInfo) => void} remove */
function channelItem(c, remove) {
  const kind = t(`notify.kind.${c.kind}`) + (c.format ? ` · ${t(`notify.format.${c.format}`)}` : '');
  return h('li', { 'data-channel': c.id, 'data-kind': c.kind },
    h('span', { class: 'device' }, h('b', {}, kind), ' ', h('span', { class: 'target' }, c.target), h('br'),
      h('small', { class: 'muted' }, [LANGUAGE_NAMES[c.lang] ?? c.lang, c.notices.map((n) => t(`notify.notice.${n}`)).join(t('list_sep')), t('notify.since', { date: day(c.created_at) })].join(' · '))),
    h('button', { class: 'delete-channel', 'data-channel': c.id, type: 'button', onclick: () => remove(c) }, t('notify.remove')));
}

/**
 * A form of labelled fields whose submit calls `send` (which says a refusal itself),
 * emptied once it is done.
 * @param {string} id
 * @param {HTMLElement[]} fields
 * @param {string} label the button's
 * @param {(form: HTMLFormElement) => Promise<void>} send
 */
function addForm(id, fields, label, send) {
  const button = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', id: `${id}-submit` }, label));
  const form = /** @type {HTMLFormElement} */ (h('form', { id, class: 'account-form' }, fields, button));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    // (A refusal is said in the panel by `send`.)
    try { await send(form); form.reset(); } catch { /* said */ } finally { button.disabled = false; }
  });
  return form;
}

const field = (text, input, hint = null) => h('label', { class: 'field' }, h('span', {}, text), input, hint ? h('small', { class: 'muted hint' }, hint) : null);

/**
 * The notifications panel of the account page (a signed-in player's): it loads and
 * redraws itself; what was done, or why not, said under what was used (a phone's
 * screen may not show the list).
 */
function notifyPanel() {
  const part = h('section', { class: 'panel', id: 'notify-panel', 'aria-labelledby': 'notify-title' });
  const said = h('p', { id: 'notify-said', role: 'status' });
  const list = h('div', { id: 'notify-list' });
  /** Says `text` under `near`. @param {string} text @param {boolean} ok @param {Element} near */
  const say = (text, ok = true, near = list) => { near.after(said); said.textContent = text; said.className = ok ? 'ok' : 'error'; };
  /** The server's VAPID key, once known. */
  let vapid = '';
  /** Why the server gives none (`push_unavailable`: it sends no Web Push). */
  let noVapid = null;

  const load = async () => {
    /** @type {NotifyChannelInfo[]} */
    let channels;
    try { channels = (await api('GET', '/api/me/notifications')).channels; } catch (x) { say(refusal(x), false); return; }
    list.replaceChildren(channels.length
      ? h('ul', { id: 'notify-channels', class: 'sessions' }, channels.map((c) => channelItem(c, remove)))
      : h('p', { id: 'no-channels', class: 'muted' }, t('notify.none')));
  };
  /** @param {NotifyChannelInfo} c */
  const remove = (c) => api('DELETE', `/api/me/notifications/${encodeURIComponent(c.id)}`)
    .then(() => say(t('notify.removed')), (x) => say(refusal(x), false)).then(load);
  /**
   * Adds the channel of `target` (kind and its fields) with the choices above, and
   * says so under `near`.
   * @param {Element} near
   */
  const add = async (target, near, done = 'notify.added') => {
    try {
      await api('POST', '/api/me/notifications', { ...target, ...choices(part) });
      say(t(done), true, near);
      await load();
    } catch (x) {
      say(x instanceof PushRefused ? t(x.key) : refusal(x), false, near);
      throw x;
    }
  };

  const pushButton = /** @type {HTMLButtonElement} */ (h('button', {
    id: 'notify-push', type: 'button', class: 'primary',
    onclick: async () => {
      pushButton.disabled = true;
      say('', true, pushPart);
      try {
        choices(part);
        const { sub } = await subscribe(vapid);
        const hand = (s) => { const j = s.toJSON(); return add({ kind: 'web_push', endpoint: j.endpoint, p256dh: j.keys.p256dh, auth: j.keys.auth }, pushPart, 'notify.push_added'); };
        // A subscription the push service grants late is still handed over.
        let late = false;
        sub.then((s) => (late ? hand(s) : null)).catch(() => {});
        const s = await within(sub, SUBSCRIBE_MS, 'notify.push_failed').catch((e) => { late = true; throw e; });
        await hand(s);
      } catch (e) {
        // (The server's refusals of the channel are said by `add` already.)
        if (!e?.status) say(pushRefusal(e), false, pushPart);
      } finally { pushButton.disabled = false; }
    },
  }, icon('bell'), t('notify.push_add')));
  const pushPart = h('div', { id: 'notify-push-part' });
  const showPush = () => {
    const why = !pushWorks() ? t('notify.push_no_browser') : noVapid ? refusal(noVapid) : null;
    pushPart.replaceChildren(why ? h('p', { id: 'notify-push-why', class: 'muted' }, why) : h('p', { class: 'row' }, pushButton));
  };

  const email = /** @type {HTMLInputElement} */ (h('input', { id: 'notify-email-to', name: 'to', type: 'email', autocomplete: 'email', maxlength: 254, required: true, placeholder: 'name@example.org' }));
  const url = /** @type {HTMLInputElement} */ (h('input', { id: 'notify-webhook-url', name: 'url', type: 'url', inputmode: 'url', maxlength: 2048, required: true, placeholder: 'https://', autocomplete: 'off' }));
  const format = /** @type {HTMLSelectElement} */ (h('select', { id: 'notify-webhook-format', name: 'format' }, FORMATS.map((f) => h('option', { value: f }, t(`notify.format.${f}`)))));
  const secret = /** @type {HTMLInputElement} */ (h('input', { id: 'notify-webhook-secret', name: 'secret', type: 'password', maxlength: 256, autocomplete: 'off' }));

  part.append(
    h('h2', { id: 'notify-title' }, icon('bell'), ' ', t('notify.title')),
    h('p', { class: 'muted' }, t('notify.about')),
    list, said,
    h('h3', {}, t('notify.new')),
    h('div', { class: 'notify-choices' },
      field(t('notify.lang'), h('select', { id: 'notify-lang' }, LANGUAGES.map((l) => h('option', { value: l, selected: l === language() }, LANGUAGE_NAMES[l])))),
      h('fieldset', { class: 'notify-notices' }, h('legend', {}, t('notify.notices')),
        NOTICES.map((n) => h('label', { class: 'row check' }, h('input', { type: 'checkbox', id: `notify-notice-${n}`, value: n, checked: true }), t(`notify.notice.${n}`))))),
    h('section', { class: 'notify-way', id: 'notify-push-way' }, h('h3', {}, t('notify.this_browser')),
      h('p', { class: 'muted' }, t('notify.push_about')), h('p', { class: 'muted', id: 'notify-china' }, t('notify.push_china')), pushPart),
    h('section', { class: 'notify-way' }, h('h3', {}, t('notify.email')),
      addForm('notify-email', [field(t('notify.email_to'), email)], t('notify.email_add'),
        (form) => add({ kind: 'email', to: email.value.trim() }, form))),
    h('section', { class: 'notify-way' }, h('h3', {}, t('notify.webhook')), h('p', { class: 'muted' }, t('notify.webhook_about')),
      addForm('notify-webhook', [field(t('notify.webhook_url'), url), field(t('notify.webhook_format'), format),
        field(t('notify.webhook_secret'), secret, t('notify.webhook_secret_hint'))], t('notify.webhook_add'),
      (form) => add({ kind: 'webhook', url: url.value.trim(), format: /** @type {any} */ (format.value), ...(secret.value ? { secret: secret.value } : {}) }, form))));

  load();
  api('GET', '/api/notifications/vapid').then((k) => { vapid = k.public_key; }, (x) => { noVapid = x; }).then(showPush);
  return part;
}

// ---------------------------------------------------------------- profile and leaderboard

/** A rating's "provisional" mark (too few rated games yet to be sure of it). */
export const provisionalMark = () => h('span', { class: 'provisional', title: t('rating.provisional_about') }, t('rating.provisional'));

/** A rating as shown: its value and, while it is provisional, the mark. @param {{ value: number, provisional: boolean }} r */
const ratingText = (r) => [h('b', { class: 'rating-value' }, r.value), r.provisional ? [' ', provisionalMark()] : null];

/** A page that could not be had: why, and the way back. */
function failed(x) {
  document.getElementById('app').replaceChildren(h('div', { class: 'panel narrow' }, h('p', { class: 'error', role: 'alert' }, refusal(x)), h('a', { href: '/', class: 'nav-link' }, t('back_lobby'))));
}

/** Previous and next pages of a list shown `limit` at a time from `offset` of `total`. */
function pager(offset, limit, total, href) {
  if (offset <= 0 && offset + limit >= total) return null;
  return h('p', { class: 'row pager' },
    offset > 0 ? h('a', { href: href(Math.max(0, offset - limit)), class: 'nav-link', id: 'page-back' }, t('page.back')) : null,
    offset + limit < total ? h('a', { href: href(offset + limit), class: 'nav-link', id: 'page-next' }, t('page.next')) : null);
}

const PROFILE_GAMES = 20;

/**
 * A player's profile (`/?player=<id>&offset=`): the name, a guest, an account or a
 * bot, the rating (provisional or not), games and wins, and the recent games, each
 * with its result, the rating change and its replay one tap away.
 * @param {string} id @param {number} offset
 */
export async function profilePage(id, offset = 0) {
  /** @type {PlayerProfile} */
  let p;
  try { p = await api('GET', `/api/players/${encodeURIComponent(id)}?offset=${offset}&limit=${PROFILE_GAMES}`); } catch (x) { failed(x); return; }
  document.title = t('title.profile', { name: occupantName(p) });
  const kind = p.bot ? t(`bot.${p.bot}`) : t(p.account ? 'account.kind_account' : 'account.kind_guest');
  const me = await loadMe();
  const stat = (sid, label, value) => h('div', { class: 'stat-tile', id: sid }, h('span', { class: 'muted' }, label), h('span', { class: 'stat-value' }, value));
  document.getElementById('app').replaceChildren(h('div', { class: 'narrow', id: 'profile' },
    h('section', { class: 'panel' },
      h('h1', { id: 'profile-name', class: 'me-line' }, icon('person'), occupantName(p), h('span', { class: 'kind' }, kind)),
      h('div', { class: 'stat-tiles' },
        stat('profile-rating', t('rating'), ratingText(p.rating)),
        stat('profile-games', t('profile.games'), p.games),
        stat('profile-wins', t('profile.wins'), p.wins)),
      h('p', { class: 'muted small' }, t('profile.rated_games', { n: p.rating.games })),
      h('p', { class: 'row' }, me?.id === p.id ? navLink('account-page-link', '/?account', 'person', t('account')) : null,
        navLink('leaderboard-link', '/?leaderboard', 'trophy', t('leaderboard')))),
    h('section', { class: 'panel' }, h('h2', {}, t('profile.recent')),
      p.recent.length ? h('ul', { id: 'recent-games', class: 'games' }, p.recent.map((g) => recentGame(g, p.id)))
        : h('p', { class: 'muted', id: 'recent-games' }, t('end.no_games')),
      pager(offset, PROFILE_GAMES, p.games, (o) => `/?player=${p.id}&offset=${o}`))));
}

/** One game of a profile: the result, the points, the rating change, who played, when, the replay. */
function recentGame(g, playerId) {
  const mine = g.players.find((x) => x.player_id === playerId);
  const result = g.winner === null || g.winner === undefined ? 'none' : mine && g.winner === mine.seat ? 'won' : 'lost';
  const change = mine?.rating;
  return h('li', { 'data-game': g.id, 'data-result': result },
    h('div', { class: 'game-line' },
      // (A rated game also says the place of a seat that did not win: 2nd of 4 is not 4th.)
      result === 'lost' && change?.place ? h('span', { class: 'result' }, t('profile.place', { n: change.place }))
        : h('span', { class: `result result-${result}` }, t(`profile.${result}`)),
      mine?.final_vp !== null && mine?.final_vp !== undefined ? h('span', {}, t('profile.vp', { n: mine.final_vp })) : null,
      change ? h('span', { class: 'rating-delta', 'data-before': change.before, 'data-after': change.after },
        t('profile.rating_change', { delta: signed(change.after - change.before), before: change.before, after: change.after }))
        : h('span', { class: 'muted' }, t('profile.unrated'))),
    h('div', { class: 'muted small' }, g.players.map((x) => occupantName(x)).join(t('list_sep')), ' · ', day(g.finished_at ?? g.started_at)),
    h('a', { href: `/?replay=${g.id}`, class: 'history-replay' }, t('end.watch_replay')));
}

const LEADERBOARD_ROWS = 50;

/**
 * The leaderboard (`/?leaderboard&offset=&provisional=1`): rank, name (its profile
 * one tap away), rating, wins and games, 50 a page; provisional ratings shown when
 * asked.
 * @param {number} offset @param {boolean} provisional
 */
export async function leaderboardPage(offset = 0, provisional = false) {
  document.title = t('title.leaderboard');
  const href = (o, prov = provisional) => `/?leaderboard&offset=${o}${prov ? '&provisional=1' : ''}`;
  /** @type {Leaderboard} */
  let lb;
  try { lb = await api('GET', `/api/leaderboard?offset=${offset}&limit=${LEADERBOARD_ROWS}&provisional=${provisional}`); } catch (x) { failed(x); return; }
  const me = S.me || await loadMe();
  const toggle = h('label', { class: 'row check' }, h('input', {
    id: 'lb-provisional', type: 'checkbox', checked: provisional,
    onchange: (e) => { location.href = href(0, e.target.checked); },
  }), t('leaderboard.provisional'));
  document.getElementById('app').replaceChildren(h('div', { class: 'narrow', id: 'leaderboard-page' },
    h('section', { class: 'panel' }, h('h1', {}, icon('trophy'), ' ', t('leaderboard')), toggle,
      h('p', { class: 'muted', id: 'lb-total' }, t('leaderboard.total', { n: lb.total })),
      lb.entries.length ? h('table', { id: 'leaderboard', class: 'leaderboard' },
        h('tr', {}, h('th', {}, t('leaderboard.rank')), h('th', {}, t('player')), h('th', {}, t('rating')), h('th', {}, t('leaderboard.wins_games'))),
        lb.entries.map((e) => h('tr', { 'data-player': e.id, class: me?.id === e.id ? 'you' : undefined },
          h('td', { class: 'rank' }, e.rank),
          // (People only: bots are not listed.)
          h('td', {}, h('a', { href: `/?player=${e.id}`, class: 'player-link' }, e.name)),
          h('td', { class: 'rating' }, ratingText(e.rating)),
          h('td', { class: 'num' }, `${e.wins}/${e.rating.games}`))))
        : h('p', { class: 'muted', id: 'leaderboard' }, t('leaderboard.empty')),
      pager(offset, LEADERBOARD_ROWS, lb.total, (o) => href(o)),
      h('p', {}, h('a', { href: '/', class: 'nav-link' }, t('back_lobby'))))));
}
