// The quick start's random player (examples/quickstart/random-game.ts), written with
// the client kit's package (web/kit) instead of the bare protocol: the kit keeps the
// sequence numbers, one action in flight, the pace, reconnects and the game view.
//
//   npm install catan-server-kit-0.1.0.tgz      # made by `npm pack` in web/kit
//   npx tsc && node random-game.js http://127.0.0.1:8080
//
// Node 22+ has the WebSocket this uses; on Node 20 run it with
// --experimental-websocket, or pass the `ws` package's class as `WebSocket`.

import { api, Connection } from 'catan-server-kit';
import type { Action, CreateRoomResponse, GameOverInfo, TakeSeatResponse } from 'catan-server-kit/protocol';

declare const process: { argv: string[]; exitCode?: number }; // Node's, without @types/node

const base = process.argv[2] ?? 'http://127.0.0.1:8080';

// The four HTTP calls (the kit's `api` throws an error carrying the answer's code).
const room: CreateRoomResponse = await api('POST', `${base}/api/rooms`, { players: 3, vp_target: 5 });
const seat: TakeSeatResponse = await api('POST', `${base}/api/rooms/${room.room_id}/seats`, { name: 'kit' });
for (let i = 0; i < 2; i++) {
  await api('POST', `${base}/api/rooms/${room.room_id}/bots`, { kind: 'medium' }, room.host_token);
}
await api('POST', `${base}/api/rooms/${room.room_id}/start`, {}, room.host_token);

let refused = 0;
let acted = 0;
const conn: Connection = new Connection({
  base: base.replace(/^http/, 'ws'),
  roomId: room.room_id,
  token: seat.token,
  onChange: (kind: string, msg: any) => {
    const s = conn.state;
    if (kind === 'game_over') {
      const over = msg as GameOverInfo;
      const scores = over.scores.map((x) => x.points);
      console.log(JSON.stringify({ room: room.room_id, seat: s.you, winner: over.winner, scores, actions: acted, refused }));
      conn.close();
      return;
    }
    if (kind === 'rejected') {
      refused += 1;
      conn.send({ type: 'sync' }); // choose again from a fresh list
      return;
    }
    // Trades need terms of our own (protocol.md 11.2): this player leaves them out.
    const choices = s.legal.filter((a: Action) => a.type !== 'offer_trade' && a.type !== 'counter_offer');
    if (s.pending || s.gameOver || choices.length === 0) return;
    if (conn.act(choices[Math.floor(Math.random() * choices.length)]) !== null) acted += 1;
  },
  onStatus: (status) => {
    if (typeof status === 'number') {
      console.error(`closed by the server: ${status}`);
      process.exitCode = 1;
    }
  },
});
conn.connect();
