// Three people trading among themselves, each on their own page, and a robbery of
// one of them seen by the robbed person (the helpers are in scenario.js).

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { RES, hand, look, measure, newMemo, openOptions, progressWatch, recordToasts, reloadAndCompare, step, takeToasts } from './scenario.js';

/** The id of the open offer shown in `tab` whose text matches `re`, once there is one. */
async function offerId(tab, re) {
  await tab.waitForFunction((src) => [...document.querySelectorAll('#offers .offer')]
    .some((o) => new RegExp(src).test(o.textContent)), re.source);
  return tab.evaluate((src) => Number([...document.querySelectorAll('#offers .offer')]
    .find((o) => new RegExp(src).test(o.textContent)).dataset.offer), re.source);
}

const gone = (tab, id) => tab.waitForFunction((i) => !document.querySelector(`#offers .offer[data-offer="${i}"]`), id);

/**
 * Three people in three separate browser contexts (as on three devices) play a
 * three-seat room until the first of them can trade in her turn, then through
 * their pages: an offer to one opponent, rejected; an offer to everyone, countered
 * (the counter rejected), accepted by both others; the offerer picks one of the two
 * accepters and the cards move.
 */
export async function tradeAmongPeople(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const names = ['alice', 'bob', 'carol'];
  const tabs = [];
  for (let i = 0; i < 3; i++) tabs.push(await browser.newTab({ width: 1280, height: 900, isolated: true }));
  const [alice, bob, carol] = tabs;

  await alice.goto(`${base}/?lang=en`);
  await openOptions(alice);
  await alice.select('#opt-players', '3');
  await alice.select('#opt-map', 'beginner');
  await alice.fill('#opt-trade', '600');
  await alice.fill('#opt-discard', '0');
  await alice.click('#create-room');
  await alice.waitForURL(/\?room=/);
  await alice.waitFor('#share-link');
  const link = await alice.value('#share-link');
  for (const [i, tab] of tabs.entries()) {
    if (i) await tab.goto(`${link}&lang=en`);
    await tab.fill('#join-name', names[i]);
    await tab.click('#join');
    await tab.waitFor(`#you-seat[data-seat="${i}"]`);
  }
  await alice.click('#start');
  for (const tab of tabs) await tab.waitFor('#board');
  for (const tab of tabs) await recordToasts(tab);

  // Everyone plays the simple policy (no offers) until alice, in her main phase,
  // holds a card she can give for one that both others hold. Each puts their first
  // settlement on a corner of one tile (a 6 or an 8), so that the robber can later
  // be moved next to two people at once (step 4).
  const memos = tabs.map(() => newMemo());
  const watch = progressWatch(alice, out);
  let plan = null;
  const started = Date.now();
  while (!plan) {
    assert.ok(Date.now() - started < 240000, 'alice found a trade for both others within 4 minutes');
    const seen = await Promise.all(tabs.map(look));
    const p = seen[0];
    if (p && p.on['end-turn'] && p.canOffer && !p.spots && !p.dialog) {
      const [a, b, c] = await Promise.all(tabs.map(hand));
      for (const give of RES.filter((r) => a[r] > 0)) {
        const want = RES.find((r) => r !== give && b[r] > 0 && c[r] > 0);
        if (want) { plan = { give, want }; break; }
      }
      if (plan) break;
    }
    let did = 'wait';
    for (const [i, tab] of tabs.entries()) {
      const corner = !memos[i].shared && seen[i]?.spots ? await sharedCorner(tab) : null;
      if (corner !== null) {
        await tab.click(`#board .hl[data-vertex="${corner}"]`);
        memos[i].shared = true;
        memos[i].spots += 1;
        did = `${names[i]}: settlement by the shared tile`;
        continue;
      }
      const d = await step(tab, memos[i], seen[i]);
      if (d !== 'wait') did = `${names[i]}: ${d}`;
    }
    await watch(p, did);
  }
  assert.ok(memos.every((m) => m.shared), 'each put a settlement by the shared tile');
  const { give, want } = plan;
  const setOffer = async (tab) => {
    await tab.click(`#trade button[data-step="give-${give}-plus"]`);
    await tab.click(`#trade button[data-step="get-${want}-plus"]`);
  };

  // The offer toasts each page showed, and the one an offer should show.
  const offerToasts = (tab) => tab.evaluate(() => window.__toastRecord.texts.filter(([k]) => k === 'offer').map(([, x]) => x));
  const offerWords = (tab, from, giveCards, getCards) => tab.evaluate(async ([n, g, w]) => {
    const { t, cardsText } = await import(new URL('i18n.js', document.querySelector('script[type=module]').src).href);
    return t('toast.offer', { name: n, give: cardsText(g), get: cardsText(w) });
  }, [from, giveCards, getCards]);
  const before0 = await Promise.all(tabs.map(offerToasts));
  assert.deepEqual(before0, [[], [], []], 'no offers yet');
  const aliceOffers = await offerWords(bob, 'alice', { [give]: 1 }, { [want]: 1 });

  // 1. An offer to bob alone: carol sees it but cannot answer; bob rejects; it closes.
  // Bob's page tells him with a toast, in words; carol's does not.
  await setOffer(alice);
  await alice.click('[data-offer-to="1"]');
  await alice.click('#send-offer');
  const one = await offerId(alice, /→ bob/);
  await bob.waitFor(`#reject-${one}`);
  await carol.waitFor(`#offers .offer[data-offer="${one}"]`);
  assert.equal(await carol.count(`#accept-${one}, #reject-${one}, #counter-${one}`), 0, 'not addressed to carol');
  await bob.waitForFunction((x) => window.__toastRecord.texts.some(([k, y]) => k === 'offer' && y === x), aliceOffers, 5000);
  assert.deepEqual(await offerToasts(bob), [aliceOffers], `bob's toast: ${aliceOffers}`);
  assert.deepEqual(await offerToasts(carol), [], 'no toast for carol: the offer is not to her');
  assert.match(await bob.text('#prompt'), /offer awaits your answer/);
  await bob.click(`#reject-${one}`);
  for (const tab of tabs) await gone(tab, one);

  // 2. An offer to everyone; bob counters asking for one more card; alice rejects the counter.
  await setOffer(alice);
  await alice.click('[data-offer-to=""]');
  await alice.click('#send-offer');
  const all = await offerId(alice, /→ everyone/);
  for (const tab of [bob, carol]) await tab.waitFor(`#accept-${all}`);
  // An offer to everyone is a toast for both others.
  await carol.waitForFunction((x) => window.__toastRecord.texts.some(([k, y]) => k === 'offer' && y === x), aliceOffers, 5000);
  assert.deepEqual(await offerToasts(bob), [aliceOffers, aliceOffers], 'bob: a toast for each offer to him');
  assert.deepEqual(await offerToasts(carol), [aliceOffers], 'carol: a toast for the offer to everyone');
  await bob.click(`#counter-${all}`);
  await bob.waitForFunction((s) => document.querySelector('#trade h3')?.textContent === s, `Counter-offer to #${all}`);
  await bob.click(`#trade button[data-step="get-${give}-plus"]`);
  await bob.click('#send-counter');
  const counter = await offerId(alice, new RegExp(`counter to #${all}\\)`));
  assert.match(await alice.text(`#offers .offer[data-offer="${counter}"]`), new RegExp(`gives 1 ${want}, wants 2 ${give}`));
  // The counter-offer is to alice: a toast on her page only.
  const bobCounters = await offerWords(alice, 'bob', { [want]: 1 }, { [give]: 2 });
  await alice.waitForFunction((x) => window.__toastRecord.texts.some(([k, y]) => k === 'offer' && y === x), bobCounters, 5000);
  assert.deepEqual(await offerToasts(alice), [bobCounters], `alice's toast: ${bobCounters}`);
  assert.deepEqual(await offerToasts(carol), [aliceOffers], 'none for carol');
  await carol.waitFor(`#offers .offer[data-offer="${counter}"]`);
  assert.equal(await carol.count(`#accept-${counter}`), 0, 'a counter is for the offerer only');
  await bob.waitFor(`#withdraw-${counter}`);
  await alice.click(`#reject-${counter}`);
  for (const tab of tabs) await gone(tab, counter);
  assert.equal(await bob.count(`#offers .offer[data-offer="${all}"]`), 1, 'the original offer stays open');

  // 3. Both accept; alice sees two confirmations and trades with carol.
  await bob.click(`#accept-${all}`);
  await carol.click(`#accept-${all}`);
  await alice.waitFor(`#confirm-${all}-1`);
  await alice.waitFor(`#confirm-${all}-2`);
  assert.equal(await alice.text(`#confirm-${all}-2`), 'Trade with carol');
  // Each answer is a mark beside the player who gave it.
  assert.deepEqual(await alice.evaluate((o) => [...document.querySelectorAll(`#offers .offer[data-offer="${o}"] .answer`)].map((e) => [e.dataset.seat, e.dataset.answer, e.querySelector('.name').textContent]), all),
    [['1', 'accepted', 'bob'], ['2', 'accepted', 'carol']]);
  await alice.screenshot(path.join(out, 'trade.png'));
  const before = await Promise.all(tabs.map(hand));
  await alice.click(`#confirm-${all}-2`);
  for (const tab of tabs) await gone(tab, all);
  const after = await Promise.all(tabs.map(hand));
  const moved = (h, r, n) => ({ ...h, [r]: h[r] + n });
  assert.deepEqual(after[0], moved(moved(before[0], give, -1), want, 1), 'alice gave one and got one');
  assert.deepEqual(after[2], moved(moved(before[2], want, -1), give, 1), 'carol the other way round');
  assert.deepEqual(after[1], before[1], 'bob, the other accepter, kept his cards');
  await bob.waitForFunction((s) => document.querySelector('#log').textContent.includes(s), `traded 1 ${give} to carol for 1 ${want}`);
  // Every toast due was shown (and the robbed ones of the game so far say what was taken).
  for (const [i, tab] of tabs.entries()) {
    const r = await takeToasts(tab, i);
    assert.deepEqual(r.shown, r.due, `${names[i]}: a toast for each turn, robbery, offer to them and award`);
  }

  // The views kept from those events equal fresh snapshots.
  for (const tab of tabs) await reloadAndCompare(tab);

  // 4. A robbery of a person, seen by the robbed person: they play on until one of
  // them moves the robber to a tile next to both others; on a phone-sized page the
  // dialog asks whom to rob (its buttons 44 px), the first is robbed, and that
  // person's page says by whom and which card, the one their hand lost.
  for (const tab of tabs) await recordToasts(tab);
  const robbery = await robAPerson(tabs, names, memos, out);
  for (const [i, tab] of tabs.entries()) {
    const r = await takeToasts(tab, i);
    assert.deepEqual(r.shown, r.due, `${names[i]}: a toast for each turn, robbery, offer to them and award`);
  }
  console.log(`# ${robbery}`);
  for (const [i, tab] of tabs.entries()) assert.deepEqual(tab.errors, [], `no errors in ${names[i]}'s page`);
  for (const tab of tabs) await tab.close();
}

