"""Takes a seat in a new room and plays it to the end with random legal actions.

The client quick start (docs/client-quickstart.md) explains every step. Python 3.11+
and one package, ``websockets``::

    python3 -m venv .venv && .venv/bin/pip install websockets
    .venv/bin/python random_game.py http://127.0.0.1:8080
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import urllib.error
import urllib.request
from typing import Any

import websockets


def post(base: str, path: str, body: dict[str, Any], token: str | None = None) -> Any:
    """One lobby call (protocol.md 4): the JSON answer, or exit with the error's code."""
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST")
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request) as response:
            return json.load(response)
    except urllib.error.HTTPError as e:
        error = json.load(e)["error"]  # {"error": {"code": ..., "message": ...}} (4.1)
        sys.exit(f"{path}: {e.code} {error['code']}: {error['message']}")


async def play(base: str) -> dict[str, Any]:
    # The four HTTP calls: a room of 3, a seat for us, two bots, start.
    room = post(base, "/api/rooms", {"players": 3, "vp_target": 5})
    room_id, host = room["room_id"], room["host_token"]
    seat = post(base, f"/api/rooms/{room_id}/seats", {"name": "hello"})
    for _ in range(2):
        post(base, f"/api/rooms/{room_id}/bots", {"kind": "medium"}, host)
    post(base, f"/api/rooms/{room_id}/start", {}, host)

    # One WebSocket for our seat; the token stays in the query (2.3).
    ws_base = base.replace("http", "ws", 1)
    url = f"{ws_base}/api/rooms/{room_id}/ws?protocol=1&token={seat['token']}"
    legal: list[dict[str, Any]] = []  # what our seat may do now: the newest list only
    in_flight: str | None = None  # one action at a time, until its answer (7)
    sent = refused = 0
    async with websockets.connect(url) as ws:
        async for text in ws:
            msg = json.loads(text)
            kind = msg["type"]
            if kind == "snapshot":  # first message, and the answer to `sync`
                legal, in_flight = msg["legal"], None
            elif kind == "events":  # an accepted action, ours when it has our request id
                legal = msg.get("legal", [])
                if msg.get("request_id") == in_flight:
                    in_flight = None
            elif kind == "rejected":  # refused, nothing changed: ask for a fresh state
                refused += 1
                legal, in_flight = [], None
                await ws.send(json.dumps({"type": "sync"}))
            elif kind == "game_over":
                return {
                    "room": room_id,
                    "seat": seat["seat"],
                    "winner": msg["winner"],
                    "scores": [s["points"] for s in msg["scores"]],
                    "actions": sent,
                    "refused": refused,
                }
            # Trades need terms of our own (11.2): this player leaves them out.
            choices = [a for a in legal if a["type"] not in ("offer_trade", "counter_offer")]
            if in_flight is None and choices:
                await asyncio.sleep(0.02)  # at most 50 messages a second (20)
                sent += 1
                in_flight = f"r{sent}"
                action = random.choice(choices)
                await ws.send(json.dumps({"type": "action", "request_id": in_flight, "action": action}))
    raise SystemExit("the server closed the connection before the game ended")


if __name__ == "__main__":
    print(json.dumps(asyncio.run(play(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"))))
