// Browser test of the web client in real headless Chromium (Debian's `chromium`
// package driven by playwright-core; no browser download).
//
// A person creates a room, takes a seat, adds three bots, starts, and plays a whole
// game through the page only: clicking highlighted spots and enabled buttons and
// answering dialogs. Mid-game the page is reloaded and must resume the game. A
// screenshot of the board is saved under tests/artifacts/.
//
// The server: $CATAN_URL if set (the Rust wrapper tests/e2e/browser.rs starts one
// in-process), else target/debug/catan-server (built with cargo if missing) started
// here on a free port with CATAN_BOT_THINK_MS=0.
//
// Run: cd web && npm ci && node --test tests/

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(ROOT, 'tests', 'artifacts');
const CHROMIUM = process.env.CATAN_CHROMIUM || '/usr/bin/chromium';
const VP_TARGET = 4;

let server = null;
let base = process.env.CATAN_URL || null;
let browser = null;

async function startServer() {
  const targetDir = process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target');
  const bin = process.env.CATAN_SERVER_BIN || path.join(targetDir, 'debug', 'catan-server');
  if (!existsSync(bin)) {
    const r = spawnSync('cargo', ['build', '-p', 'catan-server'], { cwd: ROOT, stdio: 'inherit' });
    assert.equal(r.status, 0, 'cargo build -p catan-server failed');
  }
  server = spawn(bin, ['--bind', '127.0.0.1:0', '--admin-bind', '127.0.0.1:0', '--database-url', 'sqlite::memory:'], {
    cwd: ROOT,
    env: { ...process.env, CATAN_BOT_THINK_MS: '0', NO_COLOR: '1', RUST_LOG: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${buf}`)), 30000);
    const onData = (d) => {
      buf += d.toString();
      // eslint-disable-next-line no-control-regex
      const clean = buf.replace(/\x1b\[[0-9;]*m/g, '');
      const m = clean.match(/listening[^\n]*addr=([0-9.:]+)/);
      if (m && !base) {
        clearTimeout(timer);
        base = `http://${m[1]}`;
        resolve();
      }
    };
    // The log line goes to stdout or stderr depending on the server's tracing setup.
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${buf}`)));
  });
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  if (!base) await startServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill('SIGTERM');
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function visible(page, sel) {
  return page.locator(sel).first().isVisible().catch(() => false);
}
async function enabled(page, sel) {
  const l = page.locator(sel);
  if (!(await l.count())) return false;
  return l.first().isEnabled().catch(() => false);
}
async function tryClick(page, sel) {
  try {
    await page.locator(sel).first().click({ timeout: 2000 });
    return true;
  } catch {
    return false;
  }
}

async function turnNumber(page) {
  const t = await page.locator('#turn-info').textContent().catch(() => '');
  const m = (t || '').match(/Turn (\d+)/);
  return m ? Number(m[1]) : -1;
}

// The parts of a GameView a client keeps from events (derived numbers excluded:
// protocol.md 12).
function comparable(v) {
  const c = structuredClone(v);
  for (const p of c.players) delete p.road_length;
  if (c.me) { delete c.me.total_vp; delete c.me.maritime_ratios; }
  const norm = (r) => Object.fromEntries(Object.entries(r || {}).filter(([, n]) => n));
  c.bank = norm(c.bank);
  if (c.me) { c.me.hand = norm(c.me.hand); c.me.dev_cards = norm(c.me.dev_cards); c.me.dev_cards_new = norm(c.me.dev_cards_new); }
  return c;
}

// One step of the simple policy. Returns a short description of what was done.
async function step(page, memo) {
  if (await visible(page, '#game-over')) return 'over';
  if (await visible(page, '#discard-dialog')) {
    for (let i = 0; i < 40 && !(await enabled(page, '#discard-confirm')); i++) {
      const plus = page.locator('#discard-dialog button[data-step$="-plus"]:enabled');
      if (!(await plus.count())) break;
      await plus.first().click({ timeout: 2000 }).catch(() => {});
    }
    return (await tryClick(page, '#discard-confirm')) ? 'discard' : 'discard?';
  }
  if (await visible(page, '#victim-dialog')) return (await tryClick(page, '#victim-dialog button[id^="victim-"]')) ? 'victim' : 'victim?';
  if (await visible(page, '#yop-dialog')) return (await tryClick(page, '#yop-0')) ? 'year of plenty' : 'yop?';
  if (await visible(page, '#monopoly-dialog')) return (await tryClick(page, '#monopoly-dialog button[id^="monopoly-"]')) ? 'monopoly' : 'monopoly?';

  const spots = page.locator('#board .hl');
  const n = await spots.count();
  if (n) {
    const i = Math.floor(Math.random() * n);
    try {
      await spots.nth(i).click({ timeout: 2000, force: true });
      memo.spots += 1;
      return 'spot';
    } catch {
      return 'spot?';
    }
  }
  const turn = await turnNumber(page);
  if (memo.turn !== turn) { memo.turn = turn; memo.maritime = 0; memo.offered = false; }
  const order = [
    ['#roll', 'roll'],
    ['#play-knight', 'knight'],
    ['#play-road-building', 'road building'],
    ['#play-yop', 'yop'],
    ['#play-monopoly', 'monopoly'],
    ['#build-city', 'city mode'],
    ['#build-settlement', 'settlement mode'],
  ];
  for (const [sel, what] of order) {
    if (await enabled(page, sel)) { if (await tryClick(page, sel)) return what; }
  }
  if (memo.maritime < 2 && (await enabled(page, '#maritime'))) {
    memo.maritime += 1;
    if (await tryClick(page, '#maritime')) return 'maritime';
  }
  if (await enabled(page, '#buy-dev')) { if (await tryClick(page, '#buy-dev')) return 'buy dev'; }
  if (memo.roads < 6 && (await enabled(page, '#build-road'))) {
    memo.roads += 1;
    if (await tryClick(page, '#build-road')) return 'road mode';
  }
  // Once, offer a trade to everyone, see the bots answer, then withdraw it.
  if (!memo.offered && (await enabled(page, '#end-turn')) && (await visible(page, '#trade button[data-step="give-lumber-plus"]'))) {
    memo.offered = true;
    const give = page.locator('#trade button[data-step^="give-"][data-step$="-plus"]:enabled');
    if (await give.count()) {
      const sel = await give.first().getAttribute('data-step');
      const res = sel.split('-')[1];
      await give.first().click();
      const want = ['ore', 'grain', 'wool'].find((r) => r !== res);
      await page.locator(`#trade button[data-step="get-${want}-plus"]`).click();
      if (await tryClick(page, '#send-offer')) {
        await page.locator('#offers [id^="withdraw-"]').first().waitFor({ timeout: 5000 }).catch(() => {});
        await tryClick(page, '#offers [id^="withdraw-"]');
        memo.offers += 1;
        return 'offer';
      }
    }
  }
  if (await enabled(page, '#end-turn')) {
    if (await tryClick(page, '#end-turn')) { memo.turns += 1; return 'end turn'; }
  }
  await sleep(50);
  return 'wait';
}

