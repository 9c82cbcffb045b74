"""Re-deriving the random outcomes of the conformance game from its revealed seed."""

from __future__ import annotations

import copy
import unittest

from catan_client import derive
from catan_client.rng import GameRng

from . import fixtures


class DeriveTest(unittest.TestCase):
    def test_the_recorded_replay_is_what_its_seed_gives(self) -> None:
        checked = derive.verify(fixtures.replay(), fixtures.board())
        self.assertGreater(checked.dice, 50)
        self.assertGreater(checked.steals, 5)
        self.assertGreater(checked.cards_bought, 3)

    def test_the_snapshots_show_the_map_the_seed_deals(self) -> None:
        replay = fixtures.replay()
        start = derive.deal_start(GameRng(int(replay["game"]["seed"])), fixtures.board(), replay["engine_options"])
        for name in fixtures.TRANSCRIPTS:
            first = fixtures.messages(name)[0]
            self.assertEqual(first["view"]["map"], start.map, name)
            self.assertEqual(first["view"]["robber"], start.robber, name)

    def test_a_changed_die_a_stolen_card_or_a_seed_is_caught(self) -> None:
        base = fixtures.replay()
        rolled = next(s for s in base["actions"] if s["action"]["type"] == "roll_dice")
        stolen = next(s for s in base["actions"] if any(e["type"] == "stolen" for e in s["events"]))
        cases = []
        r = copy.deepcopy(base)
        step = r["actions"][rolled["seq"]]
        die = next(e for e in step["events"] if e["type"] == "dice_rolled")
        die["dice"][0] = die["dice"][0] % 6 + 1
        cases.append(r)
        r = copy.deepcopy(base)
        e = next(e for e in r["actions"][stolen["seq"]]["events"] if e["type"] == "stolen")
        e["resource"] = "ore" if e["resource"] != "ore" else "wool"
        cases.append(r)
        r = copy.deepcopy(base)
        r["game"]["seed"] = str(int(r["game"]["seed"]) + 1)
        cases.append(r)
        for case in cases:
            with self.assertRaises(derive.Mismatch):
                derive.verify(case, fixtures.board())

    def test_shuffle_and_uniform_follow_rand(self) -> None:
        # Structural facts of the documented algorithms: k = 2 packs 11 indices.
        self.assertEqual(derive_bound(2), (479001600, 11))
        rng = GameRng(1)
        values = [rng.inclusive(1, 6) for _ in range(600)]
        self.assertEqual(set(values), {1, 2, 3, 4, 5, 6})


def derive_bound(k: int) -> tuple[int, int]:
    from catan_client.rng import _bound

    return _bound(k)


if __name__ == "__main__":
    unittest.main()
