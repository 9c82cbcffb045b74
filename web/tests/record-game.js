// Records one seat's connection through a whole game, for kit.test.js: every message
// the seat received, in order, one JSON a line (tests/fixtures/game.jsonl). The seat
// plays through the kit (web/kit.js) against three medium bots; besides the kit's
// own `sync` requests it asks for a snapshot every few messages, so that the test can
// compare the folded view with the server's often.
//
// Run: cd web && node tests/record-game.js [http://127.0.0.1:PORT]
// (without a URL it starts $CARGO_TARGET_DIR/debug/catan-server on a free port).

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { Connection, api } from '../kit.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');

async function startServer() {
  const bin = path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), 'debug', 'catan-server');
  const server = spawn(bin, ['--bind', '127.0.0.1:0', '--admin-bind', '127.0.0.1:0', '--database-url', 'sqlite::memory:'], {
    env: { ...process.env, CATAN_BOT_THINK_MS: '0', NO_COLOR: '1', RUST_LOG: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise((resolve) => {
    let buf = '';
    const onData = (d) => {
      buf += d.toString();
      // eslint-disable-next-line no-control-regex
      const m = buf.replace(/\x1b\[[0-9;]*m/g, '').match(/listening[^\n]*addr=([0-9.:]+)/);
      if (m) resolve(`http://${m[1]}`);
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
  });
  return { server, url };
}

// A seeded choice, so that a re-recording plays alike.
let seed = 7;
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const PREFER = [['confirm_trade'], ['build_settlement', 'build_city'], ['build_road', 'play_knight', 'play_road_building', 'play_year_of_plenty', 'play_monopoly'],
  ['move_robber', 'discard', 'roll_dice'], ['buy_dev_card', 'maritime_trade', 'accept_offer', 'reject_offer', 'offer_trade'], ['withdraw_offer', 'end_turn']];

function choose(legal, roads) {
  for (const kinds of PREFER) {
    const some = legal.filter((a) => kinds.includes(a.type)
      && !(a.type === 'build_road' && roads.n > 8 && legal.some((b) => b.type === 'end_turn'))
      && !(a.type === 'offer_trade' && roads.offeredIn === roads.turn));
    if (some.length) return some[rand(some.length)];
  }
  return null;
}

async function main() {
  let url = process.argv[2];
  let server = null;
  if (!url) ({ server, url } = await startServer());
  globalThis.location = /** @type {any} */ (new URL(url));
  const abs = (p) => new URL(p, url).toString();
  const { room_id: roomId, host_token: host } = await api('POST', abs('/api/rooms'), { players: 4, vp_target: 10, map: 'beginner', turn_timer_secs: 0, discard_timeout_secs: 0 });
  const seat = await api('POST', abs(`/api/rooms/${roomId}/seats`), { name: 'alice' });
  const lines = [];
  let n = 0;
  const roads = { n: 0 };
  const done = new Promise((resolve) => {
    const conn = new Connection({
      base: url.replace(/^http/, 'ws'), roomId, token: seat.token, WebSocket,
      onChange: (kind, msg) => {
        lines.push(JSON.stringify(msg));
        if (kind === 'room' && msg.room.status === 'finished') { conn.close(); resolve(); return; }
        const s = conn.state;
        if (kind === 'events' && ++n % 7 === 0 && !s.pending && !conn.syncOut && !conn.refreshSeq) { conn.syncOut = true; conn.send({ type: 'sync' }); }
        if (!s.view || s.pending || conn.syncOut) return;
        const a = choose(s.legal, roads);
        if (!a) return;
        if (a.type === 'build_road' && s.view.phase.name === 'main') roads.n += 1;
        roads.turn = s.view.turn;
        if (a.type === 'offer_trade') roads.offeredIn = s.view.turn;
        conn.act(/** @type {any} */ (a));
      },
    });
    conn.connect();
  });
  for (let i = 0; i < 3; i++) await api('POST', abs(`/api/rooms/${roomId}/bots`), { kind: 'medium' }, host);
  await api('POST', abs(`/api/rooms/${roomId}/start`), undefined, host);
  await done;
  const out = path.join(HERE, 'fixtures', 'game.jsonl');
  writeFileSync(out, `${lines.join('\n')}\n`);
  console.log(`${lines.length} messages, ${lines.filter((l) => l.startsWith('{"type":"snapshot"')).length} snapshots -> ${out}`);
  if (server) server.kill('SIGTERM');
}

main();