test('a person plays a complete game against three bots in Chromium', { timeout: 600000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

  // Lobby: create a room with every option.
  await page.goto(`${base}/`);
  await page.selectOption('#opt-players', '4');
  await page.fill('#opt-vp', String(VP_TARGET));
  await page.selectOption('#opt-map', 'beginner');
  await page.fill('#opt-turn', '0');
  await page.fill('#opt-trade', '30');
  await page.fill('#opt-discard', '0');
  await page.click('#create-room');
  await page.waitForURL(/\?room=/);
  const roomId = new URL(page.url()).searchParams.get('room');
  assert.match(roomId, /^[0-9a-f-]{36}$/);
  assert.equal(await page.inputValue('#share-link'), `${base}/?room=${roomId}`);

  // Take a seat, add three bots, start.
  await page.fill('#join-name', 'alice');
  await page.click('#join');
  await page.getByText('You are seat 1.').waitFor();
  for (let i = 1; i <= 3; i++) {
    await page.click('#add-bot');
    await page.waitForFunction((n) => document.querySelectorAll('#seats td').length > 0
      && [...document.querySelectorAll('#seats td')].filter((td) => td.textContent.includes('bot)')).length >= n, i);
  }
  await page.click('#start');
  await page.locator('#board').waitFor();
  assert.equal(await page.locator('#board polygon.tile').count(), 19);
  assert.equal(await page.locator('#board .harbor').count(), 9);

  // Play until the game ends; reload once mid-game.
  const memo = { turn: -1, maritime: 0, roads: 0, spots: 0, turns: 0, offers: 0, offered: true, reloaded: false, shot: false };
  let lastProgress = Date.now();
  let lastState = '';
  for (let i = 0; i < 20000; i++) {
    const did = await step(page, memo);
    if (did === 'over') break;
    const state = `${await turnNumber(page)}|${await page.locator('#prompt').textContent().catch(() => '')}|${did}`;
    if (did !== 'wait' || state !== lastState) lastProgress = Date.now();
    lastState = state;
    if (Date.now() - lastProgress > 60000) {
      await page.screenshot({ path: path.join(ARTIFACTS, 'stuck.png'), fullPage: true });
      const dump = await page.evaluate(() => JSON.stringify({ legal: window.__catan.legal, phase: window.__catan.view?.phase, pending: window.__catan.pending }));
      assert.fail(`no progress for 60 s: ${state}\n${dump}\n${errors.join('\n')}`);
    }
    const turn = await turnNumber(page);
    // Reload at the start of one of our turns (nothing moves until we roll): the
    // page must resume the game, and the view it kept up to date from events must
    // equal the server's fresh snapshot.
    if (!memo.reloaded && turn >= 3 && (await enabled(page, '#roll')) && !(await visible(page, '.modal .dialog'))) {
      memo.offered = false; // try a player trade after the reload
      memo.reloaded = true;
      const kept = await page.evaluate(() => JSON.stringify(window.__catan.view));
      await page.reload();
      await page.locator('#board').waitFor();
      await page.waitForFunction(() => window.__catan?.view);
      const fresh = await page.evaluate(() => JSON.stringify(window.__catan.view));
      assert.deepEqual(comparable(JSON.parse(kept)), comparable(JSON.parse(fresh)), 'the view kept from events equals the snapshot');
      const ratios = await page.evaluate(async () => {
        const { maritimeRatios } = await import('/web/board.js');
        const v = window.__catan.view;
        return [maritimeRatios(v, v.me.seat), v.me.maritime_ratios];
      });
      assert.deepEqual(ratios[0], ratios[1], 'harbor ratios computed by the page equal the server\'s');
      assert.equal(await turnNumber(page), turn, 'the reloaded page resumed the same turn');
      assert.ok(await enabled(page, '#roll'), 'and it is still ours to roll');
      assert.equal(await page.locator('#players .badge', { hasText: 'you' }).count(), 1, 'still seated after the reload');
    }
    if (memo.reloaded && !memo.shot && turn >= 10 && did === 'end turn') {
      memo.shot = true;
      await page.locator('#board').screenshot({ path: path.join(ARTIFACTS, 'board.png') });
      await page.screenshot({ path: path.join(ARTIFACTS, 'page.png') });
      if (process.env.CATAN_UPDATE_SCREENSHOT) {
        mkdirSync(path.join(ROOT, 'docs'), { recursive: true });
        copyFileSync(path.join(ARTIFACTS, 'page.png'), path.join(ROOT, 'docs', 'screenshot.png'));
      }
    }
  }

  // The game over screen: scores of all four seats and a working replay link.
  await page.locator('#game-over').waitFor({ timeout: 30000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'game-over.png') });
  if (!memo.shot) await page.locator('#board').screenshot({ path: path.join(ARTIFACTS, 'board.png') });
  assert.equal(await page.locator('#final-scores tr').count(), 5);
  const href = await page.getAttribute('#replay-link', 'href');
  assert.equal(href, `/api/games/${roomId}/replay`);
  const replay = await page.evaluate(async (u) => (await fetch(u)).status, href);
  assert.equal(replay, 200);
  assert.ok(memo.reloaded, 'the page was reloaded mid-game');
  assert.ok(memo.spots >= 4, 'placed pieces by clicking highlighted spots');
  assert.deepEqual(errors, [], 'no errors in the page');

  // The board after the game: every highlight gone, the page shows the final state.
  await page.click('#close-game-over');
  assert.equal(await page.locator('#board .hl').count(), 0);
  await page.close();
});

