//! Helpers for the rule scenarios: positions edited through [`Position`] (the bank,
//! routes and awards are computed from it, the dice scripted), and assertions that pin
//! down accepted and refused actions.
//!
//! Scenario positions are often not reachable (an empty board after setup), so the
//! edits rebuild the game with `Game::from_position_unchecked`, which derives
//! everything as `Game::from_position` does but skips the final rule check.

use crate::board::{EdgeId, TileId, VERTEX_COUNT, VertexId, VertexMask, topology};
use crate::{
    Action, Actor, DevCard, Event, Game, GameOptions, MapKind, Phase, Position, Resource,
    Resources, Seat,
};

/// Fails a playout loop that goes on too long, with a message, instead of letting the
/// test hang until its time limit: a rule that no longer moves the game on (a turn
/// that never passes, a phase never left) makes `while game.turn() == 0` endless.
pub(crate) struct StepLimit {
    /// What the loop waits for, for the message.
    what: &'static str,
    /// Steps still allowed.
    left: u32,
}

impl StepLimit {
    /// A limit of 200,000 steps: more than a whole game at the highest turn limit
    /// takes.
    pub(crate) fn new(what: &'static str) -> StepLimit {
        StepLimit {
            what,
            left: 200_000,
        }
    }

    /// Counts one step.
    ///
    /// # Panics
    /// When no step is left.
    pub(crate) fn tick(&mut self, game: &Game) {
        self.left = self.left.checked_sub(1).unwrap_or_else(|| {
            panic!(
                "{} did not happen within 200000 steps (turn {}, phase {:?}): a rule no longer moves the game on",
                self.what,
                game.turn(),
                game.phase()
            )
        });
    }
}

/// The seats, in turn order.
pub(crate) const A: Seat = Seat(0);
pub(crate) const B: Seat = Seat(1);
pub(crate) const C: Seat = Seat(2);
pub(crate) const D: Seat = Seat(3);

/// The seed every scenario starts from, unless it is about seeds.
pub(crate) const SEED: u64 = 7;

/// Intersection `n`.
pub(crate) fn v(n: u8) -> VertexId {
    VertexId(n)
}

/// Tile `n`.
pub(crate) fn t(n: u8) -> TileId {
    TileId(n)
}

/// The intersections of `mask` that are on the board, lowest first (a [`Position`]
/// lists pieces by id).
pub(crate) fn vertices(mask: VertexMask) -> Vec<VertexId> {
    (0..VERTEX_COUNT as u8)
        .map(VertexId)
        .filter(|v| mask & v.bit() != 0)
        .collect()
}

/// The path joining intersections `a` and `b`, which must be neighbours.
pub(crate) fn edge(a: u8, b: u8) -> EdgeId {
    topology()
        .edge_between(v(a), v(b))
        .unwrap_or_else(|| panic!("intersections {a} and {b} are not neighbours"))
}

/// A hand: lumber, brick, wool, grain, ore.
pub(crate) fn cards(lumber: u8, brick: u8, wool: u8, grain: u8, ore: u8) -> Resources {
    Resources([lumber, brick, wool, grain, ore])
}

/// `n` cards of one resource.
pub(crate) fn only(r: Resource, n: u8) -> Resources {
    Resources::single(r, n)
}

/// A fresh game on the beginner map, still in setup.
pub(crate) fn new_game(players: u8) -> Game {
    let options = GameOptions {
        players,
        vp_target: 10,
        map: MapKind::Beginner,
        ..GameOptions::default()
    };
    Game::new(options, SEED).expect("valid options")
}

/// Rebuilds `g` from its position after `change`. The awards then follow from
/// their holders before the change (a holder still tied keeps the card).
pub(crate) fn edit(g: &mut Game, change: impl FnOnce(&mut Position)) {
    let mut p = g.to_position();
    change(&mut p);
    *g = Game::from_position_unchecked(p).expect("a position the engine can hold");
    refresh(g);
}

/// A game past setup with an empty board: seat A is to roll, turn 1.
pub(crate) fn pre_roll(players: u8) -> Game {
    let mut g = new_game(players);
    edit(&mut g, |p| {
        p.phase = Phase::PreRoll;
        p.current = A;
        p.first = A;
        p.turn = 1;
    });
    g
}

/// A game past setup with an empty board: seat A's trade-and-build phase, turn 1.
pub(crate) fn main_phase(players: u8) -> Game {
    let mut g = pre_roll(players);
    edit(&mut g, |p| {
        p.phase = Phase::Main;
        p.last_roll = Some([3, 5]);
    });
    g
}

/// Re-decides the awards by after an edit, from the holders the position named
/// (which the rebuilt game keeps as they were).
fn refresh(g: &mut Game) {
    let mut out = Vec::new();
    g.update_longest_road(&mut out);
    g.update_largest_army(&mut out);
}

/// Puts a settlement of `seat` on intersection `n` (no rules checked).
pub(crate) fn settle(g: &mut Game, seat: Seat, n: u8) {
    edit(g, |p| p.seats[seat.index()].settlements.push(v(n)));
}

