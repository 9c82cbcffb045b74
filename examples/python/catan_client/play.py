"""Plays seats to the end of a game (protocol.md section 7's discipline).

    python -m catan_client.play --url http://127.0.0.1:8080 [--seats 2] [--bots 2]

creates a room, takes ``--seats`` seats, adds ``--bots`` built-in bots, starts the game,
plays every taken seat to the end, checks the finished game's replay with
``derive`` and prints one JSON line with the outcome.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from typing import Any

from . import derive
from .board import Board
from .connection import Connection
from .lobby import Lobby
from .strategy import Strategy

#: How long a seat waits for answers to its own offer before it gets on with its turn.
PATIENCE_SECS = 0.5
#: Every this many acknowledged actions a seat asks for a snapshot (``sync``), which
#: checks the view it folded from events.
SYNC_EVERY = 20


async def play_seat(conn: Connection, strategy: Strategy) -> None:
    """Acts on the newest ``legal`` list, one action in flight, until ``game_over``."""
    waiting = False
    while conn.game_over is None:
        if conn.in_flight is None and conn.legal and conn.view is not None:
            action = strategy.choose(conn.view.v, conn.legal, conn.you)
            if action is None and waiting:
                action = _without_waiting(conn)
            if action is not None:
                waiting = False
                await conn.send_action(action)
        try:
            msg = await conn.recv(timeout=PATIENCE_SECS)
        except asyncio.TimeoutError:
            waiting = True
            continue
        if conn.throttled:
            conn.throttled = False
            await asyncio.sleep(1.0)
            await conn.sync()
            continue
        acked = msg["type"] == "events" and msg.get("request_id") is not None
        if msg["type"] == "rejected" or (acked and conn.acks % SYNC_EVERY == 0):
            await conn.sync()


def _without_waiting(conn: Connection) -> dict[str, Any] | None:
    """Gives up on unanswered offers: withdraws its own, then ends the turn."""
    for a in conn.legal:
        if a["type"] == "withdraw_offer":
            return a
    return next((a for a in conn.legal if a["type"] == "end_turn"), None)


async def play_room(base: str, seats: int, bots: int, options: dict[str, Any]) -> dict[str, Any]:
    """Creates a room, plays it to the end and returns the outcome with the replay checks."""
    lobby = Lobby(base)
    board = Board.from_json(lobby.board())
    created = lobby.create_room(players=seats + bots, **options)
    room, host = created["room_id"], created["host_token"]
    tokens = [lobby.take_seat(room, f"py{i}")["token"] for i in range(seats)]
    for i in range(bots):
        lobby.add_bot(room, host, "heuristic" if i % 2 == 0 else "random")
    conns = [Connection(board) for _ in tokens]
    for c, t in zip(conns, tokens):
        await c.open(lobby.ws_url(room), t)
    info = lobby.start(room, host)
    strategies = [Strategy(board) for _ in conns]
    await asyncio.gather(*(play_seat(c, s) for c, s in zip(conns, strategies)))
    for c in conns:
        await c.close()
    over = conns[0].game_over
    replay = await _finished_replay(lobby, room)
    done: Counter[str] = sum((s.done for s in strategies), Counter())
    return {
        "room": room,
        "winner": over["winner"],
        "scores": over["scores"],
        "commitment_ok": derive.commitment(over["seed"], over["seed_salt"]) == info["seed_commitment"],
        "rejections": dict(sum((c.rejections for c in conns), Counter())),
        "acks": sum(c.acks for c in conns),
        "snapshots_checked": sum(c.snapshots_checked for c in conns),
        "done": dict(done),
        "replay_checked": derive.verify(replay, board).as_dict(),
    }


async def _finished_replay(lobby: Lobby, room: str) -> dict[str, Any]:
    """The replay, once the store has the result (it is written just after ``game_over``)."""
    for _ in range(200):
        if lobby.game(room)["status"] == "finished":
            return lobby.replay(room)
        await asyncio.sleep(0.05)
    raise TimeoutError("the finished game was never stored")


def main(argv: list[str] | None = None) -> int:
    """The command line (``catan-play`` once installed): prints the outcome as one JSON line."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", required=True, help="the server's base URL, e.g. http://127.0.0.1:8080")
    p.add_argument("--seats", type=int, default=2, help="seats this client plays")
    p.add_argument("--bots", type=int, default=2, help="built-in bots (heuristic and random, alternately)")
    p.add_argument("--vp-target", type=int, default=10)
    args = p.parse_args(argv)
    options = {"vp_target": args.vp_target, "turn_timer_secs": 0, "discard_timeout_secs": 0}
    outcome = asyncio.run(play_room(args.url, args.seats, args.bots, options))
    print(json.dumps(outcome))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
