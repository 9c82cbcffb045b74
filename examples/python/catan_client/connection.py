"""One WebSocket connection (protocol.md sections 5 to 7): messages parsed and checked,
the ``seq`` of every broadcast tracked, one action in flight with its ``request_id``
until its acknowledgement or rejection, ``expect_seq`` on every action, and the game
view kept current from events and checked against every snapshot.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import websockets

from .board import Board
from .view import View

PROTOCOL_VERSION = 1
SEQUENCED = {"events", "chat", "presence", "stand_in", "room", "game_over", "rematch"}


class ProtocolViolation(Exception):
    """The server broke the contract (a gap in ``seq``, a view that does not fold)."""


class Connection:
    """A seat's (``token``) or a spectator's (``token=None``) connection to a room."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.ws: Any = None
        self.seq = 0
        self.you: int | None = None
        self.view: View | None = None
        self.legal: list[dict[str, Any]] = []
        self.game_over: dict[str, Any] | None = None
        self.in_flight: str | None = None
        self.next_request = 1
        self.rejections: Counter[str] = Counter()
        self.snapshots_checked = 0
        self.acks = 0
        #: Set by a ``rate_limited`` error: slow down, then ``sync``.
        self.throttled = False

    async def open(self, ws_url: str, token: str | None) -> None:
        """Connects and reads up to the first snapshot."""
        query = f"?protocol={PROTOCOL_VERSION}" + (f"&token={token}" if token else "")
        self.ws = await websockets.connect(ws_url + query, max_size=None)
        while self.view is None and self.game_over is None:
            msg = await self.recv()
            if msg["type"] == "snapshot" and msg["view"] is None:
                break

    async def close(self) -> None:
        """Closes the WebSocket."""
        if self.ws is not None:
            await self.ws.close()

    async def recv(self, timeout: float | None = None) -> dict[str, Any]:
        """Reads and handles the next message (``asyncio.TimeoutError`` after ``timeout``)."""
        text = await asyncio.wait_for(self.ws.recv(), timeout)
        msg = json.loads(text)
        self.handle(msg)
        return msg

    def handle(self, msg: dict[str, Any]) -> None:
        """Applies one server message to this connection's state."""
        kind = msg["type"]
        if kind in SEQUENCED:
            if msg["seq"] != self.seq + 1:
                raise ProtocolViolation(f"seq {msg['seq']} after {self.seq}")
            self.seq = msg["seq"]
        if kind == "snapshot":
            self.snapshot(msg)
        elif kind == "events":
            if self.view is not None:
                for e in msg["events"]:
                    self.view.apply(e)
            self.legal = msg.get("legal", [])
            if msg.get("request_id") is not None and msg["request_id"] == self.in_flight:
                self.in_flight = None
                self.acks += 1
        elif kind == "rejected":
            self.rejections[msg["code"]] += 1
            if msg.get("request_id") == self.in_flight:
                self.in_flight = None
            self.legal = []
        elif kind == "resumed":
            self.seq, self.legal = msg["seq"], msg.get("legal", [])
        elif kind == "game_over":
            self.game_over = msg
            self.legal = []
        elif kind == "error" and msg["code"] == "rate_limited":
            # Refused before the room saw it: no acknowledgement will come (section 20).
            self.rejections[msg["code"]] += 1
            self.in_flight, self.legal, self.throttled = None, [], True
        elif kind == "error":
            raise ProtocolViolation(f"error {msg['code']}: {msg['message']}")

    def snapshot(self, msg: dict[str, Any]) -> None:
        """A snapshot replaces everything; the view folded so far must equal it."""
        if self.view is not None and msg["view"] is not None:
            if self.view.v != msg["view"]:
                diff = {k: (self.view.v.get(k), v) for k, v in msg["view"].items() if self.view.v.get(k) != v}
                raise ProtocolViolation(f"folded view differs from snapshot at seq {msg['seq']}: {diff}")
            self.snapshots_checked += 1
        self.seq, self.you, self.legal = msg["seq"], msg["you"], msg["legal"]
        self.view = View(msg["view"], self.board) if msg["view"] is not None else None
        self.game_over = msg.get("game_over") or self.game_over

    async def send_action(self, action: dict[str, Any]) -> None:
        """Sends ``action`` with a fresh request id and the newest seq seen."""
        rid = f"r{self.next_request}"
        self.next_request += 1
        self.in_flight = rid
        await self.ws.send(json.dumps({"type": "action", "request_id": rid, "action": action, "expect_seq": self.seq}))

    async def sync(self) -> None:
        """Asks for a fresh snapshot (which also checks the folded view)."""
        await self.ws.send(json.dumps({"type": "sync"}))
