"""Following a game view (protocol.md section 13) from the events a connection
receives (section 12), the way ``GameView::apply`` of the engine does: what an event
states is copied, what follows from it (points, route lengths, pieces left, maritime
ratios, the setup order) is recomputed. A view folded from a snapshot and every later
event equals the server's next snapshot.
"""

from __future__ import annotations

import copy
from typing import Any

from .board import Board

RESOURCES = ["lumber", "brick", "wool", "grain", "ore"]
PIECES = {"roads_left": 15, "settlements_left": 5, "cities_left": 4}


def setup_seat(first: int, players: int, index: int) -> int:
    """The seat making setup placement ``index`` (R-3.2): snake order from ``first``."""
    offset = index if index < players else 2 * players - 1 - index
    return (first + offset) % players


def add_cards(into: dict[str, int], cards: dict[str, int], sign: int = 1) -> None:
    """Adds (or with ``sign=-1`` takes, never below zero) ``cards``; zero counts are left out
    as on the wire."""
    for r, n in cards.items():
        left = max(0, into.get(r, 0) + sign * n)
        if left:
            into[r] = left
        else:
            into.pop(r, None)


class View:
    """One connection's game view, kept current from its events."""

    def __init__(self, view: dict[str, Any], board: Board) -> None:
        self.v = copy.deepcopy(view)
        self.board = board

    # ----- the events -----------------------------------------------------------

    def apply(self, e: dict[str, Any]) -> None:
        """Applies one event as this connection received it."""
        handler = getattr(self, "_" + e["type"], None)
        if handler is not None:
            handler(e)

    def _turn_started(self, e: dict[str, Any]) -> None:
        me = self.v["me"]
        if me is not None and me["seat"] == self.v["current"]:
            me["dev_cards_new"] = {}
        self.v["dev_card_played"] = False
        self.v["current"], self.v["turn"] = e["seat"], e["turn"]

    def _phase_changed(self, e: dict[str, Any]) -> None:
        phase, n = e["phase"], self.v["options"]["players"]
        if phase["name"] == "setup" and phase["settlement"] is None and phase["index"] > 0:
            done = phase["index"] - 1
            for first in range(n):
                if setup_seat(first, n, done) == self.v["current"]:
                    self.v["current"] = setup_seat(first, n, phase["index"])
                    break
        self.v["phase"] = phase
        self.v["winner"] = phase.get("winner") if phase["name"] == "over" else None

    def _settlement_built(self, e: dict[str, Any], city: bool = False) -> None:
        b = [x for x in self.v["buildings"] if x["vertex"] != e["vertex"]]
        b.append({"vertex": e["vertex"], "seat": e["seat"], "city": city})
        self.v["buildings"] = sorted(b, key=lambda x: x["vertex"])
        self._refresh_pieces()

    def _city_built(self, e: dict[str, Any]) -> None:
        self._settlement_built(e, city=True)

    def _road_built(self, e: dict[str, Any]) -> None:
        if all(r["edge"] != e["edge"] for r in self.v["roads"]):
            self.v["roads"] = sorted(self.v["roads"] + [{"edge": e["edge"], "seat": e["seat"]}], key=lambda r: r["edge"])
        self._refresh_pieces()

    def _paid(self, e: dict[str, Any]) -> None:
        self._cards(e["seat"], e["cards"], -1)
        add_cards(self.v["bank"], e["cards"])

    _discarded = _paid

    def _produced(self, e: dict[str, Any]) -> None:
        add_cards(self.v["bank"], e["cards"], -1)
        self._cards(e["seat"], e["cards"])

    _starting_resources = _produced
    _year_of_plenty = _produced

    def _dice_rolled(self, e: dict[str, Any]) -> None:
        self.v["last_roll"] = e["dice"]

    def _robber_moved(self, e: dict[str, Any]) -> None:
        self.v["robber"] = e["tile"]

    def _stolen(self, e: dict[str, Any]) -> None:
        cards = {e["resource"]: 1} if e["resource"] else {}
        self._cards(e["victim"], cards, -1)
        self._cards(e["thief"], cards)
        if not cards:
            self._count(e["victim"], -1)
            self._count(e["thief"], 1)

    def _monopoly(self, e: dict[str, Any]) -> None:
        for s in range(self.v["options"]["players"]):
            if s != e["seat"]:
                cards = {e["resource"]: e["taken"][s]}
                self._cards(s, cards, -1)
                self._cards(e["seat"], cards)

    def _maritime_traded(self, e: dict[str, Any]) -> None:
        self._paid({"seat": e["seat"], "cards": e["gave"]})
        self._produced({"seat": e["seat"], "cards": e["got"]})

    def _dev_card_bought(self, e: dict[str, Any]) -> None:
        self.v["dev_deck"] = max(0, self.v["dev_deck"] - 1)
        self.v["players"][e["seat"]]["dev_cards"] += 1
        me = self.v["me"]
        if me is not None and me["seat"] == e["seat"] and e["card"]:
            add_cards(me["dev_cards"], {e["card"]: 1})
            add_cards(me["dev_cards_new"], {e["card"]: 1})
        self._refresh_points()

    def _dev_card_played(self, e: dict[str, Any]) -> None:
        self.v["dev_card_played"] = True
        p = self.v["players"][e["seat"]]
        p["dev_cards"] = max(0, p["dev_cards"] - 1)
        if e["card"] == "knight":
            p["knights_played"] += 1
        me = self.v["me"]
        if me is not None and me["seat"] == e["seat"]:
            add_cards(me["dev_cards"], {e["card"]: 1}, -1)

    def _offer_made(self, e: dict[str, Any]) -> None:
        self.v["offers"].append(copy.deepcopy(e["offer"]))

    def _answer(self, e: dict[str, Any], yes: bool) -> None:
        bit = 1 << e["seat"]
        for o in self.v["offers"]:
            if o["id"] == e["offer"]:
                keep, drop = ("accepted", "rejected") if yes else ("rejected", "accepted")
                o[keep] |= bit
                o[drop] &= ~bit

    def _offer_accepted(self, e: dict[str, Any]) -> None:
        self._answer(e, True)

    def _offer_rejected(self, e: dict[str, Any]) -> None:
        self._answer(e, False)

    def _offer_closed(self, e: dict[str, Any]) -> None:
        self.v["offers"] = [o for o in self.v["offers"] if o["id"] != e["offer"]]

    def _trade_completed(self, e: dict[str, Any]) -> None:
        self._cards(e["from"], e["gave"], -1)
        self._cards(e["to"], e["gave"])
        self._cards(e["to"], e["got"], -1)
        self._cards(e["from"], e["got"])

    def _longest_road(self, e: dict[str, Any]) -> None:
        self.v["longest_road"] = e["holder"]
        self._refresh_points()

    def _largest_army(self, e: dict[str, Any]) -> None:
        self.v["largest_army"] = e["holder"]
        self._refresh_points()

    def _game_won(self, e: dict[str, Any]) -> None:
        self.v["winner"] = e["seat"]

    # ----- what follows from them -----------------------------------------------

    def _cards(self, seat: int, cards: dict[str, int], sign: int = 1) -> None:
        self._count(seat, sign * sum(cards.values()))
        me = self.v["me"]
        if me is not None and me["seat"] == seat:
            add_cards(me["hand"], cards, sign)

    def _count(self, seat: int, change: int) -> None:
        p = self.v["players"][seat]
        p["resource_cards"] = max(0, p["resource_cards"] + change)

    def _refresh_pieces(self) -> None:
        occupied = {b["vertex"]: b["seat"] for b in self.v["buildings"]}
        for p in self.v["players"]:
            s = p["seat"]
            mine = [b for b in self.v["buildings"] if b["seat"] == s]
            roads = {r["edge"] for r in self.v["roads"] if r["seat"] == s}
            blocked = {v for v, owner in occupied.items() if owner != s}
            p["road_length"] = self.board.route_length(roads, blocked)
            p["roads_left"] = PIECES["roads_left"] - len(roads)
            p["settlements_left"] = PIECES["settlements_left"] - sum(not b["city"] for b in mine)
            p["cities_left"] = PIECES["cities_left"] - sum(b["city"] for b in mine)
        me = self.v["me"]
        if me is not None:
            me["maritime_ratios"] = self._ratios(me["seat"])
        self._refresh_points()

    def _ratios(self, seat: int) -> list[int]:
        """Maritime ratios per resource (R-9.4): a building on either end of a harbor path."""
        mine = {b["vertex"] for b in self.v["buildings"] if b["seat"] == seat}
        kinds = [h["resource"] for h in self.v["map"]["harbors"] if set(self.board.edge_ends[h["edge"]]) & mine]
        base = 3 if None in kinds else 4
        return [2 if r in kinds else base for r in RESOURCES]

    def _refresh_points(self) -> None:
        for p in self.v["players"]:
            s = p["seat"]
            points = sum(2 if b["city"] else 1 for b in self.v["buildings"] if b["seat"] == s)
            points += 2 * (self.v["longest_road"] == s) + 2 * (self.v["largest_army"] == s)
            p["public_vp"] = points
        me = self.v["me"]
        if me is not None:
            me["total_vp"] = self.v["players"][me["seat"]]["public_vp"] + me["dev_cards"].get("victory_point", 0)
