// Before the game, at a phone's size (390x844): the language switcher's choice is
// remembered; the lobby's form, the invite link, the host's seat controls and the
// start are used by keyboard only; the lobby lists the room by the names of the
// people in it; the host takes a waiting person's seat back and that person's page
// says so; every tap target of the lobby and the room's set-up is at least 44 px.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { measure } from './scenario.js';

/** The translation of `key` in the page's own language (its i18n module). */
export const tr = (tab, key, params = {}) => tab.evaluate(async ([k, p]) => {
  const { t } = await import(new URL('i18n.js', document.querySelector('script[type=module]').src).href);
  return t(k, p);
}, [key, params]);

/**
 * Every visible string of the page (text, placeholders, titles, labels) that holds
 * a Latin word, but the language switcher's "English" and people's names (a bot's
 * default name is not a person's: "Bot 2" is flagged there too); hex ids are left
 * out.
 */
function latinLeft(tab) {
  return tab.evaluate(() => {
    const bad = [];
    const shown = (e) => e.getClientRects().length > 0 && (!e.checkVisibility || e.checkVisibility({ visibilityProperty: true }));
    const check = (text, e, name) => {
      const s = text.replace(/\b[0-9a-f]{8}\b/g, '').trim();
      if (!s) return;
      // People's names as they gave them: the lobby's rooms and finished games, a
      // seat's occupant.
      if (name) {
        if (/\bBot \d/.test(s)) bad.push(s);
        return;
      }
      if (/[A-Za-z]{2,}/.test(s)) bad.push(s);
    };
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const e = n.parentElement;
      if (!e || e.closest('#lang, noscript, script, style, .sr-only') || !shown(e)) continue;
      const name = !!e.closest('.room-link, #history td:not(:last-child)') || (e.matches('#seats td:nth-child(2)') && e.firstChild === n);
      check(n.textContent, e, name);
    }
    for (const e of document.querySelectorAll('[placeholder], [title], [aria-label]')) {
      if (e.closest('#lang') || !shown(e)) continue;
      // (A remove button's label names the seat's occupant.)
      for (const a of ['placeholder', 'title', 'aria-label']) if (e.hasAttribute(a)) check(e.getAttribute(a), e, e.matches('.remove-seat, .room-link'));
    }
    return bad;
  });
}

/**
 * The whole set-up before a game, at 390x844, in Traditional Chinese chosen with the
 * switcher and by keyboard where a person fills forms (Tab, arrows, typing, Enter):
 *
 * - the language chosen with the switcher (from English) stays chosen: the page
 *   comes back without `?lang=` in it, a new tab of the same browser opens in it, and
 *   no English is left on the lobby or the room page;
 * - the lobby's form by keyboard only: 3 players (arrow), 5 points (arrows on the
 *   number), the beginner map (arrow), Create (Enter); the room has those options;
 * - the invite link: Copy link puts the room's address on the clipboard and says so;
 *   a second person opens that address and takes a seat;
 * - the lobby lists the room by the names of the people seated in it;
 * - the host takes the waiting person's seat back: that person's page says the host
 *   removed them, shows them no longer seated, with the seat form to take one again
 *   (no reconnecting, no "administrator"), and a reload keeps it so;
 * - the host adds two bots of the level chosen with the arrow keys (which stays
 *   chosen) and starts, by keyboard;
 * - every tap target of the lobby, the room (host and guest) and the list is at
 *   least 44 px, nothing scrolls sideways.
 */