/// Puts a city of `seat` on intersection `n` (no rules checked).
pub(crate) fn city(g: &mut Game, seat: Seat, n: u8) {
    edit(g, |p| {
        let s = &mut p.seats[seat.index()];
        s.settlements.retain(|&x| x != v(n));
        s.cities.push(v(n));
    });
}

/// Puts roads of `seat` along the intersections of `route`, in order.
pub(crate) fn roads(g: &mut Game, seat: Seat, route: &[u8]) {
    edit(g, |p| {
        let roads = &mut p.seats[seat.index()].roads;
        for w in route.windows(2) {
            if !roads.contains(&edge(w[0], w[1])) {
                roads.push(edge(w[0], w[1]));
            }
        }
    });
}

/// Gives `seat` exactly `hand`; the bank is what the hands do not hold.
pub(crate) fn set_hand(g: &mut Game, seat: Seat, hand: Resources) {
    let mut bank = g.bank();
    bank.add(&g.player(seat).hand);
    assert!(bank.contains(&hand), "the bank cannot pay {hand:?}");
    edit(g, |p| p.seats[seat.index()].hand = hand);
}

/// Gives `seat` a development card bought on an earlier turn (playable now), taking
/// one of that kind out of the deck.
pub(crate) fn give_card(g: &mut Game, seat: Seat, card: DevCard) {
    edit(g, |p| {
        let i = p
            .dev_deck
            .iter()
            .position(|&c| c == card)
            .expect("the deck still holds that kind");
        p.dev_deck.remove(i);
        *p.seats[seat.index()].dev_cards.get_mut(card) += 1;
    });
}

/// Puts a card of kind `card` on top of the deck (the next one bought).
pub(crate) fn stack_deck(g: &mut Game, card: DevCard) {
    edit(g, |p| {
        let i = p
            .dev_deck
            .iter()
            .position(|&c| c == card)
            .expect("the deck still holds that kind");
        let c = p.dev_deck.remove(i);
        p.dev_deck.push(c);
    });
}

/// Scripts the next roll to come out as `sum`, as two dice 1-6.
pub(crate) fn script_roll(g: &mut Game, sum: u8) {
    assert!((2..=12).contains(&sum), "two dice cannot sum to {sum}");
    let first = sum.saturating_sub(1).min(6);
    edit(g, |p| p.scripted_dice.push([first, sum - first]));
}

/// Checks that `legal_actions` lists `action` exactly when `apply` accepts it, for
/// the kinds that are listed in full (not discards and trade terms).
#[track_caller]
fn assert_listed_iff(g: &Game, by: Actor, action: Action, accepted: bool) {
    use crate::ActionKind::{CounterOffer, Discard, OfferTrade};
    if matches!(action.kind(), Discard | OfferTrade | CounterOffer) {
        return;
    }
    let listed = g.legal_actions(by).contains(&action);
    assert_eq!(
        listed, accepted,
        "{action:?} by {by:?}: listed {listed}, accepted {accepted}"
    );
}

/// Applies an action that must be accepted and returns its events.
#[track_caller]
pub(crate) fn ok(g: &mut Game, by: impl Into<Actor>, action: Action) -> Vec<Event> {
    let by = by.into();
    assert_listed_iff(g, by, action, true);
    match g.apply(by, action) {
        Ok(events) => events,
        Err(e) => panic!("{action:?} was refused: {} ({e})", e.code()),
    }
}

/// Applies an action that must be refused with `code`, and checks that the refusal
/// left the game exactly as it was.
#[track_caller]
pub(crate) fn refused(g: &mut Game, by: impl Into<Actor>, action: Action, code: &str) {
    let by = by.into();
    assert_listed_iff(g, by, action, false);
    let before = g.clone();
    match g.apply(by, action) {
        Ok(events) => panic!("{action:?} was accepted: {events:?}"),
        Err(e) => assert_eq!(e.code(), code, "{action:?}"),
    }
    assert_eq!(*g, before, "a refused {action:?} changed the game");
}

/// Places a settlement and its road for whoever is to place in setup.
#[track_caller]
pub(crate) fn place(g: &mut Game, settlement: u8, road_to: u8) -> Seat {
    let seat = g.current();
    ok(
        g,
        seat,
        Action::BuildSettlement {
            vertex: v(settlement),
        },
    );
    ok(
        g,
        seat,
        Action::BuildRoad {
            edge: edge(settlement, road_to),
        },
    );
    seat
}

/// The total of every resource held by the bank and all hands: 19 each, always.
pub(crate) fn assert_cards_conserved(g: &Game) {
    let mut all = g.bank();
    for seat in g.seats() {
        all.add(&g.player(seat).hand);
    }
    assert_eq!(all, Resources::splat(crate::BANK_PER_RESOURCE));
}

/// Whether `events` holds an event matching `pred`.
pub(crate) fn has(events: &[Event], pred: impl Fn(&Event) -> bool) -> bool {
    events.iter().any(pred)
}
