"""Re-derives every random outcome of a finished game from its revealed seed, by the
procedure of protocol.md section 23, and checks a replay (``GET /api/games/{id}/replay``)
against it: the map, the first player, the development deck, every die, every stolen
card and every time-out choice.

    python -m catan_client.derive REPLAY.json BOARD.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from typing import Any

from .board import Board
from .rng import GameRng

RESOURCES = ["lumber", "brick", "wool", "grain", "ore"]
TERRAIN_BAG = ["forest"] * 4 + ["hills"] * 3 + ["pasture"] * 4 + ["fields"] * 4 + ["mountains"] * 3 + ["desert"]
NUMBER_BAG = [2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10, 10, 11, 11, 12]
HARBOR_BAG: list[str | None] = [None, "grain", "ore", None, "wool", None, None, "brick", "lumber"]
DECK = ["knight"] * 14 + ["road_building"] * 2 + ["year_of_plenty"] * 2 + ["monopoly"] * 2 + ["victory_point"] * 5
_BEGINNER_TERRAIN = "M P W F H P H F W D W M W M F P H F P".split()
_LETTERS = {"M": "mountains", "P": "pasture", "W": "forest", "F": "fields", "H": "hills", "D": "desert"}
BEGINNER_NUMBERS = [10, 2, 9, 12, 6, 4, 10, 9, 11, 0, 3, 8, 8, 3, 4, 5, 5, 6, 11]


class Mismatch(AssertionError):
    """A random outcome in the replay that the seed does not give."""


def commitment(seed: str, salt: str) -> str:
    """The ``seed_commitment`` of a seed and salt: SHA-256 of ``"{seed}:{salt}"``."""
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def deal_map(rng: GameRng, board: Board, kind: str) -> dict[str, Any]:
    """The map as the replay and views show it (R-2.4): a random one draws from ``rng``."""
    if kind == "beginner":
        terrain = [_LETTERS[c] for c in _BEGINNER_TERRAIN]
        numbers, kinds = list(BEGINNER_NUMBERS), list(HARBOR_BAG)
    else:
        terrain = list(TERRAIN_BAG)
        rng.shuffle(terrain)
        while True:
            bag = list(NUMBER_BAG)
            rng.shuffle(bag)
            it = iter(bag)
            numbers = [0 if t == "desert" else next(it) for t in terrain]
            if not _red_neighbors(numbers, board):
                break
        kinds = list(HARBOR_BAG)
        rng.shuffle(kinds)
    harbors = [{"edge": e, "resource": r} for e, r in zip(board.harbor_edges, kinds)]
    return {"terrain": terrain, "numbers": numbers, "harbors": harbors}


def _red_neighbors(numbers: list[int], board: Board) -> bool:
    red = {6, 8}
    return any(
        numbers[t] in red and any(numbers[n] in red for n in board.tile_neighbors[t])
        for t in range(len(numbers))
    )


@dataclass
class Start:
    """What the seed deals before the first action."""

    map: dict[str, Any]
    robber: int
    deck: list[str]
    first: int


def deal_start(rng: GameRng, board: Board, options: dict[str, Any]) -> Start:
    """Map, deck and first player, in the order the game draws them."""
    game_map = deal_map(rng, board, options["map"])
    deck = list(DECK)
    rng.shuffle(deck)
    first = rng.uniform(options["players"])
    return Start(game_map, game_map["terrain"].index("desert"), deck, first)


def nth_card(hand: dict[str, int], k: int) -> str:
    """The ``k``-th card of a hand laid out in resource order."""
    for r in RESOURCES:
        if k < hand.get(r, 0):
            return r
        k -= hand.get(r, 0)
    raise Mismatch(f"no card {k} in {hand}")


@dataclass
class Checked:
    """How many outcomes of each kind were re-derived and found equal."""

    dice: int = 0
    steals: int = 0
    cards_bought: int = 0
    time_outs: int = 0
    discards: int = 0
    words: int = 0
    # Time-outs re-derived by the phase they ended: setup, pre_roll, discard, move_robber...
    time_out_phases: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, int]:
        """For printing."""
        return dict(self.__dict__, time_out_phases=dict(self.time_out_phases))


@dataclass
class _State:
    """The little of the game the draws depend on, kept from unredacted events."""

    players: int
    robber: int
    hands: list[dict[str, int]]
    buildings: dict[int, int] = field(default_factory=dict)
    roads: dict[int, int] = field(default_factory=dict)
    phase: dict[str, Any] = field(default_factory=lambda: {"name": "setup", "index": 0, "settlement": None})

    def give(self, seat: int, cards: dict[str, int], sign: int = 1) -> None:
        for r, n in cards.items():
            self.hands[seat][r] = self.hands[seat].get(r, 0) + sign * n

    def victims(self, board: Board, thief: int, tile: int) -> list[int]:
        corners = set(board.tile_vertices[tile])
        return [
            s for s in range(self.players)
            if s != thief and sum(self.hands[s].values()) > 0
            and any(self.buildings.get(v) == s for v in corners)
        ]

    def apply(self, e: dict[str, Any]) -> None:
        t = e["type"]
        if t in ("settlement_built", "city_built"):
            self.buildings[e["vertex"]] = e["seat"]
        elif t == "road_built":
            self.roads[e["edge"]] = e["seat"]
        elif t in ("paid", "discarded"):
            self.give(e["seat"], e["cards"], -1)
        elif t in ("starting_resources", "produced", "year_of_plenty"):
            self.give(e["seat"], e["cards"])
        elif t == "stolen":
            self.give(e["victim"], {e["resource"]: 1}, -1)
            self.give(e["thief"], {e["resource"]: 1})
        elif t == "monopoly":
            for s, n in enumerate(e["taken"][: self.players]):
                if s != e["seat"]:
                    self.give(s, {e["resource"]: n}, -1)
                    self.give(e["seat"], {e["resource"]: n})
        elif t == "maritime_traded":
            self.give(e["seat"], e["gave"], -1)
            self.give(e["seat"], e["got"])
        elif t == "trade_completed":
            self.give(e["from"], e["gave"], -1)
            self.give(e["to"], e["gave"])
            self.give(e["to"], e["got"], -1)
            self.give(e["from"], e["got"])
        elif t == "robber_moved":
            self.robber = e["tile"]
        elif t == "phase_changed":
            self.phase = e["phase"]


def _expect(what: str, derived: Any, replayed: Any) -> None:
    if derived != replayed:
        raise Mismatch(f"{what}: the seed gives {derived!r}, the replay has {replayed!r}")


def _first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    for e in events:
        if e["type"] == kind:
            return e
    raise Mismatch(f"no {kind} event in {events}")


class Verifier:
    """Walks a replay's actions in order, drawing what each one draws."""

    def __init__(self, replay: dict[str, Any], board: Board) -> None:
        game = replay["game"]
        self.board = board
        self.rng = GameRng(int(game["seed"]))
        self.options = replay["engine_options"]
        self.start = deal_start(self.rng, board, self.options)
        self.deck = list(self.start.deck)
        players = self.options["players"]
        self.state = _State(players, self.start.robber, [{} for _ in range(players)])
        self.checked = Checked()
        _expect("seed_commitment", commitment(game["seed"], game["seed_salt"]), game["seed_commitment"])
        _expect("map", self.start.map, replay["map"])
        _expect("robber_start", self.start.robber, replay["robber_start"])
        _expect("first", self.start.first, replay["first"])
        _expect("seat_order", [(self.start.first + i) % players for i in range(players)], replay["seat_order"])

    def dice(self, events: list[dict[str, Any]]) -> None:
        rolled = [self.rng.inclusive(1, 6), self.rng.inclusive(1, 6)]
        _expect("dice", rolled, _first(events, "dice_rolled")["dice"])
        self.checked.dice += 1

    def steal(self, victim: int, events: list[dict[str, Any]]) -> None:
        hand = self.state.hands[victim]
        card = nth_card(hand, self.rng.uniform(sum(hand.values())))
        _expect("stolen card", card, _first(events, "stolen")["resource"])
        self.checked.steals += 1

    def step(self, step: dict[str, Any]) -> None:
        """Checks one action's random outcomes, then applies its events."""
        action, events = step["action"], step["events"]
        kind = action["type"]
        if kind == "roll_dice":
            self.dice(events)
        elif kind == "move_robber" and action["victim"] is not None:
            self.steal(action["victim"], events)
        elif kind == "time_out":
            self.time_out(events)
        for e in events:
            if e["type"] == "dev_card_bought":
                _expect("card bought", self.deck.pop(), e["card"])
                self.checked.cards_bought += 1
            self.state.apply(e)

    def time_out(self, events: list[dict[str, Any]]) -> None:
        """The default a time-out takes in each phase (protocol.md 23, 16)."""
        st, phase = self.state, self.state.phase
        seat = _first(events, "timed_out")["seat"]
        name = phase["name"]
        self.checked.time_outs += 1
        self.checked.time_out_phases[name] = self.checked.time_out_phases.get(name, 0) + 1
        if name == "setup" and phase["settlement"] is None:
            spots = self.board.distance_ok(set(st.buildings))
            _expect("time-out settlement", spots[self.rng.uniform(len(spots))], _first(events, "settlement_built")["vertex"])
        elif name == "setup":
            free = sorted(e for e in self.board.vertex_edges[phase["settlement"]] if e not in st.roads)
            _expect("time-out road", free[self.rng.uniform(len(free))], _first(events, "road_built")["edge"])
        elif name == "pre_roll":
            self.dice(events)
        elif name == "discard":
            self.discards(phase["pending"], events)
        elif name == "move_robber":
            t = self.rng.uniform(18)
            tile = t + 1 if t >= st.robber else t
            _expect("time-out robber tile", tile, _first(events, "robber_moved")["tile"])
            victims = st.victims(self.board, seat, tile)
            if victims:
                victim = victims[self.rng.uniform(len(victims))]
                _expect("time-out victim", victim, _first(events, "stolen")["victim"])
                self.steal(victim, events)

    def discards(self, pending: list[int], events: list[dict[str, Any]]) -> None:
        done = {e["seat"]: e["cards"] for e in events if e["type"] == "discarded"}
        for s in range(self.state.players):
            if pending[s] == 0:
                continue
            hand, cards = dict(self.state.hands[s]), {}
            for _ in range(pending[s]):
                r = nth_card(hand, self.rng.uniform(sum(hand.values())))
                hand[r] -= 1
                cards[r] = cards.get(r, 0) + 1
            _expect(f"time-out discard of seat {s}", cards, done.get(s))
            self.checked.discards += 1


def verify(replay: dict[str, Any], board: Board) -> Checked:
    """Checks every random outcome of ``replay``; raises :class:`Mismatch` at the first
    one the seed does not give."""
    v = Verifier(replay, board)
    for step in replay["actions"]:
        v.step(step)
    v.checked.words = v.rng.words_used
    return v.checked


def main(argv: list[str] | None = None) -> int:
    """``python -m catan_client.derive REPLAY.json BOARD.json`` (``catan-derive`` once
    installed): prints what was checked."""
    if argv is None:
        argv = sys.argv[1:]
    with open(argv[0]) as f:
        replay = json.load(f)
    with open(argv[1]) as f:
        board = Board.from_json(json.load(f))
    print(json.dumps(verify(replay, board).as_dict()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
