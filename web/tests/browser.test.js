// Browser tests of the web client in real headless browsers from Debian's packages:
// Chromium (`chromium`, over the DevTools protocol) and Firefox ESR (`firefox-esr`,
// over WebDriver BiDi), both driven by puppeteer-core (driver.js); no browser
// download. The same scenarios (whole-game.js, trade.js, lobby.js, after-game.js...)
// run in each browser:
//
// - a person creates a room, takes a seat, adds three bots, starts, and plays a whole
//   game through the page only; mid-game the page is reloaded and must resume; what
//   the page shows (every player's points, cards, knights, road length and awards,
//   the hand, the bank, the ratios) after every event broadcast it takes in (drawn
//   then and there) and every redraw is compared with the engine's view of the seat
//   as of the same seq (the admin API's `?view=&at_seq=`); while a refresh of the
//   numbers events do not state is outstanding, all but those; every toast due is
//   shown, a robbery's naming the thief and the card taken;
// - a room set up at a phone's size by keyboard only: the language chosen with the
//   switcher is remembered (no `?lang=`, a new tab, no English left on the lobby or
//   the room); the lobby's form with Tab, arrows and Enter; Copy link puts the room's
//   address on the clipboard; a second person joins from it; the lobby lists the
//   room by the names of the people in it; the host removes the waiting person, whose
//   page says so and offers the seat form again; two bots of a level chosen with an
//   arrow key; the start; every tap target of the lobby and the room at least 44 px;
// - a phone-sized spectator watches a bots' game from the lobby list to its end (and
//   the finished room is no longer listed);
// - a spectator sees a bots' game end at the turn limit with no winner (R-10.5);
// - a spectator sees a bot stand in for a person who does not come, until they do;
// - three people on three pages trade: an offer to one (a toast, in words, for that
//   one only), an offer to all (a toast for both) with a counter-offer (a toast for
//   the offerer), two acceptances and the confirmation with one of them; then they
//   play on until one moves the robber next to both others: on a phone-sized page
//   the dialog asks whom (its buttons 44 px), and the robbed person's toast names
//   the thief and the card their hand lost;
// - the dialogs a game brings up only by chance, each brought up for certain
//   (card-dialogs.js): four seats played over the kit from the test (no building,
//   a development card bought whenever possible, none played, so every card of the
//   deck is bought and kept) hand a seat to a 390x844 page when it owes a discard
//   after a 7 or may play Year of Plenty or Monopoly; each dialog is answered by
//   keyboard only (Tab, Enter pressed again on a focused +, Escape closes Year of
//   Plenty), every control in it is at least 44x44 px, nothing overflows sideways,
//   Tab and Shift+Tab stay in the dialog, and the engine's hand (the admin API) is
//   then what the page chose; failing, with what came up, if not within 90 s;
// - two people play a game; one asks for a rematch, the other joins it from the end
//   screen, in the same seat and not as its host;
// - one click from the lobby to a game against bots, a setup placement by keyboard,
//   the production of a roll at a glance, reasons on disabled actions, and the log
//   back after a reload (the server's `history`) with a chat line sent from the page;
// - after a game: the end screen's statistics (its controls 44 px on a phone), a
//   rematch, the replay viewer;
// - players who come back (players.js), at 390x844 in Simplified Chinese: a guest
//   made from the first name typed, no form; the account claimed (refusals in
//   words), renamed, signed out, signed in on another device, the devices listed and
//   one signed out from the other, signed out everywhere; a rated game against bots
//   with the rating change on its end screen, the profile and the leaderboard; the
//   player deleted from the account page (a second, explicit press);
// - quick play (quickplay.js, Chromium only), at 390x844 in Simplified Chinese:
//   waiting, reloaded, cancelled; three people seated at one table, each page
//   opening the game by itself; a party made, joined from its link on another
//   device, queued by its leader for four with bots, both pages in one room;
// - passkeys (passkeys.js, Chromium only: its virtual authenticator), at 390x844 in
//   Traditional Chinese: refused in words at the server's address, added at
//   localhost, signing in without a name or password, removed and then refused;
// - games over days (days.js), at 1366x768 in English and 390x844 in Simplified
//   Chinese: the room form's Live or Over days with the presets, each seat's clock
//   and the countdown of the move in days, hours and minutes, My games first on the
//   lobby with "your move" marked, opened by a tap; the manifest and the service
//   worker of the installable client;
// - notifications (notify.js), at 390x844 in Simplified Chinese and 1366x768 in
//   English: the account page's channels; Web Push refused while notifications are
//   blocked, then subscribed with the server's VAPID key (Chromium; the log says
//   whether the browser's push service granted a real subscription); the service
//   worker showing a push delivered over the DevTools protocol (Chromium); a
//   webhook and an email added from the forms and removed, refusals in words;
// - the admin page (admin-page.js, on the admin listener): a wrong token refused, a
//   room inspected, a seat kicked with a message its player reads, a player found,
//   muted, banned and let back with the record shown, the room closed;
// - the layout at a phone's and a laptop's size (overflow, tap targets, sticky status
//   and actions, what must be visible without scrolling), refusals and reasons;
// - the whole game is played in each language (`?lang=`): en, zh-Hans, zh-Hant; the
//   zh-Hans one in Chromium and the zh-Hant one in Firefox by keyboard only (Tab and
//   Enter, no mouse).
//
// Screenshots go to tests/artifacts/<browser>/ (CATAN_UPDATE_SCREENSHOT=1 also
// copies the README's: docs/screenshot.png and docs/screenshots/{phone,desktop}.png).
//
// Browsers: $CATAN_BROWSERS (comma-separated, default `chromium,firefox`).
// The server: $CATAN_URL and $CATAN_ADMIN_URL with $CATAN_ADMIN_TOKEN if set (the
// Rust wrapper tests/e2e/browser.rs starts one in-process), else target/debug/catan-server (built with cargo if missing) started
// here on a free port with CATAN_BOT_THINK_MS=0.
//
// Run: cd web && npm ci && node --test tests/

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, BROWSERS } from './driver.js';
import { afterTheGame } from './after-game.js';
import { adminPage } from './admin-page.js';
import { cardDialogs } from './card-dialogs.js';
import { gamesOverDays, manifestLoaded } from './days.js';
import { setUpARoomByKeyboard } from './lobby.js';
import { adminWordsReachThePlayer, refusedOrigin } from './self-hoster.js';
import { clicksDuringBroadcasts } from './redraw.js';
import { endScreenOnAPhone, leavingByBack, lobbyOnASlowLine, reducedMotion } from './phone.js';
import { playersWhoComeBack } from './players.js';
import { notifications } from './notify.js';
import { passkeys } from './passkeys.js';
import { partyScenario, quickPlayScenario } from './quickplay.js';
import { glanceAndFlow, layoutAtBothSizes } from './game-screen.js';
import { spectateAStandIn, spectateGameWithoutWinner, spectateOnPhone } from './spectate.js';
import { tradeAmongPeople } from './trade.js';
import { adoptSeatFromAddress, playWholeGame, rematchOfTwoPeople } from './whole-game.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(ROOT, 'tests', 'artifacts');
const NAMES = (process.env.CATAN_BROWSERS || 'chromium,firefox').split(',').map((s) => s.trim()).filter(Boolean);
const LANGS = ['en', 'zh-Hans', 'zh-Hant'];

