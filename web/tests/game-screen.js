// The game screen (the helpers are in scenario.js): its layout on a phone and a
// laptop, and what a person sees at a glance and the flow of a game, by keyboard too.

import assert from 'node:assert/strict';
import { mkdirSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { look, measure, newMemo, openOptions, progressWatch, sleep, step } from './scenario.js';

/**
 * The game screen at a phone's 390x844 and a laptop's 1366x768 for a seated player in
 * language `lang`: no horizontal overflow, every tap target at least 44 px; on the
 * phone one screen without scrolling: the board the full width, the hand docked
 * under it, the actions in thumb reach, the trade sheet over the board, closing by
 * itself when the board must be tapped (every spot then in view and on top), zoom
 * in and back with the buttons; on the laptop board, hand, actions and log in one
 * screen. A refusal shows in words (from its code) and clears at the next change of
 * state; a disabled action says why. Screenshots: phone-<lang>.png,
 * phone-trade-<lang>.png, desktop-<lang>.png.
 */
export async function layoutAtBothSizes(browser, base, out, { lang = 'zh-Hans', docs = null } = {}) {
  mkdirSync(out, { recursive: true });
  const res = await fetch(`${base}/api/rooms`, { method: 'POST', body: JSON.stringify({ players: 4, map: 'beginner', turn_timer_secs: 300 }) });
  const { room_id: id, host_token: host } = await res.json();
  const tab = await browser.newTab({ width: 390, height: 844, isolated: true });
  await tab.goto(`${base}/?lang=${lang}`);
  await tab.waitFor('#create-room');
  await tab.screenshot(path.join(out, `lobby-${lang}.png`));
  assert.deepEqual((await measure(tab)).scrollWidth <= 390, true, 'the lobby does not overflow');
  await tab.goto(`${base}/?room=${id}`);
  await tab.fill('#join-name', lang === 'en' ? 'alice' : '小明');
  await tab.click('#join');
  await tab.waitFor('#you-seat');
  await tab.screenshot(path.join(out, `room-${lang}.png`));
  for (let i = 0; i < 3; i++) await fetch(`${base}/api/rooms/${id}/bots`, { method: 'POST', headers: { Authorization: `Bearer ${host}` }, body: '{"kind":"medium"}' });
  await fetch(`${base}/api/rooms/${id}/start`, { method: 'POST', headers: { Authorization: `Bearer ${host}` } });
  await tab.waitFor('#board');
  // The spots of the setup are tap targets too.
  await tab.waitForFunction(() => document.querySelectorAll('#board .hl').length > 0, null, 60000);
  assert.deepEqual((await measure(tab)).small, [], 'every board spot is at least 44 px on the phone');
  // The setup's hint: each candidate spot shows its pips (the dots of its tiles' numbers).
  // (Drawn with the spots, once the page knows the placement is its own: waited for,
  // as a full Chromium run once read the spots before their marks.)
  await tab.waitForFunction(() => document.querySelectorAll('#board .hl-pips').length > 0, null, 10000)
    .catch(async (e) => {
      const why = await tab.evaluate(() => ({ you: window.__catan.conn.state.you, current: window.__catan.conn.state.view?.current, phase: window.__catan.conn.state.view?.phase }));
      throw new Error(`no pips on the setup's spots: ${JSON.stringify(why)}`, { cause: e });
    });
  const hints = await tab.evaluate(async () => {
    const { vertexPips } = await import(new URL('board.js', document.querySelector('script[type=module]').src).href);
    const v = window.__catan.conn.state.view;
    return [...document.querySelectorAll('#board .hl[data-vertex]')].map((e) => {
      const mark = [...document.querySelectorAll('#board .hl-pips')].find((p) => Math.abs(Number(p.getAttribute('x')) - Number(e.getAttribute('cx'))) < 0.5
        && Math.abs(Number(p.getAttribute('y')) - 1 - Number(e.getAttribute('cy'))) < 0.5);
      return [mark ? Number(mark.textContent) : null, vertexPips(v, Number(e.dataset.vertex))];
    });
  });
  assert.ok(hints.length > 0 && hints.every(([shown, pips]) => shown === pips), `each candidate spot shows its pips: ${JSON.stringify(hints.slice(0, 5))}`);
  // Through the setup to the first own roll.
  const memo = newMemo();
  for (let p = await look(tab); !(p && p.on.roll && !p.spots && !p.dialog); p = await look(tab)) await step(tab, memo, p);

  const phone = await measure(tab);
  assert.ok(phone.scrollWidth <= 390, `no horizontal overflow on the phone (${phone.scrollWidth})`);
  assert.ok(phone.board.width >= phone.clientWidth - 1, `the board fills the width (${phone.board.width} of ${phone.clientWidth})`);
  assert.ok(phone.actions.top >= 0 && phone.actions.bottom <= phone.innerHeight + 1, 'the actions are on screen');
  assert.ok(phone.board.bottom <= phone.actions.top + 1, 'with the whole board above them');
  assert.ok(phone.actions.top > phone.board.top, 'below the top of the board');
  assert.deepEqual(phone.small, [], 'every tap target is at least 44 px');
  await tab.screenshot(path.join(out, `phone-${lang}.png`));
  // A disabled action says why; a refusal shows in words and clears at the next change.
  assert.notEqual(await tab.text('#build-road .why'), '', 'a disabled build says why');
  await tab.evaluate(() => window.__catan.conn.act({ type: 'end_turn' }));
  await tab.waitFor('#flash');
  const words = await tab.evaluate(async () => {
    const { t } = await import(new URL('i18n.js', document.querySelector('script[type=module]').src).href);
    return [document.getElementById('flash').textContent, t(`err.${window.__catan.conn.state.refusal.code}`)];
  });
  assert.equal(words[0], words[1], 'the refusal is the translation of its code');
  await tab.click('#roll');
  await tab.waitForFunction(() => !document.getElementById('flash'));
  await tab.waitForFunction(() => !document.getElementById('roll') || document.getElementById('roll').disabled);
  // One screen, no scrolling: the hand docked and the actions in thumb reach.
  const after = await measure(tab);
  assert.ok(after.scrollHeight <= after.innerHeight + 1, `the phone's game screen does not scroll (${after.scrollHeight} for ${after.innerHeight})`);
  assert.ok(after.hand && after.hand.top >= after.board.bottom - 1 && after.hand.bottom <= after.actions.top + 1, 'the hand is docked between the board and the actions');
  assert.ok(after.actions.top >= after.innerHeight * 0.6, 'the actions sit in the lower part of the screen (thumb reach)');
  assert.ok(after.topbar.top === 0 && after.timer, 'the status (turn, timer) is on screen');
  assert.deepEqual(after.small, [], 'every tap target is at least 44 px after the roll');
  // A sheet opens over the board; when the board must be tapped it closes by itself.
  // (After a 7, the robber first: the board is needed, no sheet stays open.)
  for (let p = await look(tab); p && (p.spots || p.dialog); p = await look(tab)) await step(tab, memo, p);
  await tab.click('#open-trade');
  await tab.waitFor('#trade-sheet[data-open]');
  const sheet = await measure(tab);
  assert.deepEqual(sheet.small, [], 'every tap target of the trade sheet is at least 44 px');
  assert.ok(sheet.scrollWidth <= 390, 'the sheet does not overflow');
  await tab.screenshot(path.join(out, `phone-trade-${lang}.png`));
  if (await tab.enabled('#build-road')) {
    await tab.click('#build-road');
    await tab.waitForFunction(() => !document.querySelector('#trade-sheet[data-open]') && document.querySelectorAll('#board .hl').length > 0);
    // Every spot to tap is in view and takes the tap (nothing over it).
    const hits = await tab.evaluate(() => [...document.querySelectorAll('#board .hl')].map((e) => {
      const r = e.getBoundingClientRect();
      const x = r.left + r.width / 2; const y = r.top + r.height / 2;
      return y >= 0 && y <= innerHeight && x >= 0 && x <= innerWidth && document.elementFromPoint(x, y) === e;
    }));
    assert.ok(hits.length > 0 && hits.every(Boolean), `every road spot is in view and on top (${hits.filter(Boolean).length} of ${hits.length})`);
    await tab.click('#build-road');
  }
  if (await tab.count('#trade-sheet[data-open]')) await tab.click('#close-trade');
  // Zoom in and out with the buttons: the board shows less, then all of it again.
  const box0 = await tab.attr('#board', 'viewBox');
  await tab.click('#zoom-in');
  await tab.waitForFunction((b) => document.getElementById('board').getAttribute('viewBox') !== b, box0);
  const zoomed = (await tab.attr('#board', 'viewBox')).split(' ').map(Number);
  assert.ok(zoomed[2] < Number(box0.split(' ')[2]), 'zoomed in, the board shows less');
  await tab.click('#zoom-fit');
  await tab.waitForFunction((b) => document.getElementById('board').getAttribute('viewBox') === b, box0);
  await tab.screenshot(path.join(out, `phone-hand-${lang}.png`));
  // Help: a first-game guide, the building costs and what each development card does.
  await tab.click('#open-help');
  await tab.waitFor('#help-sheet[data-open]');
  assert.deepEqual(await tab.evaluate(() => [document.querySelectorAll('#first-game li').length, document.querySelectorAll('#costs-card li').length,
    document.querySelectorAll('#dev-help [data-dev-help]').length]), [5, 4, 5], 'the guide, the four costs, the five development cards');
  assert.deepEqual((await measure(tab)).small, [], 'every tap target of the help sheet is at least 44 px');
  await tab.screenshot(path.join(out, `phone-help-${lang}.png`));
  await tab.click('#close-help');

  await tab.page.setViewport({ width: 1366, height: 768 });
  await tab.evaluate(() => window.scrollTo(0, 0));
  await sleep(200);
  const desk = await measure(tab);
  assert.ok(desk.scrollWidth <= 1366, 'no horizontal overflow on the laptop');
  for (const k of ['board', 'hand', 'actions', 'log']) {
    assert.ok(desk[k] && desk[k].top >= 0 && desk[k].bottom <= 768 + 1, `${k} visible without scrolling (${JSON.stringify(desk[k])})`);
  }
  assert.deepEqual(desk.small, [], 'every tap target is at least 44 px on the laptop');
  await tab.screenshot(path.join(out, `desktop-${lang}.png`));
  if (docs) {
    mkdirSync(docs, { recursive: true });
    copyFileSync(path.join(out, `phone-${lang}.png`), path.join(docs, 'phone.png'));
    copyFileSync(path.join(out, `desktop-${lang}.png`), path.join(docs, 'desktop.png'));
  }
  assert.deepEqual(tab.errors.filter((e) => !/status of 4/.test(e)), [], 'no errors in the page');
  await tab.close();
}

/**
 * Clear at a glance, flow, reload: the sound off until turned on (remembered); one
 * click from the lobby to a started game
 * against bots of the level chosen (which stays chosen); a setup placement by
 * keyboard only (Tab to a spot, Enter; the focus moves on to the road's spots);
 * after a roll the tiles that produced glow and each seat's gains show; every
 * disabled action says why; after a reload the log is back from the first
 * placement (the server's `history`), line for line, with a chat line sent from the
 * page in its place; the turn timer on the active
 * player's row warns in its last 10 s.
 */
export async function glanceAndFlow(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const tab = await browser.newTab({ width: 1280, height: 900, isolated: true });
  await tab.goto(`${base}/?lang=en`);
  await tab.select('#quick-bot-kind', 'easy');
  await tab.reload();
  await tab.waitFor('#play-bots');
  assert.equal(await tab.value('#quick-bot-kind'), 'easy', 'the chosen bot level stays chosen');
  // The sound is off until turned on, and remembered.
  assert.equal(await tab.attr('#sound', 'aria-pressed'), 'false', 'no sound by default');
  await tab.click('#sound');
  assert.equal(await tab.attr('#sound', 'aria-pressed'), 'true');
  await tab.reload();
  await tab.waitFor('#sound');
  assert.equal(await tab.attr('#sound', 'aria-pressed'), 'true', 'the sound choice is remembered');
  await tab.click('#sound');
  assert.equal(await tab.attr('#sound', 'aria-pressed'), 'false');
  await openOptions(tab);
  await tab.select('#opt-players', '3');
  await tab.fill('#opt-turn', 20);
  await tab.fill('#opt-vp', 5);
  await tab.select('#opt-map', 'beginner');
  await tab.fill('#quick-name', 'kim');
  await tab.click('#play-bots');
  await tab.waitForURL(/\?room=/);
  await tab.waitFor('#board');
  const seats = await tab.evaluate(() => window.__catan.conn.state.room.seats.map((s) => s.occupant?.bot ?? s.occupant?.name));
  assert.deepEqual(seats, ['kim', 'easy', 'easy'], 'kim and two bots of the level chosen');
  assert.equal(await tab.attr('#players .player[data-seat="0"] [data-you]', 'data-you'), '', 'seated in the first seat');

  // Keyboard only: Tab to a settlement spot, Enter; then to a road spot, Enter.
  await tab.waitForFunction(() => document.querySelectorAll('#board .hl[data-vertex]').length > 0, null, 60000);
  const buildings = await tab.count('#board [data-building]');
  const focused = () => tab.evaluate(() => {
    const e = document.activeElement;
    return e && e.matches('#board .hl') ? { vertex: e.getAttribute('data-vertex'), edge: e.getAttribute('data-edge'), label: e.getAttribute('aria-label') } : null;
  });
  let spot = null;
  for (let i = 0; i < 40 && !spot; i++) { await tab.page.keyboard.press('Tab'); spot = await focused(); }
  assert.ok(spot?.vertex, `Tab reaches a settlement spot (${JSON.stringify(spot)})`);
  assert.match(spot.label, /^Settlement by the /, 'the spot says where it is');
  await tab.page.keyboard.press('Enter');
  await tab.waitForFunction((n) => document.querySelectorAll('#board [data-building]').length > n, buildings);
  await tab.waitForFunction(() => document.activeElement?.matches('#board .hl[data-edge]'));
  const road = await focused();
  assert.match(road.label, /^Road by the /, 'the focus moved on to a road spot');
  const roads = await tab.count('#board [data-road]');
  await tab.page.keyboard.press('Enter');
  await tab.waitForFunction((n) => document.querySelectorAll('#board [data-road]').length > n, roads);
  assert.equal(await tab.count('#board [data-last]'), 1, 'the last piece placed is marked');

  // Play on (the simple policy) until a roll has produced, seen at a glance, and
  // some turns have passed; every disabled action says why.
  const memo = newMemo();
  const watch = progressWatch(tab, out);
  const reasons = new Set();
  let glow = null;
  for (let i = 0; i < 5000 && !(glow && memo.turns >= 2); i++) {
    const p = await look(tab);
    if (!glow) {
      glow = await tab.evaluate(() => (document.querySelector('#board .glow') && document.querySelector('#players .gain')
        ? { tiles: document.querySelectorAll('#board .glow').length, gains: [...document.querySelectorAll('#players .gain')].map((e) => e.textContent) } : null));
      if (glow) await tab.screenshotOf('#board', path.join(out, 'production-glow.png'));
    }
    if (p && p.turn >= 0 && !p.dialog) {
      // (While an action is in flight every button waits, with the prompt saying so.)
      const why = await tab.evaluate(() => (window.__catan.conn.state.pending || document.getElementById('prompt')?.textContent.startsWith('Waiting for the server') ? []
        : [...document.querySelectorAll('#actions button:disabled')].map((b) => [b.id, b.querySelector('.why')?.textContent || '', b.title])));
      for (const [id, text, title] of why) {
        assert.ok(text && text === title, `disabled #${id} says why, in its title too (${text}|${title})`);
        reasons.add(text);
      }
    }
    const did = await step(tab, memo, p);
    assert.notEqual(did, 'over', 'the game lasts long enough');
    await watch(p, did);
  }
  assert.ok(glow && glow.tiles > 0, 'the tiles that produced glowed');
  assert.ok(glow.gains.every((g) => /^(\+\d+ \w+ ?)+$/.test(g)), `gains shown as "+n resource": ${glow.gains}`);
  assert.ok([...reasons].some((r) => /^needs \d/.test(r)), `a build says what it needs (${[...reasons]})`);

  // Reload at the start of an own turn: the log comes back from the first placement.
  for (let p = await look(tab); !(p && p.on.roll && !p.dialog && !p.spots); p = await look(tab)) await watch(p, await step(tab, memo, p));
  const lines = () => tab.evaluate(() => [...document.querySelectorAll('#log > div')].map((e) => e.textContent));
  // A chat line sent from the page (typed, Enter) shows in the log, and is back after
  // the reload with the game's lines (the history's chat), in its place.
  const said = 'kim: anyone for ore?';
  await tab.fill('#chat-input', 'anyone for ore?');
  await tab.page.keyboard.press('Enter');
  await tab.waitForFunction((x) => [...document.querySelectorAll('#log > div.chat')].some((e) => e.textContent === x), said, 10000);
  const before = await lines();
  // The log follows the newest line (read after the frame that draws it).
  const atEnd = () => tab.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
    const l = document.getElementById('log');
    done(l.scrollTop + l.clientHeight >= l.scrollHeight - 2);
  }))));
  assert.ok(await atEnd(), 'the log shows its newest line');
  assert.ok(before.slice(0, 2).some((l) => / built a settlement /.test(l)), `the log starts at the first placement: ${before.slice(0, 2)}`);
  await tab.reload();
  await tab.waitFor('#board');
  await tab.waitForFunction((n) => document.querySelectorAll('#log > div').length >= n, before.length);
  assert.deepEqual((await lines()).slice(0, before.length), before, 'after a reload the log is back, line for line');
  assert.equal(await tab.evaluate((x) => [...document.querySelectorAll('#log > div.chat')].filter((e) => e.textContent === x).length, said), 1, 'the chat line is back, once');
  assert.ok(await atEnd(), 'scrolled to its newest line');
  assert.equal(await tab.count('#board [data-last]'), 1, 'and the last piece is still marked');
  await tab.screenshot(path.join(out, 'after-reload.png'));

  // The turn timer (20 s) on the active player's row warns in its last 10 s.
  assert.equal(await tab.count('#players .player.current .countdown'), 1, 'the timer shows on the active seat');
  await tab.waitForFunction(() => document.querySelector('#players .player.current .countdown.warn'), null, 20000);
  assert.match(await tab.text('#players .player.current .countdown.warn'), /^0:(0\d|10)$/);
  await tab.screenshotOf('#players-panel', path.join(out, 'timer-warning.png'));
  assert.deepEqual(tab.errors, [], 'no errors in the page');
  await tab.close();
}
