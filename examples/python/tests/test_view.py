"""The view fold against every snapshot of the conformance transcripts."""

from __future__ import annotations

import copy
import unittest

from catan_client.connection import Connection, ProtocolViolation

from . import fixtures


def fold(name: str) -> Connection:
    """A connection fed every recorded message (it checks seq and every snapshot)."""
    conn = Connection(fixtures.board())
    for msg in fixtures.messages(name):
        conn.handle(msg)
    return conn


class ViewFoldTest(unittest.TestCase):
    def test_every_snapshot_equals_the_view_folded_from_events(self) -> None:
        for name in fixtures.TRANSCRIPTS:
            with self.subTest(name):
                conn = fold(name)
                self.assertGreaterEqual(conn.snapshots_checked, 20)
                self.assertIsNotNone(conn.game_over)
                self.assertEqual(conn.view.v["phase"]["name"], "over")

    def test_seats_and_spectator_agree_on_everything_public(self) -> None:
        views = [fold(name).view.v for name in fixtures.TRANSCRIPTS]
        public = [{k: v for k, v in view.items() if k not in ("viewer", "me")} for view in views]
        for p in public[1:]:
            self.assertEqual(p, public[0])
        self.assertIsNone(views[-1]["me"])

    def test_a_view_that_drifts_is_caught_at_the_next_snapshot(self) -> None:
        msgs = fixtures.messages("seat1.jsonl")
        conn = Connection(fixtures.board())
        conn.handle(msgs[0])
        conn.view.v["bank"]["ore"] = conn.view.v["bank"].get("ore", 0) + 1
        with self.assertRaises(ProtocolViolation):
            for msg in msgs[1:]:
                conn.handle(msg)

    def test_a_gap_in_seq_is_caught(self) -> None:
        msgs = copy.deepcopy(fixtures.messages("spectator.jsonl"))
        conn = Connection(fixtures.board())
        conn.handle(msgs[0])
        nxt = next(m for m in msgs[1:] if "seq" in m and m["type"] != "snapshot")
        nxt["seq"] += 1
        with self.assertRaises(ProtocolViolation):
            conn.handle(nxt)


if __name__ == "__main__":
    unittest.main()
