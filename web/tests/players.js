// Players who come back (protocol.md 25), as a person on a phone meets them: 390x844,
// in Simplified Chinese.
//
// - Guest first: a first visit asks nothing of /api/me; a game against bots from the
//   lobby with nothing typed but the name makes a guest of that name (GET /api/me
//   says so); the session is the HttpOnly cookie, which the page cannot read, and no
//   token is kept in localStorage; back in the lobby, the name field and the top
//   bar's account link show the player's name.
// - When /api/guests fails (a server that keeps no players), a seat is taken as
//   before, with nothing said.
// - The account page: claiming with a short password and with a name another account
//   has is refused in words (the codes' translations); claimed; renamed; signed out
//   (GET /api/me then says nobody). Another device (a fresh browser context): a wrong
//   password refused in words, then signed in; the first device signs in again; the
//   signed-in devices list shows both; one is signed out from the other, whose page
//   then shows nobody signed in; signing out everywhere ends the rest.
// - Rated games (a server without ratings fails here): a rated room refuses a seat
//   without a player, in words; a rated game against bots from the lobby's options
//   (the turn timer plays the person's turns), its end screen showing the person's
//   rating change as the stored game has it; the profile with the rating (marked
//   provisional), the games, the wins and the game with its rating change and its
//   replay one tap away; the leaderboard, provisional ratings shown, lists the player
//   and leads to the profile. Every page: nothing overflows sideways, every tap
//   target at least 44 px.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { closeRooms, measure } from './scenario.js';
import { tr } from './lobby.js';

const PASSWORD = 'correct horse battery';

/** The page's answer to `method path` (its cookie sent): status and body. */
const call = (tab, method, p, body) => tab.evaluate(async ([m, u, b]) => {
  const r = await fetch(u, { method: m, headers: b ? { 'content-type': 'application/json' } : {}, body: b ? JSON.stringify(b) : undefined });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}, [method, p, body]);

