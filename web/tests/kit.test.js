// Unit tests of the client kit (web/kit.js), in Node without a browser or server:
// a recorded game (tests/fixtures/game.jsonl, made by record-game.js: everything one
// seat received) is fed to a Connection over a fake socket; at every snapshot in the
// stream, the view the kit kept from events must equal the server's, and a DERIVED
// number may differ only while the kit has asked for the `sync` that brings it.

import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATCH_UP_MS, Connection, PACE, foldEvent } from '../kit.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RECORDED = readFileSync(path.join(HERE, 'fixtures', 'game.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

class FakeSocket {
  static last = null;
  constructor(url) { this.url = url; this.sent = []; this.readyState = 1; FakeSocket.last = this; }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() { this.readyState = 3; }
}

function connection() {
  const conn = new Connection({ base: 'ws://test', roomId: 'r', token: 't', WebSocket: FakeSocket });
  conn.connect();
  return conn;
}

// The view without its DERIVED numbers, zero counts dropped.
function stated(v) {
  const c = structuredClone(v);
  for (const p of c.players) { delete p.road_length; delete p.public_vp; }
  if (c.me) { delete c.me.total_vp; delete c.me.maritime_ratios; }
  if (c.phase.name === 'setup') delete c.current;
  return c;
}

test('a recorded game folded from events equals every snapshot of it', () => {
  const conn = connection();
  let compared = 0;
  let derivedCompared = 0;
  let syncs = 0;
  for (const msg of RECORDED) {
    if (msg.type === 'snapshot' && conn.state.view) {
      const at = `snapshot of seq ${msg.seq}`;
      assert.deepEqual(stated(conn.state.view), stated(msg.view), `${at}: the stated facts`);
      compared += 1;
      if (conn.refreshSeq === null) {
        assert.deepEqual(conn.state.view, msg.view, `${at}: no refresh pending, so the derived numbers too`);
        derivedCompared += 1;
      }
    }
    const before = FakeSocket.last.sent.length;
    conn.receive(msg);
    const sent = FakeSocket.last.sent.slice(before);
    syncs += sent.filter((m) => m.type === 'sync').length;
    // A refresh pending means a `sync` is out (or the snapshot just answered it).
    if (conn.refreshSeq !== null) assert.ok(conn.syncOut, `after seq ${msg.seq ?? '-'}: a sync is on its way`);
  }
  assert.equal(conn.state.view.winner, RECORDED.find((m) => m.type === 'game_over').winner);
  assert.ok(compared >= 40, `compared at ${compared} snapshots`);
  assert.ok(derivedCompared >= 10, `derived numbers compared at ${derivedCompared}`);
  assert.ok(syncs >= 20, `the kit asked for ${syncs} refreshes`);
});

test('folding copies the stated facts and leaves the derived numbers alone', () => {
  const view = structuredClone(RECORDED.find((m) => m.type === 'snapshot' && m.view?.phase.name === 'main').view);
  const seat = view.me.seat;
  const vp = view.players[seat].public_vp;
  assert.equal(foldEvent(view, { type: 'produced', seat, cards: { ore: 2 } }), false);
  assert.equal(view.me.hand.ore >= 2, true);
  assert.equal(foldEvent(view, { type: 'longest_road', holder: seat, length: 5 }), true, 'an award asks for a refresh');
  assert.equal(view.longest_road, seat);
  assert.equal(view.players[seat].public_vp, vp, 'points come from the server');
  assert.equal(foldEvent(view, { type: 'no_such_event', seat }), false, 'unknown events are skipped');
});

test('sequence numbers: duplicates are ignored, a gap reconnects with last_seq, resumed clears the action in flight', () => {
  const conn = connection();
  const snap = RECORDED.find((m) => m.type === 'snapshot' && m.view);
  conn.receive(snap);
  assert.equal(conn.state.lastSeq, snap.seq);
  assert.ok(conn.act({ type: 'end_turn' }));
  const action = FakeSocket.last.sent.at(-1);
  assert.deepEqual(action, { type: 'action', request_id: 'r1', action: { type: 'end_turn' }, expect_seq: snap.seq });
  assert.equal(conn.act({ type: 'roll_dice' }), null, 'one action in flight');
  conn.receive({ type: 'chat', seq: snap.seq, name: 'x', text: 'dup' });
  assert.equal(conn.state.lastSeq, snap.seq, 'a duplicate is dropped');
  const first = FakeSocket.last;
  conn.receive({ type: 'chat', seq: snap.seq + 2, name: 'x', text: 'gap' });
  assert.notEqual(FakeSocket.last, first, 'a gap reconnects');
  assert.match(FakeSocket.last.url, new RegExp(`last_seq=${snap.seq}&protocol=1$`));
  conn.receive({ type: 'resumed', seq: snap.seq + 3, legal: [{ type: 'roll_dice' }] });
  assert.equal(conn.state.pending, null);
  assert.deepEqual(conn.state.legal, [{ type: 'roll_dice' }]);
  conn.receive({ type: 'rejected', request_id: 'r9', code: 'not_your_turn', message: 'no' });
  assert.equal(conn.state.refusal.code, 'not_your_turn', 'a refusal is kept with its code');
  conn.receive({ type: 'events', seq: snap.seq + 4, events: [] });
  assert.equal(conn.state.refusal, null, 'and cleared at the next change of state');
});

