// The page state (web/state.js) in Node without a browser: it is read-only outside
// its module (a write throws, however deep), and its named updates change it and ask
// for a redraw, at once for what the person does.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { S, onUpdate, tradeCard, counterOffer, clearTrade, setZoom, noteRoll, toggleMode } from '../state.js';

test('the page state is written only through its named updates', () => {
  assert.throws(() => { /** @type {any} */ (S).mode = 'road'; }, TypeError);
  assert.throws(() => { /** @type {any} */ (S.trade.give).lumber = 2; }, TypeError);
  assert.throws(() => { delete /** @type {any} */ (S.form).name; }, TypeError);
  const asked = [];
  onUpdate((now) => asked.push(now));
  toggleMode('road');
  assert.equal(S.mode, 'road');
  toggleMode('road');
  assert.equal(S.mode, null);
  assert.deepEqual(asked, [true, true], 'what the person does is drawn at once');
});

test('an offer is composed by taps: a kind on one side only, within the hand', () => {
  clearTrade();
  tradeCard('give', 'lumber', 1, 2);
  tradeCard('give', 'lumber', 1, 2);
  tradeCard('give', 'lumber', 1, 2);
  assert.deepEqual({ ...S.trade.give }, { lumber: 2 }, 'at most what the hand holds');
  tradeCard('get', 'lumber', 1);
  assert.deepEqual({ ...S.trade.give }, {}, 'asking for lumber takes it off the side given');
  assert.deepEqual({ ...S.trade.get }, { lumber: 1 });
  tradeCard('get', 'lumber', -1);
  assert.deepEqual({ ...S.trade.get }, {});
  counterOffer(7, { ore: 1 }, { wool: 2 });
  assert.deepEqual([S.trade.counterTo, { ...S.trade.give }, { ...S.trade.get }], [7, { ore: 1 }, { wool: 2 }]);
});

test('the board zooms from 1 to 3 times and pans only within the board', () => {
  setZoom(5, 1000, -1000);
  assert.equal(S.zoom.scale, 3);
  assert.equal(S.zoom.x, 200);
  assert.ok(Math.abs(S.zoom.y + 275 * (2 / 3)) < 1e-9);
  setZoom(0.5);
  assert.deepEqual({ ...S.zoom }, { scale: 1, x: 0, y: 0 });
});

test('each roll seen live has its own number (the dice animate once per roll)', () => {
  const before = S.rolls;
  noteRoll(new Set([3]));
  noteRoll(new Set());
  assert.equal(S.rolls, before + 2);
  assert.deepEqual([...S.glance.tiles], []);
});
