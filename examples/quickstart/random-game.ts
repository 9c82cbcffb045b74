// Takes a seat in a new room and plays it to the end with random legal actions.
//
// The client quick start (docs/client-quickstart.md) explains every step. No
// dependencies at run time: `fetch` and `WebSocket` are the platform's (Node 22+, or a
// browser). The types come from the kit's package (web/kit): the protocol's
// declarations, generated from the server's JSON Schema.
//
//   node random-game.ts http://127.0.0.1:8080          # Node 23.6+; 22.6+: --experimental-strip-types
//   npx tsc && node random-game.js http://127.0.0.1:8080   # or compile it first

import type {
  Action,
  ClientMessage,
  CreateRoomResponse,
  ErrorBody,
  ServerMessage,
  TakeSeatResponse,
} from 'catan-server-kit/protocol';

declare const process: { argv: string[]; exitCode?: number }; // Node's, without @types/node

const base = process.argv[2] ?? 'http://127.0.0.1:8080';

/** One lobby call (protocol.md 4): the JSON answer, or an error with its code (4.1). */
async function post<T>(path: string, body: object, token?: string): Promise<T> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
  const data = await res.json();
  if (!res.ok) {
    const { error } = data as ErrorBody;
    throw new Error(`${path}: ${res.status} ${error.code}: ${error.message}`);
  }
  return data as T;
}

// The four HTTP calls: a room of 3, a seat for us, two bots, start.
const room = await post<CreateRoomResponse>('/api/rooms', { players: 3, vp_target: 5 });
const seat = await post<TakeSeatResponse>(`/api/rooms/${room.room_id}/seats`, { name: 'hello' });
for (let i = 0; i < 2; i++) {
  await post(`/api/rooms/${room.room_id}/bots`, { kind: 'medium' }, room.host_token);
}
await post(`/api/rooms/${room.room_id}/start`, {}, room.host_token);

// One WebSocket for our seat; the token stays in the query (2.3).
const wsBase = base.replace(/^http/, 'ws');
const ws = new WebSocket(`${wsBase}/api/rooms/${room.room_id}/ws?protocol=1&token=${seat.token}`);
let legal: Action[] = []; // what our seat may do now: the newest list only
let inFlight: string | null = null; // one action at a time, until its answer (7)
let sent = 0;
let refused = 0;
let over = false;

const send = (msg: ClientMessage) => ws.send(JSON.stringify(msg));

function act() {
  // Trades need terms of our own (11.2): this player leaves them out.
  const choices = legal.filter((a) => a.type !== 'offer_trade' && a.type !== 'counter_offer');
  if (inFlight !== null || choices.length === 0) return;
  sent += 1;
  inFlight = `r${sent}`;
  send({ type: 'action', request_id: inFlight, action: choices[Math.floor(Math.random() * choices.length)] });
}

ws.onmessage = (m: MessageEvent) => {
  const msg = JSON.parse(String(m.data)) as ServerMessage;
  switch (msg.type) {
    case 'snapshot': // first message, and the answer to `sync`
      legal = msg.legal;
      inFlight = null;
      break;
    case 'events': // an accepted action, ours when it has our request id
      legal = msg.legal ?? [];
      if (msg.request_id === inFlight) inFlight = null;
      break;
    case 'rejected': // refused, nothing changed: ask for a fresh state
      refused += 1;
      legal = [];
      inFlight = null;
      send({ type: 'sync' });
      break;
    case 'game_over': {
      const scores = msg.scores.map((s) => s.points);
      console.log(JSON.stringify({ room: room.room_id, seat: seat.seat, winner: msg.winner, scores, actions: sent, refused }));
      over = true;
      ws.close();
      return;
    }
    default:
      break; // presence, room, chat, ...: nothing to do for this player
  }
  setTimeout(act, 20); // at most 50 messages a second (20)
};
ws.onclose = () => {
  if (!over) {
    console.error('the server closed the connection before the game ended');
    process.exitCode = 1;
  }
};
