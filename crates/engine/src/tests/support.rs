//! Helpers for the rule scenarios: positions built by writing the game's fields
//! directly, and assertions that pin down accepted and refused actions.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::board::{EdgeId, TileId, VertexId, topology};
use crate::{
    Action, Actor, DevCard, Event, Game, GameOptions, MapKind, Phase, Resource, Resources, Seat,
};

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
    };
    Game::new(options, SEED).expect("valid options")
}

/// A game past setup with an empty board: seat A is to roll, turn 1.
pub(crate) fn pre_roll(players: u8) -> Game {
    let mut g = new_game(players);
    g.phase = Phase::PreRoll;
    g.current = A;
    g.first = A;
    g.turn = 1;
    g
}

/// A game past setup with an empty board: seat A's trade-and-build phase, turn 1.
pub(crate) fn main_phase(players: u8) -> Game {
    let mut g = pre_roll(players);
    g.phase = Phase::Main;
    g.last_roll = Some([3, 5]);
    g
}

/// Recomputes routes and awards after pieces were written directly.
pub(crate) fn refresh(g: &mut Game) {
    let mut out = Vec::new();
    g.update_longest_road(&mut out);
    g.update_largest_army(&mut out);
}

/// Puts a settlement of `seat` on intersection `n` (no rules checked).
pub(crate) fn settle(g: &mut Game, seat: Seat, n: u8) {
    g.players[seat.index()].settlements |= v(n).bit();
    refresh(g);
}

/// Puts a city of `seat` on intersection `n` (no rules checked).
pub(crate) fn city(g: &mut Game, seat: Seat, n: u8) {
    let p = &mut g.players[seat.index()];
    p.settlements &= !v(n).bit();
    p.cities |= v(n).bit();
    refresh(g);
}

/// Puts roads of `seat` along the intersections of `route`, in order.
pub(crate) fn roads(g: &mut Game, seat: Seat, route: &[u8]) {
    for w in route.windows(2) {
        g.players[seat.index()].roads |= edge(w[0], w[1]).bit();
    }
    refresh(g);
}

/// Gives `seat` exactly `hand`, moving cards between the hand and the bank so that
/// every resource still adds up to 19.
pub(crate) fn set_hand(g: &mut Game, seat: Seat, hand: Resources) {
    let old = g.players[seat.index()].hand;
    g.bank.add(&old);
    assert!(g.bank.contains(&hand), "the bank cannot pay {hand:?}");
    g.bank.sub(&hand);
    g.players[seat.index()].hand = hand;
}

/// Gives `seat` a development card bought on an earlier turn (playable now), taking
/// one of that kind out of the deck.
pub(crate) fn give_card(g: &mut Game, seat: Seat, card: DevCard) {
    let i = g
        .dev_deck
        .iter()
        .position(|&c| c == card)
        .expect("the deck still holds that kind");
    g.dev_deck.remove(i);
    *g.players[seat.index()].dev_cards.get_mut(card) += 1;
}

/// Puts a card of kind `card` on top of the deck (the next one bought).
pub(crate) fn stack_deck(g: &mut Game, card: DevCard) {
    let i = g
        .dev_deck
        .iter()
        .position(|&c| c == card)
        .expect("the deck still holds that kind");
    let c = g.dev_deck.remove(i);
    g.dev_deck.push(c);
}

/// Makes the next roll of the current player come out as `sum` by reseeding the
/// game's RNG with the first seed that rolls it. The game must be before the roll.
pub(crate) fn rig_dice(g: &mut Game, sum: u8) {
    for k in 0..10_000 {
        let mut probe = g.clone();
        probe.rng = ChaCha8Rng::seed_from_u64(k);
        let seat = probe.current;
        if probe.apply(seat, Action::RollDice).is_ok()
            && probe.last_roll.map(|[a, b]| a + b) == Some(sum)
        {
            g.rng = ChaCha8Rng::seed_from_u64(k);
            return;
        }
    }
    panic!("no seed rolls {sum}");
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
    let seat = g.current;
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
    let mut all = g.bank;
    for p in &g.players {
        all.add(&p.hand);
    }
    assert_eq!(all, Resources::splat(crate::BANK_PER_RESOURCE));
}

/// Whether `events` holds an event matching `pred`.
pub(crate) fn has(events: &[Event], pred: impl Fn(&Event) -> bool) -> bool {
    events.iter().any(pred)
}
