"""Choosing an action from the newest ``legal`` list and the view (protocol.md 7, 11.2).

A plain greedy player: good spots by the dice odds of their tiles, cities before
settlements before development cards (none while a city is two cards away), dev
cards played when they help, the robber on the leader, discards from the largest
piles, trades offered for what it lacks and accepted when they give it what it lacks.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .board import Board

RESOURCES = ["lumber", "brick", "wool", "grain", "ore"]
COSTS = {
    "city": {"grain": 2, "ore": 3},
    "settlement": {"lumber": 1, "brick": 1, "wool": 1, "grain": 1},
    "dev_card": {"wool": 1, "grain": 1, "ore": 1},
    "road": {"lumber": 1, "brick": 1},
}

Action = dict[str, Any]


def pips(number: int) -> int:
    """How many of the 36 dice outcomes roll ``number`` (0 for the desert)."""
    return 0 if number == 0 else 6 - abs(7 - number)


class Strategy:
    """Decides for one seat; keeps what it did for the report."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.done: Counter[str] = Counter()
        self.offered_turn = -1

    def vertex_value(self, view: dict[str, Any], vertex: int) -> int:
        """Dice odds of the tiles around ``vertex``, more for resources not yet produced."""
        m = view["map"]
        tiles = [t for t, vs in enumerate(self.board.tile_vertices) if vertex in vs]
        return sum(pips(m["numbers"][t]) * 2 for t in tiles) + len({m["terrain"][t] for t in tiles})

    def choose(self, view: dict[str, Any], legal: list[Action], me: int) -> Action | None:
        """The action to send now, or ``None`` to wait for the next message."""
        by: dict[str, list[Action]] = {}
        for a in legal:
            by.setdefault(a["type"], []).append(a)
        phase = view["phase"]["name"]
        for kind in ("confirm_trade", "discard", "move_robber"):
            if kind in by:
                return getattr(self, kind)(view, by[kind], me)
        if "accept_offer" in by or "reject_offer" in by:
            return self.answer(view, by, me)
        if phase == "setup":
            return self.setup(view, by)
        if view["current"] != me:
            return None
        card = self.play_card(view, by, me) if phase in ("pre_roll", "main") else None
        if card is not None:
            return card
        if "roll_dice" in by:
            return by["roll_dice"][0]
        if "build_road" in by and phase == "road_building":
            return self.best_road(view, by["build_road"])
        return self.main(view, by, me)

    def setup(self, view: dict[str, Any], by: dict[str, list[Action]]) -> Action | None:
        if "build_settlement" in by:
            return max(by["build_settlement"], key=lambda a: self.vertex_value(view, a["vertex"]))
        return self.best_road(view, by.get("build_road", [])) if "build_road" in by else None

    def best_road(self, view: dict[str, Any], roads: list[Action]) -> Action:
        """A road towards the best free spot two steps away."""
        taken = {b["vertex"] for b in view["buildings"]}
        free = set(self.board.distance_ok(taken))

        def value(a: Action) -> int:
            ends = self.board.edge_ends[a["edge"]]
            return max(self.vertex_value(view, w) if w in free else 0 for v in ends for w in [v, *self.board.vertex_neighbors[v]])

        return max(roads, key=value)

    def hand(self, view: dict[str, Any]) -> dict[str, int]:
        return view["me"]["hand"] if view["me"] else {}

    def main(self, view: dict[str, Any], by: dict[str, list[Action]], me: int) -> Action | None:
        hand = self.hand(view)
        for kind, pick in (("build_city", "vertex"), ("build_settlement", "vertex")):
            if kind in by:
                self.done[kind] += 1
                return max(by[kind], key=lambda a: self.vertex_value(view, a[pick]))
        if "buy_dev_card" in by and not self.saving_for_city(view, hand, me):
            self.done["buy_dev_card"] += 1
            return by["buy_dev_card"][0]
        if "build_road" in by and view["players"][me]["roads_left"] > 6:
            self.done["build_road"] += 1
            return self.best_road(view, by["build_road"])
        own_open = [o for o in view["offers"] if o["from"] == me]
        if own_open:
            return None  # wait for the answers (the caller gives up after a while)
        trade = self.trade(view, by, hand, me)
        if trade is not None:
            return trade
        return by["end_turn"][0] if "end_turn" in by else None

    def saving_for_city(self, view: dict[str, Any], hand: dict[str, int], me: int) -> bool:
        """Whether a development card would spend the grain or ore of a city in reach:
        a settlement to upgrade and at most two cards short of 2 grain and 3 ore."""
        if not any(b["seat"] == me and not b["city"] for b in view["buildings"]):
            return False
        short = sum(max(0, n - hand.get(r, 0)) for r, n in COSTS["city"].items())
        return short <= 2

    def wanted(self, hand: dict[str, int]) -> tuple[str, str] | None:
        """(a resource to give, one to get) towards a city or settlement."""
        for goal in ("city", "settlement", "dev_card"):
            missing = [r for r, n in COSTS[goal].items() if hand.get(r, 0) < n]
            spare = [r for r in RESOURCES if hand.get(r, 0) > COSTS[goal].get(r, 0)]
            if len(missing) == 1 and spare:
                return max(spare, key=lambda r: hand.get(r, 0)), missing[0]
        return None

    def trade(self, view: dict[str, Any], by: dict[str, list[Action]], hand: dict[str, int], me: int) -> Action | None:
        want = self.wanted(hand)
        if want is None:
            return None
        give, get = want
        for a in by.get("maritime_trade", []):
            if a["give"] == give and a["get"] == get:
                self.done["maritime_trade"] += 1
                return a
        if "offer_trade" in by and self.offered_turn != view["turn"]:
            self.offered_turn = view["turn"]
            self.done["offer_trade"] += 1
            return {"type": "offer_trade", "to": None, "give": {give: 1}, "get": {get: 1}}
        return None

    def answer(self, view: dict[str, Any], by: dict[str, list[Action]], me: int) -> Action | None:
        """Accepts an offer that brings a resource it holds none of for one it has spare."""
        hand = self.hand(view)
        offers = {o["id"]: o for o in view["offers"]}
        for a in by.get("accept_offer", []):
            o = offers.get(a["offer"])
            if o is None:
                continue
            mine, theirs = (o["give"], o["get"]) if o["from"] != me else (o["get"], o["give"])
            if all(hand.get(r, 0) == 0 for r in mine) and all(hand.get(r, 0) > n for r, n in theirs.items()):
                self.done["accept_offer"] += 1
                return a
        if by.get("reject_offer"):
            self.done["reject_offer"] += 1
            return by["reject_offer"][0]
        return None

    def confirm_trade(self, view: dict[str, Any], options: list[Action], me: int) -> Action:
        self.done["confirm_trade"] += 1
        return options[0]

    def discard(self, view: dict[str, Any], options: list[Action], me: int) -> Action:
        """The owed number of cards, from the largest piles (R-7.1)."""
        owed = sum(options[0]["cards"].values())
        hand = dict(self.hand(view))
        cards: dict[str, int] = {}
        for _ in range(owed):
            r = max(RESOURCES, key=lambda r: hand.get(r, 0))
            hand[r] -= 1
            cards[r] = cards.get(r, 0) + 1
        self.done["discard"] += 1
        return {"type": "discard", "cards": cards}

    def move_robber(self, view: dict[str, Any], options: list[Action], me: int) -> Action:
        """The tile that hurts the leader most and none of its own buildings, stealing from the leader."""
        vp = {p["seat"]: p["public_vp"] for p in view["players"]}
        owner = {b["vertex"]: b["seat"] for b in view["buildings"]}

        def value(a: Action) -> int:
            around = [owner[v] for v in self.board.tile_vertices[a["tile"]] if v in owner]
            if me in around:
                return -100
            n = pips(view["map"]["numbers"][a["tile"]])
            return n * sum(1 + vp[s] for s in around) + (vp[a["victim"]] * 3 if a["victim"] is not None else 0)

        self.done["move_robber"] += 1
        return max(options, key=value)

    def play_card(self, view: dict[str, Any], by: dict[str, list[Action]], me: int) -> Action | None:
        """A development card worth playing now, if any."""
        hand = self.hand(view)
        robber_on_me = any(b["seat"] == me and b["vertex"] in self.board.tile_vertices[view["robber"]] for b in view["buildings"])
        if "play_knight" in by and (robber_on_me or view["players"][me]["knights_played"] < 3):
            return self._played(by["play_knight"][0])
        if "play_road_building" in by and view["players"][me]["roads_left"] >= 2:
            return self._played(by["play_road_building"][0])
        if "play_year_of_plenty" in by and view["phase"]["name"] == "main":
            need = Counter({r: max(0, n - hand.get(r, 0)) for r, n in COSTS["city"].items()})
            return self._played(max(by["play_year_of_plenty"], key=lambda a: sum(min(n, need[r]) for r, n in a["take"].items())))
        if "play_monopoly" in by and view["phase"]["name"] == "main":
            return self._played(next((a for a in by["play_monopoly"] if a["resource"] == "ore"), by["play_monopoly"][0]))
        return None

    def _played(self, a: Action) -> Action:
        self.done[a["type"]] += 1
        return a