test('a second browser watches as a spectator and the lobby lists the room', { timeout: 120000 }, async () => {
  const res = await fetch(`${base}/api/rooms`, { method: 'POST', body: JSON.stringify({ players: 3, vp_target: 3 }) });
  const { room_id: id, host_token: host } = await res.json();
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } }); // phone-sized
  await page.goto(`${base}/`);
  await page.locator(`a.room-link[href="/?room=${id}"]`).waitFor();
  await page.goto(`${base}/?room=${id}`);
  await page.locator('#join').waitFor();
  for (let i = 0; i < 3; i++) {
    await fetch(`${base}/api/rooms/${id}/bots`, { method: 'POST', headers: { Authorization: `Bearer ${host}` }, body: '{}' });
  }
  await fetch(`${base}/api/rooms/${id}/start`, { method: 'POST', headers: { Authorization: `Bearer ${host}` } });
  await page.locator('#board').waitFor();
  await page.locator('#game-over').waitFor({ timeout: 90000 });
  assert.equal(await page.locator('#final-scores tr').count(), 4);
  assert.equal(await page.locator('#actions').count(), 0, 'a spectator has no actions');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  const wide = await page.evaluate(() => [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
    .slice(0, 5).map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`));
  assert.ok(width <= 390, `no horizontal scrolling on a phone (${width}px): ${wide.join(', ')}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'phone.png'), fullPage: true });
  await page.close();
});
