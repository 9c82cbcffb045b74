"""The HTTP lobby API (protocol.md section 4) with the standard library only."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


class ApiError(Exception):
    """An HTTP error answer: its status and ``{"error": {"code", "message"}}`` body."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


class Lobby:
    """Calls of one server, e.g. ``Lobby("http://127.0.0.1:8080")``."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")

    def ws_url(self, room: str) -> str:
        """The room's WebSocket address, without its query."""
        return self.base.replace("http", "ws", 1) + f"/api/rooms/{room}/ws"

    def call(self, method: str, path: str, body: Any = None, bearer: str | None = None) -> Any:
        """One request; the decoded JSON answer, or :class:`ApiError`."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("content-type", "application/json")
        if bearer:
            req.add_header("authorization", f"Bearer {bearer}")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                text = resp.read()
        except urllib.error.HTTPError as e:
            err = json.loads(e.read() or b"{}").get("error", {})
            raise ApiError(e.code, err.get("code", "?"), err.get("message", "")) from None
        return json.loads(text) if text else None

    def create_room(self, **options: Any) -> dict[str, Any]:
        """``POST /api/rooms``: ``room_id``, ``host_token``, ``room``."""
        return self.call("POST", "/api/rooms", options)

    def take_seat(self, room: str, name: str) -> dict[str, Any]:
        """``POST /api/rooms/{id}/seats``: ``seat`` and its ``token``."""
        return self.call("POST", f"/api/rooms/{room}/seats", {"name": name})

    def add_bot(self, room: str, host: str, kind: str = "random") -> dict[str, Any]:
        """``POST /api/rooms/{id}/bots`` (host only)."""
        return self.call("POST", f"/api/rooms/{room}/bots", {"kind": kind}, bearer=host)

    def start(self, room: str, host: str) -> dict[str, Any]:
        """``POST /api/rooms/{id}/start`` (host only): the room, with its seed commitment."""
        return self.call("POST", f"/api/rooms/{room}/start", bearer=host)

    def board(self) -> dict[str, Any]:
        """``GET /api/board``: the fixed geometry."""
        return self.call("GET", "/api/board")

    def game(self, game: str) -> dict[str, Any]:
        """``GET /api/games/{id}``: the stored game's summary."""
        return self.call("GET", f"/api/games/{game}")

    def replay(self, game: str) -> dict[str, Any]:
        """``GET /api/games/{id}/replay`` (finished games only)."""
        return self.call("GET", f"/api/games/{game}/replay")