test('a stale_action naming a seq that never comes resumes with last_seq; one whose messages come does not', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const conn = connection();
    const snap = RECORDED.find((m) => m.type === 'snapshot' && m.view);
    conn.receive(snap);
    const socket = FakeSocket.last;
    // The messages up to the refusal's seq arrive (after it): no reconnect.
    assert.ok(conn.act({ type: 'end_turn' }));
    conn.receive({ type: 'rejected', request_id: 'r1', code: 'stale_action', message: 'moved on', seq: snap.seq + 1 });
    assert.equal(conn.state.pending, null);
    assert.equal(conn.state.refusal, null, 'no fault shown');
    conn.receive({ type: 'events', seq: snap.seq + 1, events: [] });
    mock.timers.tick(CATCH_UP_MS + 1);
    assert.equal(FakeSocket.last, socket, 'caught up: no reconnect');
    // They never come (lost on the way): after CATCH_UP_MS it resumes from its last seq.
    assert.ok(conn.act({ type: 'end_turn' }));
    conn.receive({ type: 'rejected', request_id: 'r2', code: 'stale_action', message: 'moved on', seq: snap.seq + 5 });
    mock.timers.tick(CATCH_UP_MS - 1);
    assert.equal(FakeSocket.last, socket, 'not before CATCH_UP_MS');
    mock.timers.tick(2);
    assert.notEqual(FakeSocket.last, socket, 'resumed');
    assert.match(FakeSocket.last.url, new RegExp(`last_seq=${snap.seq + 1}&protocol=1$`));
  } finally {
    mock.timers.reset();
  }
});

test('a stand-in is kept on its seat from the snapshot and from stand_in messages', () => {
  const conn = connection();
  const snap = structuredClone(RECORDED.find((m) => m.type === 'snapshot' && m.view));
  snap.room.seats[2].stand_in = true;
  conn.receive(snap);
  assert.equal(conn.state.room.seats[2].stand_in, true, 'from the snapshot');
  const socket = FakeSocket.last;
  conn.receive({ type: 'stand_in', seq: snap.seq + 1, seat: 2, active: false });
  assert.equal(conn.state.room.seats[2].stand_in, false);
  assert.equal(conn.state.lastSeq, snap.seq + 1, 'it takes a number of the counter');
  conn.receive({ type: 'stand_in', seq: snap.seq + 2, seat: 1, active: true });
  assert.equal(conn.state.room.seats[1].stand_in, true);
  assert.equal(FakeSocket.last, socket, 'no gap, no reconnect');
});

test('sends are paced below the documented rate', () => {
  // On a clock of the test's own: a loaded machine must not refill the bucket.
  const realNow = Date.now;
  let now = 1_000_000;
  Date.now = () => now;
  try {
    const conn = connection();
    for (let i = 0; i < 100; i++) conn.chat(`m${i}`);
    assert.equal(FakeSocket.last.sent.length, PACE.burst, 'a burst goes out at once, the rest waits');
    now += 100; // a tenth of a second later: a tenth of the rate more
    conn.flush();
    assert.equal(FakeSocket.last.sent.length, PACE.burst + PACE.perSecond / 10);
    now += 60_000; // never more than a burst at once
    conn.flush();
    assert.equal(FakeSocket.last.sent.length, 2 * PACE.burst + PACE.perSecond / 10);
    assert.ok(PACE.perSecond < 100, 'below the 100 a second of protocol.md 20');
    clearTimeout(conn.paceTimer);
  } finally {
    Date.now = realNow;
  }
});

test('with `history`, a fresh snapshot asks for the history once; the answer to `sync` does not', () => {
  const conn = new Connection({ base: 'ws://test', roomId: 'r', token: 't', history: true, WebSocket: FakeSocket });
  conn.connect();
  const got = [];
  conn.onChange = (kind, msg) => got.push([kind, msg]);
  const snap = RECORDED.find((m) => m.type === 'snapshot' && m.view);
  conn.receive(snap);
  const asked = () => FakeSocket.last.sent.filter((m) => m.type === 'history').length;
  assert.equal(asked(), 1, 'asked after the first snapshot');
  conn.syncOut = true;
  conn.receive(snap);
  assert.equal(asked(), 1, 'not after the answer to a sync');
  const history = { type: 'history', seq: snap.seq, actions: [], chat: [{ seq: 1, name: 'x', text: 'hi' }] };
  conn.receive(history);
  assert.deepEqual(got.at(-1), ['history', history], 'the answer goes to the page');
  assert.equal(conn.state.lastSeq, snap.seq, 'and takes no number');
});