/**
 * In the setup, a highlighted settlement spot on a corner of the board's first tile
 * numbered 6 or 8, the one that leaves most of its other corners free (so that the
 * third person still has one); null when there is none (or it is not the setup).
 */
function sharedCorner(tab) {
  return tab.evaluate(async () => {
    const v = window.__catan?.conn?.state.view;
    if (!v || v.phase.name !== 'setup') return null;
    const { topology } = await import(new URL('board.js', document.querySelector('script[type=module]').src).href);
    const top = topology();
    const tile = v.map.numbers.findIndex((n) => n === 6 || n === 8);
    const spots = [...document.querySelectorAll('#board .hl[data-vertex]')].map((e) => Number(e.dataset.vertex))
      .filter((x) => top.vertices[x].tiles.includes(tile));
    const near = (x) => top.edges.filter((e) => e.a === x || e.b === x).map((e) => (e.a === x ? e.b : e.a));
    const left = (x) => spots.filter((y) => y !== x && !near(x).includes(y)).length;
    return spots.length ? spots.sort((a, b) => left(b) - left(a))[0] : null;
  }).catch(() => null);
}

/**
 * Where the page's seat may move the robber now, by tile, with the seats it could
 * rob there (null when it is not moving the robber).
 */
function robberTiles(tab) {
  return tab.evaluate(() => {
    const st = window.__catan?.conn?.state;
    const moves = st && !st.pending ? st.legal.filter((a) => a.type === 'move_robber') : [];
    if (!moves.length || !document.querySelector('#board .hl[data-tile]')) return null;
    const tiles = new Map();
    for (const a of moves) {
      const v = tiles.get(a.tile) || [];
      if (a.victim !== null && a.victim !== undefined && !v.includes(a.victim)) v.push(a.victim);
      tiles.set(a.tile, v);
    }
    return [...tiles].map(([tile, victims]) => ({ tile, victims }));
  }).catch(() => null);
}

