"""Plays games through the compose stack's proxy for deploy/compose-test.sh, with
the example client (examples/python, package ``catan_client``) over HTTPS and WSS.

    python3 deploy/compose-test-play.py --url https://catan.test:18443 --resolve 127.0.0.1 \\
        --cacert ca.pem (play | start STATE | finish STATE)

``play``    a whole game: two seats played here, two built-in bots (prints one JSON line)
``start``   a game started and played for a while (``--actions``), then left; plus a
            room still gathering players (one seat taken); both written to STATE
``finish``  the seats of STATE's game taken up again with their tokens and played to
            the end; the gathering room checked (its seat token still opens it)

``--resolve`` sends every connection to the domain to that address (as curl's
``--resolve``), so a test name needs no DNS; ``--cacert`` is the only CA trusted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "python"))

from catan_client import derive, play  # noqa: E402
from catan_client.board import Board  # noqa: E402
from catan_client.connection import Connection  # noqa: E402
from catan_client.lobby import ApiError, Lobby  # noqa: E402
from catan_client.strategy import Strategy  # noqa: E402

#: Room options of the test games: short (5 points), no timers, and no stand-in
#: bot taking a seat over while the stack restarts and the seats are away.
OPTIONS = {"vp_target": 5, "turn_timer_secs": 0, "discard_timeout_secs": 0, "stand_in_secs": 0}


class PatientLobby(Lobby):
    """A lobby client that waits and tries again when the server says ``429
    rate_limited`` (the per-address limit on costly lobby calls: every call here
    comes from one address)."""

    def call(self, method: str, path: str, body: Any = None, bearer: str | None = None) -> Any:
        for _ in range(60):
            try:
                return super().call(method, path, body, bearer)
            except ApiError as e:
                if e.status != 429:
                    raise
                time.sleep(2)
        return super().call(method, path, body, bearer)


def resolve_to(host: str, address: str) -> None:
    """Every name lookup of ``host`` answers ``address`` (the stack on this machine)."""
    real = socket.getaddrinfo

    def getaddrinfo(name, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        return real(address if name == host else name, port, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]


async def start(lobby: Lobby, actions: int) -> dict:
    """A game of two seats here and two bots, played until ``actions`` of ours were
    acknowledged, then left; and a gathering room with one seat taken."""
    board = Board.from_json(lobby.board())
    # 8 points: far from over after ``actions`` of ours.
    created = lobby.create_room(players=4, **dict(OPTIONS, vp_target=8))
    room, host = created["room_id"], created["host_token"]
    tokens = [lobby.take_seat(room, f"py{i}")["token"] for i in range(2)]
    lobby.add_bot(room, host, "heuristic")
    lobby.add_bot(room, host, "random")
    conns = [Connection(board) for _ in tokens]
    for c, t in zip(conns, tokens):
        await c.open(lobby.ws_url(room), t)
    lobby.start(room, host)
    strategies = [Strategy(board) for _ in conns]

    async def until_enough(c: Connection, s: Strategy) -> None:
        task = asyncio.ensure_future(play.play_seat(c, s))
        # Left after `actions` of ours, or at turn 12 at the latest: the bots play
        # fast, and a run whose own actions were slow to be acknowledged once saw
        # the game end (8 points at turn 68) before it was left.
        while (
            not task.done()
            and sum(x.acks for x in conns) < actions
            and max(x.view.v.get("turn", 0) if x.view else 0 for x in conns) < 12
        ):
            await asyncio.sleep(0.05)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass

    await asyncio.gather(*(until_enough(c, s) for c, s in zip(conns, strategies)))
    if any(c.game_over for c in conns):
        raise RuntimeError("the game ended before it was left: lower --actions")
    for c in conns:
        await c.close()
    gathering = lobby.create_room(players=4, **OPTIONS)
    waiting = lobby.take_seat(gathering["room_id"], "waiting")
    return {
        "room": room,
        "tokens": tokens,
        "acks": sum(c.acks for c in conns),
        "gathering": gathering["room_id"],
        "gathering_token": waiting["token"],
    }


async def finish(lobby: Lobby, state: dict) -> dict:
    """The game's seats taken up again with their tokens and played to the end."""
    board = Board.from_json(lobby.board())
    room = state["room"]
    conns = [Connection(board) for _ in state["tokens"]]
    for c, t in zip(conns, state["tokens"]):
        await c.open(lobby.ws_url(room), t)
    resumed_at = [c.seq for c in conns]
    strategies = [Strategy(board) for _ in conns]
    await asyncio.gather(*(play.play_seat(c, s) for c, s in zip(conns, strategies)))
    for c in conns:
        await c.close()
    over = conns[0].game_over
    replay = await play._finished_replay(lobby, room)
    out = {
        "room": room,
        "resumed_at_seq": resumed_at,
        "acks_after_restart": sum(c.acks for c in conns),
        "winner": over["winner"],
        "dice_re_derived": derive.verify(replay, board).dice,
        "gathering": state["gathering"],
    }
    # The gathering room: still there, still gathering, its seat token still works.
    try:
        described = lobby.call("GET", f"/api/rooms/{state['gathering']}")
        waiting = Connection(board)
        await waiting.open(lobby.ws_url(state["gathering"]), state["gathering_token"])
        out["gathering_status"], out["gathering_seat"] = described.get("status"), waiting.you
        await waiting.close()
    except (ApiError, websockets.exceptions.WebSocketException) as e:
        out["gathering_status"], out["gathering_error"] = None, str(e)
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", required=True, help="https://DOMAIN:PORT of the proxy")
    p.add_argument("--resolve", help="the address the domain's connections go to")
    p.add_argument("--cacert", help="the CA certificate to trust (PEM)")
    p.add_argument("--actions", type=int, default=30, help="start: our actions before leaving")
    p.add_argument("mode", choices=["play", "start", "finish"])
    p.add_argument("state", nargs="?", help="start/finish: the JSON file of the game")
    args = p.parse_args(argv)
    if args.cacert:
        # Read by every default SSL context (urllib's and websockets').
        os.environ["SSL_CERT_FILE"] = args.cacert
    if args.resolve:
        resolve_to(urllib.parse.urlsplit(args.url).hostname or "", args.resolve)
    play.Lobby = PatientLobby  # type: ignore[misc]
    lobby = PatientLobby(args.url)
    if args.mode == "play":
        full = asyncio.run(play.play_room(args.url, 2, 2, OPTIONS))
        checked = full["replay_checked"]
        out = {k: full[k] for k in ("room", "winner", "acks", "rejections", "commitment_ok")}
        out["dice_re_derived"] = checked["dice"]
    elif args.mode == "start":
        out = asyncio.run(start(lobby, args.actions))
        Path(args.state).write_text(json.dumps(out))
    else:
        out = asyncio.run(finish(lobby, json.loads(Path(args.state).read_text())))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
