"""The generated models (``catan_client/models.py``) are what the schema gives, and
describe what the server sends: every message of the conformance transcripts, the
replay and the board geometry match their model exactly (every required field, no
unknown one, every value of its type)."""

from __future__ import annotations

import json
import sys
import types
import unittest
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

from catan_client import models

from . import fixtures

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import gen_models  # noqa: E402


def problems(value: Any, tp: Any, path: str = "$") -> list[str]:
    """Where ``value`` does not match the model ``tp`` (empty when it does)."""
    origin = get_origin(tp)
    if tp is Any:
        return []
    if tp is type(None):
        return [] if value is None else [f"{path}: {value!r} is not null"]
    if origin in (Union, types.UnionType):
        arms = get_args(tp)
        if any(not problems(value, arm, path) for arm in arms):
            return []
        # A tagged union: the arm of the value's own tag says best what is wrong.
        for arm in arms:
            hints = get_type_hints(arm) if is_typeddict(arm) else {}
            for tag in ("type", "name"):
                if isinstance(value, dict) and tag in hints and value.get(tag) in get_args(hints[tag]):
                    return problems(value, arm, path)
        return [f"{path}: {json.dumps(value)[:80]} is none of {len(arms)} kinds"]
    if origin is Literal:
        return [] if value in get_args(tp) else [f"{path}: {value!r} is not one of {get_args(tp)}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: not a list"]
        (item,) = get_args(tp)
        return [p for i, v in enumerate(value) for p in problems(v, item, f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        _, item = get_args(tp)
        return [p for k, v in value.items() for p in problems(v, item, f"{path}.{k}")]
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        hints = get_type_hints(tp)
        out = [f"{path}: lacks {k}" for k in sorted(tp.__required_keys__ - value.keys())]
        out += [f"{path}: unknown field {k}" for k in sorted(value.keys() - hints.keys())]
        for k in sorted(value.keys() & hints.keys()):
            out += problems(value[k], hints[k], f"{path}.{k}")
        return out
    if tp is bool:
        return [] if isinstance(value, bool) else [f"{path}: {value!r} is not a boolean"]
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} is not an integer"]
    if tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} is not a number"]
    if tp is str:
        return [] if isinstance(value, str) else [f"{path}: {value!r} is not a string"]
    raise TypeError(f"{path}: no check for {tp!r}")


class Models(unittest.TestCase):
    def test_the_models_are_what_the_schema_gives(self) -> None:
        self.assertEqual(
            gen_models.generate(),
            (Path(gen_models.OUTPUT)).read_text(encoding="utf-8"),
            "catan_client/models.py is stale: run python tools/gen_models.py",
        )

    def test_every_message_of_the_transcripts_matches_its_model(self) -> None:
        seen: set[str] = set()
        for name in fixtures.TRANSCRIPTS:
            for i, msg in enumerate(fixtures.messages(name)):
                self.assertEqual(problems(msg, models.ServerMessage, f"{name}:{i + 1}"), [])
                seen.add(msg["type"])
        self.assertTrue({"snapshot", "events", "game_over", "room"} <= seen, seen)

    def test_the_replay_and_the_board_match_their_models(self) -> None:
        self.assertEqual(problems(fixtures.replay(), models.Replay), [])
        board = json.loads((fixtures.DIR / "board.json").read_text())
        self.assertEqual(problems(board, models.BoardGeometry), [])

    def test_a_message_that_breaks_its_model_is_caught(self) -> None:
        msg = next(m for m in fixtures.messages("seat0.jsonl") if m["type"] == "events")
        self.assertEqual(problems(msg, models.ServerMessage), [])
        self.assertIn("$: lacks seq", problems({k: v for k, v in msg.items() if k != "seq"}, models.ServerMessage))
        self.assertIn("$: unknown field extra", problems({**msg, "extra": 1}, models.ServerMessage))
        wrong = {**msg, "events": [{"type": "dice_rolled", "seat": 0, "dice": ["6", 1], "total": 7}]}
        self.assertTrue(any("events[0].dice[0]" in p for p in problems(wrong, models.ServerMessage)))
        self.assertTrue(problems({"type": "no_such_message"}, models.ServerMessage))


if __name__ == "__main__":
    unittest.main()