let server = null;
let base = process.env.CATAN_URL || null;
// The admin API, whose engine view (`?view=N`) the whole games are compared with.
const ADMIN_TOKEN = process.env.CATAN_ADMIN_TOKEN || 'browser-tests-admin-token';
const admin = { url: process.env.CATAN_ADMIN_URL || null, token: ADMIN_TOKEN };

async function startServer() {
  const targetDir = process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target');
  const bin = process.env.CATAN_SERVER_BIN || path.join(targetDir, 'debug', 'catan-server');
  if (!existsSync(bin)) {
    const r = spawnSync('cargo', ['build', '-p', 'catan-server'], { cwd: ROOT, stdio: 'inherit' });
    assert.equal(r.status, 0, 'cargo build -p catan-server failed');
  }
  // Quick play fills a table with bots after 5 s (not a minute), formed every 250 ms.
  // An SMTP server (which nothing here reaches: no notice is due in these tests) so
  // that email channels are taken.
  server = spawn(bin, ['--bind', '127.0.0.1:0', '--admin-bind', '127.0.0.1:0', '--database-url', 'sqlite::memory:',
    '--queue-bots-after-secs', '5', '--queue-tick-ms', '250', '--smtp-url', 'smtp://127.0.0.1:9?tls=none'], {
    cwd: ROOT,
    // As the Rust harness's test server: no per-address rates (every page of these
    // tests comes from 127.0.0.1, creating many rooms in a few minutes).
    env: {
      ...process.env, CATAN_BOT_THINK_MS: '0', CATAN_ADMIN_TOKEN: ADMIN_TOKEN, NO_COLOR: '1', RUST_LOG: 'info',
      CATAN_LOBBY_RATE_PER_MIN: '0', CATAN_WEBSOCKET_RATE_PER_MIN: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${buf}`)), 30000);
    const onData = (d) => {
      buf += d.toString();
      // eslint-disable-next-line no-control-regex
      const clean = buf.replace(/\x1b\[[0-9;]*m/g, '');
      const lobby = clean.match(/listening \(lobby[^\n]*addr=([0-9.:]+)/);
      const adm = clean.match(/listening \(admin[^\n]*addr=([0-9.:]+)/);
      if (lobby && adm && !base) {
        clearTimeout(timer);
        base = `http://${lobby[1]}`;
        admin.url = `http://${adm[1]}`;
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
  if (!base) await startServer();
});

after(() => {
  if (server) server.kill('SIGTERM');
});

for (const name of NAMES) {
  assert.ok(BROWSERS[name], `unknown browser ${name} in CATAN_BROWSERS`);
  describe(name, () => {
    const out = path.join(ARTIFACTS, name);
    let browser = null;
    before(async () => {
      mkdirSync(out, { recursive: true });
      browser = await launch(name);
      console.log(`# ${name}: ${await browser.version()}`);
    });
    after(async () => {
      if (browser) await browser.close();
      // The docs' screenshots, from Chromium's run (CATAN_UPDATE_SCREENSHOT=1): the
      // phone's game screen and its trade sheet, two people trading, Forward back
      // into a game after Back, the end screen of four players on a phone, the game
      // with reduced motion.
      if (process.env.CATAN_UPDATE_SCREENSHOT && name === 'chromium') {
        const docs = path.join(ROOT, 'docs', 'screenshots');
        mkdirSync(docs, { recursive: true });
        for (const [from, to] of [['phone-trade-zh-Hans.png', 'phone-trade.png'], ['trade.png', 'trade-people.png'], ['back-forward.png', 'back-forward.png'],
          ['end-screen-4-players-390.png', 'end-screen-390.png'], ['motion-reduced.png', 'reduced-motion.png'], ['lobby-slow-4g.png', 'lobby.png']]) {
          if (existsSync(path.join(out, from))) copyFileSync(path.join(out, from), path.join(docs, to));
        }
      }
    });

    // A whole game in each language in Chromium, in Traditional Chinese in Firefox.
    const langs = name === 'chromium' ? LANGS : ['zh-Hant'];
    for (const lang of langs) {
      test(`a person plays a complete game against three bots in ${name} in ${lang}`, { timeout: 600000 }, async () => {
        const t0 = Date.now();
        const update = process.env.CATAN_UPDATE_SCREENSHOT && name === 'chromium' && lang === 'en'
          ? path.join(ROOT, 'docs', 'screenshot.png') : null;
        const rematch = name === 'chromium' && lang === 'en';
        // By keyboard only: the simplified Chinese game in Chromium, Firefox's game.
        const keyboard = (name === 'chromium' && lang === 'zh-Hans') || name === 'firefox';
        const r = await playWholeGame(browser, base, out, { vpTarget: 4, lang, updateScreenshot: update, rematch, admin, keyboard });
        console.log(`# ${name} ${lang}${keyboard ? ` by keyboard (${r.keys} keys)` : ''}: whole game in ${((Date.now() - t0) / 1000).toFixed(1)} s (${r.turns} own turns, ${r.spots} spots clicked, ${r.offers} offers, ${r.compared} states drawn at ${r.seqs} seqs (${r.whole} whole, the others but the numbers a refresh brings; after ${r.read} of ${r.events} event broadcasts), each equal to the engine's view then, toasts ${JSON.stringify(r.toasts)})`);
      });
    }

    test(`the layout at 390x844 and 1366x768 in ${name}`, { timeout: 180000 }, async () => {
      const t0 = Date.now();
      const docs = process.env.CATAN_UPDATE_SCREENSHOT && name === 'chromium' ? path.join(ROOT, 'docs', 'screenshots') : null;
      await layoutAtBothSizes(browser, base, out, { lang: name === 'chromium' ? 'zh-Hans' : 'en', docs });
      console.log(`# ${name}: layout checks in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });

    test(`a page at an address the server refuses names it and the setting that allows it in ${name}`, { timeout: 60000 }, async () => {
      const t0 = Date.now();
      await refusedOrigin(browser, base, out);
      console.log(`# ${name}: refused origin in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });

    test(`an administrator's words on a kick and on closing the room reach the player's page in ${name}`, { timeout: 60000 }, async () => {
      const t0 = Date.now();
      await adminWordsReachThePlayer(browser, base, out, admin);
      console.log(`# ${name}: admin's words in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });

    test(`a press held while broadcasts arrive is a click; the dice animate once per roll; a message redraws only what it changed in ${name}`, { timeout: 150000 }, async () => {
      const t0 = Date.now();
      const r = await clicksDuringBroadcasts(browser, base, out, admin);
      console.log(`# ${name}: ${r.presses} presses held over broadcasts, all clicks (${r.redrawnUnder} with the button's part redrawn under the finger); ${r.messages} broadcasts, ${r.renders} redraws (parts drawn: ${JSON.stringify(r.parts)}); ${r.dice.length} dice animated once each for ${r.rolls} rolls; in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });

    test(`leaving a game by Back closes its connection: away at once, a stand-in, back on Forward in ${name}`, { timeout: 60000 }, async () => {
      const r = await leavingByBack(browser, base, out, admin);
      console.log(`# ${name}: away ${r.away} ms after Back`);
    });

    test(`the end screen of four players fits 390 px and every count has the Victory Point cards in ${name}`, { timeout: 120000 }, async () => {
      await endScreenOnAPhone(browser, base, out);
    });

    test(`with prefers-reduced-motion nothing moves in ${name}`, { timeout: 150000 }, async () => {
      const r = await reducedMotion(browser, base, out, admin);
      console.log(`# ${name}: motion ${JSON.stringify(r.full)}, reduced ${JSON.stringify(r.reduced)}`);
    });

    if (name === 'chromium') {
      test('the lobby on an emulated slow 4G line in under a second after the first visit in chromium', { timeout: 60000 }, async () => {
        const r = await lobbyOnASlowLine(browser, base, out);
        console.log(`# chromium: lobby on slow 4G: first visit ${r.first} ms, then ${r.again} ms`);
      });
    }

    test(`a room set up at 390x844 by keyboard: the language remembered, the invite link, the lobby's names, a person removed by the host, bots and the start in ${name}`, { timeout: 120000 }, async () => {
      const t0 = Date.now();
      await setUpARoomByKeyboard(browser, base, out);
      console.log(`# ${name}: room set-up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });

    test(`one click to a game against bots, keyboard placement, production at a glance, reload keeps the log in ${name}`, { timeout: 180000 }, async () => {
      const t0 = Date.now();
      await glanceAndFlow(browser, base, out);
      console.log(`# ${name}: glance and flow in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });

    test(`a seat taken over HTTP is played from a link with its token to the end in ${name}`, { timeout: 180000 }, async () => {
      await adoptSeatFromAddress(browser, base, out);
    });

    test(`a phone-sized spectator follows a game from the lobby in ${name}`, { timeout: 120000 }, async () => {
      await spectateOnPhone(browser, base, out);
    });

    test(`a game the turn limit ends shows no winner in ${name}`, { timeout: 120000 }, async () => {
      await spectateGameWithoutWinner(browser, base, out);
    });

    test(`a bot stands in for a person who does not come, marked on the seat, until they do in ${name}`, { timeout: 120000 }, async () => {
      await spectateAStandIn(browser, base, out, admin);
    });

    test(`after a game: the statistics, a rematch and the replay viewer in ${name}`, { timeout: 120000 }, async () => {
      const t0 = Date.now();
      const size = name === 'chromium' ? { width: 1366, height: 768, lang: 'en' } : { width: 390, height: 844, lang: 'zh-Hans' };
      await afterTheGame(browser, base, out, size);
      console.log(`# ${name}: after the game in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });

    test(`the admin page: a wrong token, a room inspected, a seat kicked with a message, a player found, muted, banned and let back, a room closed in ${name}`, { timeout: 120000 }, async () => {
      const t0 = Date.now();
      await adminPage(browser, base, out, admin, name === 'chromium' ? 'zh-Hans' : 'zh-Hant');
      console.log(`# ${name}: admin page in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });

    test(`players who come back: a guest from the first name, an account claimed and signed in on another device, its devices, a rated game, the profile and the leaderboard at 390x844 in ${name}`, { timeout: 300000 }, async () => {
      const t0 = Date.now();
      const r = await playersWhoComeBack(browser, base, out, admin);
      console.log(`# ${name}: players who come back in ${((Date.now() - t0) / 1000).toFixed(1)} s (rated game: ${r.rated.before} -> ${r.rated.after}${r.rated.provisional ? ', provisional' : ''})`);
    });

    // Quick play on phones, in Chromium (the issue's size and browser).
    if (name === 'chromium') {
      test(`quick play at 390x844: waiting, reloaded and cancelled; three people seated at one table, each page opening the game in ${name}`, { timeout: 120000 }, async () => {
        const t0 = Date.now();
        await quickPlayScenario(browser, base, out, admin);
        console.log(`# ${name}: quick play in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      });
      test(`quick play with friends at 390x844: a party made, its code refused when wrong, joined from its link, both names shown, queued by its leader with bots, both pages in one room in ${name}`, { timeout: 180000 }, async () => {
        const t0 = Date.now();
        const r = await partyScenario(browser, base, out, admin);
        console.log(`# ${name}: party ${r.code} at room ${r.room} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      });
    }

    // Chromium only: its DevTools protocol has the virtual authenticator.
    if (name === 'chromium') {
      test(`passkeys: refused at an address, added at localhost, signing in without a name, removed and refused at 390x844 in ${name}`, { timeout: 120000 }, async () => {
        const t0 = Date.now();
        await passkeys(browser, base, out);
        console.log(`# ${name}: passkeys in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      });
    }

    test(`games over days: the room form, each seat's clock and the move's countdown, My games with "your move", the manifest and the service worker at 1366x768 and 390x844 in ${name}`, { timeout: 180000 }, async () => {
      const t0 = Date.now();
      const r = await gamesOverDays(browser, base, out, admin);
      console.log(`# ${name}: games over days in ${((Date.now() - t0) / 1000).toFixed(1)} s (countdowns "${r.desk}", "${r.phone}"${r.skipped ? `; skipped: ${r.skipped}` : ''})`);
    });

    test(`notifications at 390x844 and 1366x768: channels listed, Web Push subscribed with the server's key or its failure explained, a push shown by the service worker, webhook and email added and removed in ${name}`, { timeout: 120000 }, async () => {
      const t0 = Date.now();
      const r = await notifications(browser, base, out);
      const push = r.push?.real ? `a real subscription (${r.push.endpoint})` : r.push?.skipped ?? `no real subscription (${r.push?.error}${r.private ? `; in a private window: ${r.private.error}` : ''})`;
      console.log(`# ${name}: notifications in ${((Date.now() - t0) / 1000).toFixed(1)} s (Web Push: ${push}; push shown by the service worker: ${r.shown ? 'yes' : 'not tested'}; email: ${r.smtp ? 'taken' : 'refused, no SMTP'})`);
    });

    if (name === 'chromium') {
      // The page links the manifest, which its Content-Security-Policy allows
      // (`manifest-src 'self'`, protocol.md 2.2): the browser loads it.
      test('the browser loads the manifest the page links in chromium', {
        timeout: 30000,
      }, async () => {
        await manifestLoaded(browser, base);
      });
    }

    test(`two people play, one asks for a rematch, the other joins it from the end screen in ${name}`, { timeout: 180000 }, async () => {
      const t0 = Date.now();
      await rematchOfTwoPeople(browser, base, out);
      console.log(`# ${name}: rematch of two people in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });

    test(`the discard, Year of Plenty and Monopoly dialogs at 390x844 by keyboard in ${name}`, { timeout: 180000 }, async () => {
      const t0 = Date.now();
      const r = await cardDialogs(browser, base, out, { admin, lang: name === 'chromium' ? 'en' : 'zh-Hans' });
      console.log(`# ${name}: card dialogs in ${((Date.now() - t0) / 1000).toFixed(1)} s (${r.turns} turns, ${r.bought} development cards bought): ${r.said.join('; ')}`);
    });

    test(`three people trade with offers, a counter-offer and two accepters in ${name}`, { timeout: 300000 }, async () => {
      const t0 = Date.now();
      await tradeAmongPeople(browser, base, out);
      console.log(`# ${name}: trade scenario in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });
  });
}