async function post(base, p, body, token) {
  const r = await fetch(`${base}${p}`, {
    method: 'POST', body: JSON.stringify(body ?? {}),
    headers: { 'content-type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  });
  const text = await r.text();
  assert.ok(r.ok, `POST ${p}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Nothing overflows sideways; every tap target is at least 44 px. */
async function fits(tab, where) {
  const m = await measure(tab);
  assert.ok(m.scrollWidth <= 390, `${where}: no horizontal scrolling (${m.scrollWidth} px)`);
  assert.deepEqual(m.small, [], `${where}: every tap target is at least 44 px`);
}

/** Waits until the text of `sel` is `text` (a translation), failing with what it was. */
async function says(tab, sel, text, timeout = 10000) {
  await tab.waitForFunction(([s, x]) => document.querySelector(s)?.textContent === x, [sel, text], timeout)
    .catch(async (e) => { throw new Error(`${sel} says "${await tab.text(sel)}", not "${text}"`, { cause: e }); });
}

/** Submits the account page's form `id` with `values` (its fields by name). */
async function submit(tab, id, values) {
  for (const [name, value] of Object.entries(values)) await tab.fill(`#${id}-${name}`, value);
  await tab.click(`#${id}-submit`);
}

/** The account page of `tab` shows `kind` ('guest', 'account', 'none') signed in. */
async function showsKind(tab, kind) {
  await tab.waitForFunction((k) => document.querySelector('#me-line')?.dataset.kind === k, kind, 10000)
    .catch(async (e) => { throw new Error(`the account page shows ${await tab.attr('#me-line', 'data-kind')}, not ${kind}`, { cause: e }); });
}

/**
 * The whole life of a player who comes back, at 390x844 in Simplified Chinese; in
 * `browser` against the server at `base` (whose `admin` API closes the rooms it
 * leaves). Answers what it saw, for the log.
 */
export async function playersWhoComeBack(browser, base, out, admin) {
  mkdirSync(out, { recursive: true });
  const size = { width: 390, height: 844 };
  // Account names are unique on the server: one of this run and browser.
  const name = `安妮${browser.name.slice(0, 2)}${Math.floor(Math.random() * 1e6)}`;

  // 1. Guest first: a game against bots with nothing typed but the name.
  const ann = await browser.newTab({ ...size, isolated: true });
  const asked = [];
  ann.page.on('request', (r) => { if (new URL(r.url()).pathname === '/api/me') asked.push(r.url()); });
  await ann.goto(`${base}/?lang=zh-Hans`);
  await ann.waitFor('#play-bots');
  await ann.waitForFunction(() => window.__catan.me === null);
  assert.deepEqual(asked, [], 'a first visit asks nothing of /api/me');
  assert.equal(await ann.attr('#account-link', 'data-kind'), 'none', 'nobody signed in on a first visit');
  assert.equal(await ann.text('#account-link'), await tr(ann, 'account'));
  await fits(ann, 'the lobby');
  await ann.fill('#quick-name', name);
  await ann.click('#play-bots');
  await ann.waitForURL(/\?room=/);
  await ann.waitFor('#board');
  const rooms = [new URL(ann.url()).searchParams.get('room')];
  const me = await call(ann, 'GET', '/api/me');
  assert.equal(me.status, 200, 'the first game made a player');
  assert.deepEqual([me.body.name, me.body.account], [name, false], 'a guest of the name typed');
  const seated = await ann.evaluate(() => window.__catan.conn.state.room.seats[0].occupant?.name);
  assert.equal(seated, name, 'seated under that name');
  const kept = await ann.evaluate(() => ({ cookie: document.cookie, stored: Object.values(localStorage).join(' ') }));
  assert.doesNotMatch(kept.cookie, /catan_session/, 'the session cookie is HttpOnly');
  assert.doesNotMatch(kept.stored, /cs_[0-9a-f]{16}/, 'no session token in localStorage');
  await ann.goto(`${base}/`);
  await ann.waitForFunction((n) => document.querySelector('#account-link')?.dataset.kind === 'guest'
    && document.querySelector('#quick-name')?.value === n, name, 10000);
  assert.equal(await ann.evaluate(() => document.documentElement.lang), 'zh-Hans', 'the language remembered');
  assert.equal(await ann.text('#account-link .account-name'), name, 'the top bar names the player');
  await fits(ann, 'the lobby of a guest');

  // 2. Without players on the server (POST /api/guests fails), a seat as before.
  const unrated = await post(base, '/api/rooms', { players: 3 });
  rooms.push(unrated.room_id);
  const plain = await browser.newTab({ ...size, isolated: true });
  await plain.goto(`${base}/?room=${unrated.room_id}&lang=zh-Hans`);
  await plain.waitFor('#join');
  await plain.evaluate(() => {
    const real = window.fetch;
    window.fetch = (u, o) => (String(u).endsWith('/api/guests')
      ? Promise.resolve(new Response('{"error":{"code":"store_unavailable","message":"no players here"}}', { status: 503 }))
      : real(u, o));
  });
  await plain.fill('#join-name', '小明');
  await plain.click('#join');
  await plain.waitFor('#you-seat[data-seat="0"]');
  assert.equal(await plain.count('#flash'), 0, 'nothing said');
  assert.equal((await call(plain, 'GET', '/api/me')).status, 401, 'and no player made');
  await plain.close();

  // 3. The account page: claiming, refused in words, then claimed; renamed.
  await ann.click('#account-link');
  await ann.waitForURL(/\?account/);
  await showsKind(ann, 'guest');
  assert.equal(await ann.text('#me-name'), name);
  await fits(ann, 'the account page of a guest');
  await ann.screenshot(path.join(out, 'account-guest-zh-Hans.png'), { fullPage: true });
  await submit(ann, 'claim', { name, password: 'short' });
  await says(ann, '#claim-error', await tr(ann, 'err.invalid_password'));
  // Another account has the name "taken" (in another case: names are one by their key).
  const taken = `Taken${name}`;
  await post(base, '/api/me/claim', { name: taken, password: PASSWORD }, (await post(base, '/api/guests', { name: 'x' })).token);
  await submit(ann, 'claim', { name: taken.toUpperCase(), password: PASSWORD });
  await says(ann, '#claim-error', await tr(ann, 'err.name_taken'));
  await submit(ann, 'claim', { name, password: PASSWORD });
  await says(ann, '#account-said', await tr(ann, 'account.claimed', { name }));
  await showsKind(ann, 'account');
  assert.equal(await ann.count('#claim-panel'), 0, 'an account claims no more');
  assert.equal((await call(ann, 'GET', '/api/me')).body.account, true, 'the player is an account');
  const renamed = `${name}改`;
  await submit(ann, 'rename', { name: renamed });
  await says(ann, '#account-said', await tr(ann, 'account.renamed', { name: renamed }));
  assert.equal((await call(ann, 'GET', '/api/me')).body.name, renamed, 'renamed');
  assert.equal(await ann.text('#account-link .account-name'), renamed, 'the top bar says the new name');
  await fits(ann, 'the account page of an account');
  // Signed out.
  await ann.click('#sign-out');
  await showsKind(ann, 'none');
  assert.equal((await call(ann, 'GET', '/api/me')).status, 401, 'signed out: nobody');
  assert.equal(await ann.attr('#account-link', 'data-kind'), 'none');

  // 4. Another device: a wrong password, then the right one.
  const phone = await browser.newTab({ ...size, isolated: true });
  await phone.goto(`${base}/?account&lang=zh-Hans`);
  await showsKind(phone, 'none');
  await fits(phone, 'the account page, signed out');
  await submit(phone, 'sign-in', { name: renamed, password: 'wrong password' });
  await says(phone, '#sign-in-error', await tr(phone, 'err.invalid_credentials'));
  await submit(phone, 'sign-in', { name: renamed, password: PASSWORD });
  await says(phone, '#account-said', await tr(phone, 'account.signed_in', { name: renamed }));
  await showsKind(phone, 'account');
  // The first device signs in again: two devices.
  await submit(ann, 'sign-in', { name: renamed, password: PASSWORD });
  await showsKind(ann, 'account');
  await phone.reload();
  await showsKind(phone, 'account');
  const devices = () => phone.evaluate(() => [...document.querySelectorAll('#sessions li')].map((li) => li.dataset.current));
  assert.deepEqual((await devices()).sort(), ['false', 'true'], 'two signed-in devices, this one marked');
  await fits(phone, 'the account page with two devices');
  await phone.screenshot(path.join(out, 'account-devices-zh-Hans.png'), { fullPage: true });
  // The other one signed out from here.
  await phone.click('#sessions li[data-current="false"] .end-session');
  await says(phone, '#account-said', await tr(phone, 'account.ended'));
  assert.deepEqual(await devices(), ['true'], 'one device left');
  await ann.reload();
  await showsKind(ann, 'none');
  assert.equal((await call(ann, 'GET', '/api/me')).status, 401, 'the device signed out from the other is signed out');

  const rated = await ratedGame(browser, base, out, phone, renamed, rooms);

  // 5. Signing out everywhere.
  await phone.goto(`${base}/?account`);
  await showsKind(phone, 'account');
  await phone.click('#sign-out-everywhere');
  await showsKind(phone, 'none');
  assert.equal((await call(phone, 'GET', '/api/me')).status, 401, 'signed out everywhere');

  // 6. Deleting the player, signed in again, confirmed by a second press: signed
  // out, the name gone from the profile and the stored game, the game and its
  // rating kept.
  await submit(phone, 'sign-in', { name: renamed, password: PASSWORD });
  await showsKind(phone, 'account');
  await phone.click('#delete-me');
  await phone.waitFor('#delete-confirm');
  await fits(phone, 'the account page asking to confirm the deletion');
  await phone.screenshot(path.join(out, 'account-delete-zh-Hans.png'), { fullPage: true });
  await phone.click('#delete-confirm');
  await showsKind(phone, 'none');
  assert.equal(await phone.text('#account-said'), await tr(phone, 'account.deleted'));
  const gone = await (await fetch(`${base}/api/players/${rated.me.id}`)).json();
  assert.equal(gone.name, 'deleted player', 'the profile no longer names the player');
  const stored = await (await fetch(`${base}/api/games/${rated.game}`)).json();
  const seat = stored.players.find((p) => p.player_id === rated.me.id);
  assert.deepEqual([seat?.name, seat?.rating?.after], ['deleted player', rated.after], 'the game keeps the seat and its rating, without the name');
  const again = await call(phone, 'POST', '/api/sessions', { name: renamed, password: PASSWORD });
  assert.equal(again.status, 401, 'the deleted account cannot sign in');
  const errors = [...ann.errors, ...phone.errors].filter((e) => !/status of 4/.test(e));
  assert.deepEqual(errors, [], 'no errors in the pages (but the refusals asked for)');
  await ann.close();
  await phone.close();
  await closeRooms(admin, rooms);
  return { name, rated };
}

/**
 * A rated game of the signed-in person on `tab` (named `name`) against two bots, by
 * the lobby's options; then its end screen, the profile and the leaderboard.
 */
async function ratedGame(browser, base, out, tab, name, rooms) {
  const probe = await fetch(`${base}/api/leaderboard`);
  assert.notEqual(probe.status, 404, 'the server has ratings (GET /api/leaderboard)');
  const me = (await call(tab, 'GET', '/api/me')).body;

  // A rated room refuses a seat without a player, in words.
  const room = await post(base, '/api/rooms', { players: 3, rated: true });
  rooms.push(room.room_id);
  const nobody = await browser.newTab({ width: 390, height: 844, isolated: true });
  await nobody.goto(`${base}/?room=${room.room_id}&lang=zh-Hans`);
  await nobody.waitFor('#rated-room');
  await nobody.evaluate(() => {
    const real = window.fetch;
    window.fetch = (u, o) => (String(u).endsWith('/api/guests') ? Promise.resolve(new Response('', { status: 503 })) : real(u, o));
  });
  await nobody.fill('#join-name', '小红');
  await nobody.click('#join');
  await says(nobody, '#flash', await tr(nobody, 'err.not_signed_in'));
  await nobody.close();

  // The game: 3 players, 3 points, a 1 s turn timer that plays the person's turns.
  await tab.goto(`${base}/`);
  await tab.waitFor('#play-bots');
  await tab.click('#more-options-summary');
  await tab.waitFor('#opt-rated');
  assert.equal(await tab.evaluate(() => document.getElementById('opt-rated').checked), false, 'unrated unless asked');
  await tab.select('#opt-players', '3');
  await tab.fill('#opt-vp', 3);
  await tab.fill('#opt-turn', 1);
  // A discard the person owes after a 7 is made for them after 2 s, not the default
  // 60 s (a full run once spent its whole wait for the game's end on discards).
  await tab.fill('#opt-discard', 2);
  await tab.click('#opt-rated');
  // Back up to the button (the sticky top bar would cover it scrolled to the edge).
  await tab.evaluate(() => window.scrollTo(0, 0));
  await tab.click('#play-bots');
  await tab.waitForURL(/\?room=/);
  const id = new URL(tab.url()).searchParams.get('room');
  await tab.waitFor('#board');
  assert.equal(await tab.evaluate(() => window.__catan.conn.state.room.options.rated), true, 'a rated room');
  await tab.waitFor('#game-over', 120000);
  await tab.waitFor('#rating-change[data-after]', 30000);
  const game = await (await fetch(`${base}/api/games/${id}`)).json();
  const mine = game.players.find((p) => p.player_id === me.id);
  assert.ok(mine?.rating, `the stored game rates the person's seat (${JSON.stringify(game.players)})`);
  const { before, after } = mine.rating;
  assert.deepEqual([Number(await tab.attr('#rating-change', 'data-before')), Number(await tab.attr('#rating-change', 'data-after'))], [before, after],
    'the end screen shows the stored rating change');
  const delta = after - before;
  assert.ok((await tab.text('#rating-change')).includes(`${before} → ${after}`), 'before → after, in words');
  assert.ok((await tab.text('#rating-change')).includes(delta > 0 ? `+${delta}` : delta < 0 ? `−${-delta}` : '±0'), 'and the change');
  assert.equal(await tab.attr('#rating-profile', 'href'), `/?player=${me.id}`, 'the profile a tap away');
  await tab.screenshot(path.join(out, 'rated-end-screen-zh-Hans.png'));
  await fits(tab, 'the end screen of a rated game');

  // The profile, from the account page.
  await tab.goto(`${base}/?account`);
  await tab.click('#my-profile');
  await tab.waitFor('#profile-name');
  assert.ok((await tab.text('#profile-name')).includes(name), 'the profile names the player');
  const profile = await (await fetch(`${base}/api/players/${me.id}`)).json();
  assert.equal(Number(await tab.text('#profile-rating .rating-value')), profile.rating.value, 'the rating');
  assert.equal(profile.rating.value, after, 'the rating after the game');
  assert.equal(await tab.count('#profile-rating .provisional'), profile.rating.provisional ? 1 : 0, 'marked provisional while it is');
  assert.equal(await tab.text('#profile-games .stat-value'), String(profile.games));
  assert.equal(await tab.text('#profile-wins .stat-value'), String(profile.wins));
  const row = `#recent-games li[data-game="${id}"]`;
  await tab.waitFor(row);
  assert.equal(Number(await tab.attr(`${row} .rating-delta`, 'data-after')), after, 'the game with its rating change');
  assert.equal(await tab.attr(`${row}`, 'data-result'), game.winner === mine.seat ? 'won' : 'lost', 'and its result');
  await fits(tab, 'the profile');
  await tab.screenshot(path.join(out, 'profile-zh-Hans.png'), { fullPage: true });
  await tab.click(`${row} .history-replay`);
  await tab.waitForURL(new RegExp(`\\?replay=${id}`));
  await tab.waitFor('#replay-last');

  // The leaderboard, provisional ratings shown: the player, a tap from the profile.
  // On the way, the lobby's finished games name the player with a link to the profile.
  await tab.goto(`${base}/`);
  await tab.waitFor(`#history tr[data-game="${id}"] a.player-link[href="/?player=${me.id}"]`);
  await tab.click('#leaderboard-link');
  await tab.waitFor('#lb-provisional');
  if (!(await tab.evaluate(() => document.getElementById('lb-provisional').checked))) {
    await tab.click('#lb-provisional');
    await tab.waitForURL(/provisional=1/);
  }
  const entry = `#leaderboard tr[data-player="${me.id}"] .player-link`;
  await tab.waitFor(entry);
  assert.equal(await tab.text(entry), name, 'the leaderboard lists the player');
  await fits(tab, 'the leaderboard');
  await tab.screenshot(path.join(out, 'leaderboard-zh-Hans.png'), { fullPage: true });
  await tab.click(entry);
  await tab.waitFor('#profile-name');
  assert.ok((await tab.text('#profile-name')).includes(name), 'and leads to the profile');

  return { before, after, provisional: profile.rating.provisional, game: id, me };
}