export async function setUpARoomByKeyboard(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const size = { width: 390, height: 844 };
  const host = await browser.newTab({ ...size, isolated: true });
  const small = async (tab, where) => {
    const m = await measure(tab);
    assert.ok(m.scrollWidth <= 390, `${where}: no horizontal scrolling (${m.scrollWidth} px)`);
    assert.deepEqual(m.small, [], `${where}: every tap target is at least 44 px`);
  };

  // 1. The language switcher: English first (as asked in the address), then
  // Traditional Chinese chosen in the switcher.
  await host.goto(`${base}/?lang=en`);
  await host.waitFor('#create-room');
  assert.equal(await host.evaluate(() => document.documentElement.lang), 'en');
  assert.notDeepEqual(await latinLeft(host), [], 'the English page is in English');
  await Promise.all([host.page.waitForNavigation({ waitUntil: 'load' }), host.select('#lang', 'zh-Hant')]);
  await host.waitFor('#create-room');
  assert.equal(new URL(host.url()).searchParams.get('lang'), null, 'no ?lang= in the address');
  assert.equal(await host.evaluate(() => document.documentElement.lang), 'zh-Hant');
  assert.equal(await host.value('#lang'), 'zh-Hant');
  // The room list and the history are loaded (they are in the page's language too).
  await host.waitForFunction(() => ['#room-list', '#history'].every((s) => !document.querySelector(s).textContent.includes('…')));
  assert.deepEqual(await latinLeft(host), [], 'no English left on the lobby');
  // A new tab of the same browser, no ?lang=: the choice is remembered.
  const again = await browser.newTab({ ...size, sameAs: host });
  await again.goto(`${base}/`);
  await again.waitFor('#create-room');
  assert.equal(await again.evaluate(() => document.documentElement.lang), 'zh-Hant', 'a new tab opens in the language chosen');
  assert.equal(await again.text('#create-room'), await tr(host, 'create_room'));
  await again.close();
  await host.screenshot(path.join(out, 'lobby-keyboard.png'), { fullPage: true });
  await small(host, 'the lobby');

  // 2. The lobby's form by keyboard only.
  await host.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
  const keysAt = host.keys;
  // The room's options are folded under More options: Tab to it, Enter opens it.
  assert.ok(await host.tabTo('#more-options-summary'), 'Tab reaches More options');
  await host.key('Enter');
  assert.ok(await host.evaluate(() => document.getElementById('more-options').open), 'Enter opens the options');
  assert.ok(await host.tabTo('#opt-players'), 'Tab reaches the players');
  await host.key('ArrowDown');
  assert.equal(await host.value('#opt-players'), '3', 'an arrow key chooses 3 players');
  assert.ok(await host.tabTo('#opt-vp'));
  await host.key('ArrowDown', 5);
  assert.equal(await host.value('#opt-vp'), '5', 'arrow keys step the points target down');
  assert.ok(await host.tabTo('#opt-map'));
  await host.key('ArrowDown');
  assert.equal(await host.value('#opt-map'), 'beginner');
  assert.ok(await host.tabTo('#create-room'));
  await host.key('Enter');
  await host.waitForURL(/\?room=/);
  const id = new URL(host.url()).searchParams.get('room');
  const room = async () => (await fetch(`${base}/api/rooms/${id}`)).json();
  const opts = (await room()).options;
  assert.deepEqual([opts.players, opts.vp_target, opts.map], [3, 5, 'beginner'], 'the room has the options chosen by keyboard');
  await host.waitFor('#copy-link');
  assert.equal(await host.evaluate(() => document.documentElement.lang), 'zh-Hant', 'the room page in the language chosen');
  assert.deepEqual(await latinLeft(host), [], 'no English left on the room page');

  // 3. The invite link, copied by keyboard: what goes on the clipboard is the room's
  // address (recorded as the page hands it over; in Chromium read back too).
  const link = `${base}/?room=${id}`;
  assert.equal(await host.value('#share-link'), link);
  await host.evaluate(() => {
    window.__copied = [];
    const write = navigator.clipboard?.writeText?.bind(navigator.clipboard);
    window.__refused = [];
    if (write) {
      navigator.clipboard.writeText = (s) => {
        window.__copied.push(['clipboard', s]);
        return write(s).catch((e) => { window.__refused.push(`${e.name}: ${e.message}`); throw e; });
      };
    }
    const exec = document.execCommand.bind(document);
    document.execCommand = (c, ...r) => {
      const e = document.activeElement;
      if (c === 'copy') window.__copied.push(['execCommand', e instanceof HTMLInputElement ? e.value.slice(e.selectionStart, e.selectionEnd) : '']);
      return exec(c, ...r);
    };
  });
  if (browser.name === 'chromium') await host.page.browserContext().overridePermissions(base, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
  assert.ok(await host.tabTo('#copy-link'), 'Tab reaches Copy link');
  await host.key('Enter');
  const copied = await tr(host, 'link_copied');
  await host.waitForFunction((s) => document.getElementById('flash')?.textContent === s, copied);
  // Good news, not in the error colour.
  assert.deepEqual(await host.evaluate(() => [document.getElementById('flash').className, getComputedStyle(document.getElementById('flash')).color]),
    ['ok', 'rgb(29, 122, 60)'], '"Link copied" in green');
  // Through the clipboard API, or (where the browser refuses it) the field selected.
  const handed = await host.evaluate(() => window.__copied);
  assert.ok(handed.length >= 1, 'the page copied something');
  assert.deepEqual(handed.map(([, x]) => x), handed.map(() => link), `the invite link is what the page copied (${JSON.stringify(handed)})`);
  console.log(`# ${browser.name}: the invite link copied by ${handed.map(([how]) => how).join(', then ')} ${JSON.stringify(await host.evaluate(() => window.__refused))}`);
  if (browser.name === 'chromium') {
    assert.equal(await host.evaluate(() => navigator.clipboard.readText()), link, 'the clipboard holds the room\'s address');
  }

  // The host takes a seat by keyboard.
  assert.ok(await host.tabTo('#join-name'));
  await host.type('alice');
  assert.ok(await host.tabTo('#join'));
  await host.key('Enter');
  await host.waitFor('#you-seat[data-seat="0"]');

  // A second person opens the invite link and takes a seat.
  const bob = await browser.newTab({ ...size, isolated: true });
  await bob.goto(link);
  await bob.fill('#join-name', 'bob');
  await bob.click('#join');
  await bob.waitFor('#you-seat[data-seat="1"]');
  await host.waitForFunction(() => document.querySelectorAll('.remove-seat[data-seat="1"]').length === 1);
  await small(host, 'the room as its host');
  await small(bob, 'the room as a guest');
  await host.screenshot(path.join(out, 'room-host-keyboard.png'), { fullPage: true });

  // 4. The lobby lists the room by who is in it.
  const lobby = await browser.newTab({ ...size, isolated: true });
  await lobby.goto(`${base}/?lang=en`);
  const entry = `a.room-link[href="/?room=${id}"]`;
  await lobby.waitFor(entry);
  await lobby.waitForFunction((s) => document.querySelector(s)?.textContent === 'alice, bob', entry, 10000)
    .catch(async (e) => { throw new Error(`the lobby lists the room as "${await lobby.text(entry)}"`, { cause: e }); });
  const row = await lobby.evaluate((s) => [...document.querySelector(s).closest('tr').querySelectorAll('td')].map((td) => td.textContent), entry);
  assert.deepEqual(row, ['alice, bob', 'waiting for players', '2/3', '5', 'beginner'], 'names, status, seats taken, points, map');
  await small(lobby, 'the lobby with rooms listed');
  await lobby.close();

  // 5. The host takes bob's seat back (by keyboard); bob's page says so.
  assert.ok(await host.tabTo('.remove-seat[data-seat="1"]'), 'Tab reaches the remove button of seat 2');
  await host.key('Enter');
  await host.waitForFunction(() => document.querySelectorAll('.remove-seat[data-seat="1"]').length === 0, null, 10000)
    .catch(async (e) => {
      const why = await host.evaluate(() => [document.activeElement?.outerHTML, document.getElementById('flash')?.textContent]);
      throw new Error(`seat 2 not taken back: focus on ${why[0]}, said "${why[1]}"`, { cause: e });
    });
  assert.equal((await room()).seats[1].occupant, null, 'the seat is free');
  const removed = await tr(bob, 'removed_by_host');
  await bob.waitFor('#removed', 10000).catch(async (e) => {
    await bob.screenshot(path.join(out, 'removed-guest.png'), { fullPage: true });
    throw new Error(`bob's page after the host took his seat: "${await bob.text('#app')}", top bar "${await bob.text('#topbar')}"`, { cause: e });
  });
  assert.equal(await bob.text('#removed'), removed, 'the page says the host removed him');
  assert.equal(await bob.count('#you-seat'), 0, 'no longer shown seated');
  await bob.waitFor('#join');
  assert.ok(await bob.visible('#join-name'), 'the seat form is there to take one again');
  await bob.screenshot(path.join(out, 'removed-guest.png'), { fullPage: true });
  // Not the words for an administrator's disconnect, and no reconnecting.
  await new Promise((r) => setTimeout(r, 1500));
  const top = await bob.evaluate(() => { const c = document.getElementById('conn'); return c.hidden ? '' : c.textContent; });
  assert.equal(top, '', `no connection trouble shown (${top})`);
  await bob.reload();
  await bob.waitFor('#join');
  assert.equal(await bob.count('#you-seat'), 0, 'still not seated after a reload');
  await small(bob, 'the room after the seat was taken back');

  // 6. Two bots of the level chosen with an arrow key, and the start, by keyboard.
  for (let i = 0; i < 2; i++) {
    assert.ok(await host.tabTo('#bot-kind'));
    if (i === 0) {
      assert.equal(await host.value('#bot-kind'), 'medium');
      await host.key('ArrowDown');
    }
    assert.equal(await host.value('#bot-kind'), 'hard', i ? 'the level chosen stays chosen' : 'an arrow key chooses the level');
    assert.ok(await host.tabTo('#add-bot'));
    await host.key('Enter');
    await host.waitForFunction((n) => document.querySelectorAll('#seats tr[data-bot]').length === n, i + 1, 10000)
      .catch(async (e) => {
        const why = await host.evaluate(() => [document.activeElement?.outerHTML, document.getElementById('flash')?.textContent, document.getElementById('seats')?.textContent]);
        throw new Error(`bot ${i + 1} not added: focus on ${why[0]}, said "${why[1]}", seats ${why[2]}`, { cause: e });
      });
  }
  assert.ok(await host.tabTo('#start'), 'Tab reaches Start');
  await host.key('Enter');
  await host.waitFor('#board');
  const started = await room();
  assert.equal(started.status, 'playing');
  assert.deepEqual(started.seats.map((s) => s.occupant?.bot ?? s.occupant?.name), ['alice', 'hard', 'hard'], 'alice and two hard bots');
  console.log(`# ${browser.name}: the room set up with ${host.keys - keysAt} keys`);
  assert.deepEqual([...host.errors, ...bob.errors], [], 'no errors in the pages');
  await bob.close();
  await host.close();
}