/**
 * People on `tabs` (seats 0..n) play the simple policy until one of them may move
 * the robber to a tile where two others could be robbed; that one does so through a
 * phone-sized page (390x844) and robs the first in the dialog. Checks the dialog's
 * tap targets and the robbed person's toast (thief and card in words, the card
 * their hand lost). Returns a line saying what happened.
 */
async function robAPerson(tabs, names, memos, out) {
  const watch = progressWatch(tabs[0], out);
  const started = Date.now();
  for (;;) {
    assert.ok(Date.now() - started < 240000, 'a robber move next to two people came within 4 minutes');
    const seen = await Promise.all(tabs.map(look));
    assert.ok(!seen.some((p) => p?.over), 'the game went on');
    let did = 'wait';
    for (const [i, tab] of tabs.entries()) {
      const tiles = seen[i]?.spots ? await robberTiles(tab) : null;
      const two = tiles?.find((x) => x.victims.length >= 2);
      if (two) {
        const victim = two.victims[0];
        const before = await hand(tabs[victim]);
        await tab.page.setViewport({ width: 390, height: 844 });
        await tab.click(`#board .hl[data-tile="${two.tile}"]`);
        await tab.waitFor('#victim-dialog');
        const m = await measure(tab);
        assert.ok(m.scrollWidth <= 390, `the victim dialog does not overflow (${m.scrollWidth} px)`);
        assert.deepEqual(m.small, [], 'every button of the victim dialog is at least 44 px');
        assert.equal(await tab.count('#victim-dialog button[id^="victim-"]'), two.victims.length, 'one button a victim');
        await tab.screenshot(path.join(out, 'victim-dialog-390.png'));
        await tab.click(`#victim-${victim}`);
        await tab.page.setViewport({ width: 1280, height: 900 });
        const total = (hd) => Object.values(hd).reduce((a, b) => a + b, 0);
        await tabs[victim].waitForFunction((n) => [...document.querySelectorAll('#hand .card[data-resource]')]
          .reduce((a, e) => a + Number(e.dataset.count), 0) === n, total(before) - 1);
        const after = await hand(tabs[victim]);
        const lost = RES.filter((r) => after[r] === before[r] - 1);
        assert.equal(lost.length, 1, `the victim lost one card: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
        const words = await tabs[victim].evaluate(async ([n, r]) => {
          const { t } = await import(new URL('i18n.js', document.querySelector('script[type=module]').src).href);
          return t('toast.robbed', { name: n, res: t(`res.${r}`) });
        }, [names[i], lost[0]]);
        await tabs[victim].waitForFunction((x) => window.__toastRecord.texts.some(([k, y]) => k === 'robbed' && y === x), words, 5000)
          .catch(async (e) => { throw new Error(`robbed toasts: ${JSON.stringify(await tabs[victim].evaluate(() => window.__toastRecord.texts))}, expected ${words}`, { cause: e }); });
        assert.equal(words, `${names[i]} robbed you: ${lost[0]}`, 'in words: who and which card');
        return `${names[i]} robbed ${names[victim]} of ${lost[0]} after ${((Date.now() - started) / 1000).toFixed(1)} s: "${words}"`;
      }
      const d = await step(tab, memos[i], seen[i]);
      if (d !== 'wait') did = `${names[i]}: ${d}`;
    }
    await watch(seen[0], did);
  }
}
