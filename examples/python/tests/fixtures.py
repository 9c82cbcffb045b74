"""The conformance transcripts of ``tests/fixtures/conformance`` (protocol.md section 24)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from catan_client.board import Board

DIR = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "conformance"
TRANSCRIPTS = ["seat0.jsonl", "seat1.jsonl", "seat2.jsonl", "seat3.jsonl", "spectator.jsonl"]


def board() -> Board:
    """The geometry the server answered."""
    return Board.from_json(json.loads((DIR / "board.json").read_text()))


def replay() -> dict[str, Any]:
    """The recorded game's replay."""
    return json.loads((DIR / "replay.json").read_text())


def messages(name: str) -> list[dict[str, Any]]:
    """One connection's messages, in order."""
    return [json.loads(line) for line in (DIR / name).read_text().splitlines()]
