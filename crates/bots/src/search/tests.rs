//! The hard level decides from its view alone, and its determinizations agree with
//! that view.

use catan_engine::{Action, Actor, Event, Game, GameOptions, GameView, Phase, Resources, Seat};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{Budget, Known, SearchBot, determinize};
use crate::arena;
use crate::{Level, Strategy};

/// A game of medium bots played until seat `current` may build in turn `turn` or
/// later.
fn midgame(seed: u64, turn: u32) -> Game {
    medium_until(seed, |g| {
        g.turn() >= turn && g.phase() == Phase::Main && g.offers().is_empty()
    })
    .unwrap_or_else(|| panic!("seed {seed} ended before turn {turn}"))
}

/// `game` with what `me` cannot see changed: the opponents' hands dealt again with
/// the same counts (rotated among the cards they hold), the deck reversed and
/// another seed for the dice.
fn hidden_changed(game: &Game, me: Seat) -> Game {
    let mut p = game.to_position();
    let others: Vec<usize> = (0..p.seats.len()).filter(|&i| i != me.index()).collect();
    let mut cards: Vec<catan_engine::Resource> = Vec::new();
    for &i in &others {
        for r in catan_engine::Resource::ALL {
            cards.extend(std::iter::repeat_n(r, usize::from(p.seats[i].hand.get(r))));
        }
    }
    let half = cards.len() / 2;
    cards.rotate_left(half);
    for &i in &others {
        let n = p.seats[i].hand.total();
        p.seats[i].hand = catan_engine::Resources::ZERO;
        for _ in 0..n {
            let r = cards.pop().unwrap();
            *p.seats[i].hand.get_mut(r) += 1;
        }
    }
    p.dev_deck.reverse();
    p.seed ^= 0xDEAD_BEEF;
    Game::from_position(p).unwrap()
}

fn choice(view: &GameView, legal: &[Action]) -> Action {
    choice_within(view, legal, Budget::playouts(16))
}

fn choice_within(view: &GameView, legal: &[Action], budget: Budget) -> Action {
    let mut bot = SearchBot::new(budget);
    bot.choose(view, legal, &mut ChaCha8Rng::seed_from_u64(3))
}

/// Whole-game playouts are slow in a debug build: few of them.
const SETUP_BUDGET: Budget = Budget {
    setup_playouts: 16,
    ..Budget::playouts(16)
};

#[test]
fn games_differing_only_in_what_the_seat_cannot_see_give_it_the_same_input_and_choice() {
    for seed in [1, 2, 3] {
        let a = midgame(seed, 12);
        let me = a.current();
        let b = hidden_changed(&a, me);
        assert_ne!(a, b, "seed {seed}: the hidden information differs");
        let (va, vb) = (a.view(Some(me)), b.view(Some(me)));
        assert_eq!(va, vb, "seed {seed}: the same view");
        let (la, lb) = (a.legal_actions(me), b.legal_actions(me));
        assert_eq!(la, lb);
        let pick = choice(&va, &la);
        assert_eq!(pick, choice(&vb, &lb));
        // Legal (an offer is of the bot's own terms, so the engine is the judge).
        let mut played = a.clone();
        played
            .apply(Actor::Seat(me), pick)
            .unwrap_or_else(|e| panic!("seed {seed}: {pick:?} refused: {e}"));
    }
}

#[test]
fn every_determinization_shows_the_seat_exactly_its_view() {
    // Counts, bank, own cards, pieces, awards, phase: a draw changes only what the
    // view hides, and the opponents' hands and cards are what the bank and the
    // counts leave.
    let game = midgame(4, 20);
    for seat in game.seats() {
        let view = game.view(Some(seat));
        let mut rng = ChaCha8Rng::seed_from_u64(u64::from(seat.0));
        let mut differs = false;
        for _ in 0..20 {
            let d = determinize(&view, &Known::new(), &mut rng).expect("a valid draw");
            assert_eq!(d.view(Some(seat)), view);
            differs |= d
                .seats()
                .any(|s| s != seat && d.player(s).hand != game.player(s).hand);
        }
        assert!(differs, "the hidden hands are drawn, not copied");
    }
}

/// A game of medium bots played until `placements` setup placements are done
/// the next seat is to place a settlement.
fn in_setup(seed: u64, placements: u8) -> Game {
    medium_until(seed, |g| {
        g.phase()
            == Phase::Setup {
                index: placements,
                settlement: None,
            }
    })
    .expect("the setup comes before the end")
}

#[test]
fn setup_determinizations_follow_the_snake_order_and_show_the_view() {
    // the first seat is not in the view; it follows from the placement index
    // and the current seat, so a draw at every placement is a valid game.
    for placements in 0..8 {
        let game = in_setup(5 + u64::from(placements), placements);
        let me = game.current();
        let view = game.view(Some(me));
        let d = determinize(&view, &Known::new(), &mut ChaCha8Rng::seed_from_u64(9))
            .expect("a valid draw");
        assert_eq!(d.view(Some(me)), view, "placement {placements}");
        assert_eq!(d.current(), me);
    }
}

#[test]
fn setup_placements_are_searched_from_the_view_alone() {
    // The first and the second settlement and their roads: a legal choice,
    // the same one when only the hidden deck and dice differ.
    for placements in [1, 6] {
        let mut a = in_setup(3, placements);
        let me = a.current();
        let mut p = a.to_position();
        p.dev_deck.reverse();
        p.seed ^= 0xDEAD_BEEF;
        let b = Game::from_position(p).unwrap();
        assert_ne!(a, b);
        let (va, vb) = (a.view(Some(me)), b.view(Some(me)));
        assert_eq!(va, vb);
        let legal = a.legal_actions(me);
        let pick = choice_within(&va, &legal, SETUP_BUDGET);
        assert!(matches!(pick, Action::BuildSettlement { .. }), "{pick:?}");
        assert!(legal.contains(&pick));
        assert_eq!(pick, choice_within(&vb, &legal, SETUP_BUDGET));
        // Its road, on both games.
        let mut b = b;
        a.apply(Actor::Seat(me), pick).unwrap();
        b.apply(Actor::Seat(me), pick).unwrap();
        let (va, vb) = (a.view(Some(me)), b.view(Some(me)));
        assert_eq!(va, vb);
        let legal = a.legal_actions(me);
        let road = choice_within(&va, &legal, SETUP_BUDGET);
        assert!(matches!(road, Action::BuildRoad { .. }), "{road:?}");
        assert!(legal.contains(&road));
        assert_eq!(road, choice_within(&vb, &legal, SETUP_BUDGET));
    }
}

/// Plays a game of medium bots from its start, every seat counting cards from the
/// events it receives; `check` sees the game, each seat's [`Known`] and the events
/// of every step.
fn counted(seed: u64, mut check: impl FnMut(&Game, &[Known], &[Event])) {
    let mut game = Game::new(GameOptions::default(), seed).unwrap();
    let mut bots: Vec<Box<dyn Strategy + Send>> = (0..4)
        .map(|_| Box::new(crate::HeuristicBot::at(Level::Medium)) as Box<dyn Strategy + Send>)
        .collect();
    let mut known = vec![Known::new(); 4];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut legal, mut events) = (Vec::new(), Vec::new());
    while !game.is_over() {
        arena::step(&mut game, &mut bots, &mut rng, &mut legal, &mut events).unwrap();
        for e in &events {
            for (seat, k) in game.seats().zip(known.iter_mut()) {
                k.observe(&e.redact_for(Some(seat)));
            }
        }
        check(&game, &known, &events);
    }
}

#[test]
fn counted_cards_are_always_held_and_exact_after_the_setup() {
    // Every card move is public but a steal between others, so what a seat
    // counts is a lower bound of each hand at every step, and the whole hand while no
    // steal has hidden a card: through the setup and up to the first 7.
    for seed in [11, 12] {
        let (mut steps, mut exact_after_setup, mut certain, mut held) = (0, 0, 0u64, 0u64);
        let mut hidden_steal = false;
        counted(seed, |game, known, events| {
            hidden_steal |= events.iter().any(|e| matches!(e, Event::Stolen { .. }));
            for viewer in game.seats() {
                let view = game.view(Some(viewer));
                for s in game.seats().filter(|&s| s != viewer) {
                    let sure = known[viewer.index()].hand(&view, s);
                    let hand = game.player(s).hand;
                    assert!(
                        hand.contains(&sure),
                        "seed {seed}: {viewer} is sure {s} holds {sure:?}, it holds {hand:?}"
                    );
                    certain += u64::from(sure.total());
                    held += u64::from(hand.total());
                    if !hidden_steal {
                        assert_eq!(sure, hand, "seed {seed}: nothing hidden yet");
                        if game.turn() >= 1 {
                            exact_after_setup += 1;
                        }
                    }
                }
            }
            steps += 1;
        });
        assert!(
            steps > 100 && exact_after_setup > 0,
            "seed {seed}: {steps} steps"
        );
        // Steals hide little: most cards in opponents' hands are known.
        assert!(
            certain * 2 > held,
            "seed {seed}: {certain} of {held} cards certain"
        );
    }
}

#[test]
fn a_card_stolen_from_the_seat_is_in_the_thief_hand_of_every_determinization() {
    // The victim sees which card was taken: the thief holds it in every
    // draw of the victim's view, where without counting it would be dealt at random.
    let mut seen = 0u32;
    counted(13, |game, known, events| {
        for e in events {
            let Event::Stolen {
                thief,
                victim,
                resource: Some(r),
            } = *e
            else {
                continue;
            };
            let view = game.view(Some(victim));
            let mut rng = ChaCha8Rng::seed_from_u64(u64::from(seen));
            let card = Resources::single(r, 1);
            for _ in 0..10 {
                let d = determinize(&view, &known[victim.index()], &mut rng).expect("a draw");
                assert_eq!(d.view(Some(victim)), view);
                assert!(
                    d.player(thief).hand.contains(&card),
                    "{thief} holds the {r:?}"
                );
                for s in game.seats().filter(|&s| s != victim) {
                    let sure = known[victim.index()].hand(&view, s);
                    assert!(d.player(s).hand.contains(&sure));
                }
            }
            seen += 1;
        }
    });
    assert!(seen > 0, "the game had a steal");
}

/// A game of medium bots played until `found` accepts the game at a decision of
/// its current seat (or the game ends: `None`).
fn medium_until(seed: u64, found: impl Fn(&Game) -> bool) -> Option<Game> {
    let mut game = Game::new(GameOptions::default(), seed).unwrap();
    let mut bots: Vec<Box<dyn Strategy + Send>> = (0..4)
        .map(|_| Box::new(crate::HeuristicBot::at(Level::Medium)) as Box<dyn Strategy + Send>)
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut legal, mut events) = (Vec::new(), Vec::new());
    while !game.is_over() {
        if found(&game) {
            return Some(game);
        }
        arena::step(&mut game, &mut bots, &mut rng, &mut legal, &mut events).unwrap();
    }
    None
}

#[test]
fn the_turn_search_asks_only_where_a_place_is_chosen_with_the_medium_choice_first() {
    // a robber move is searched among the medium level's best few.
    let game = medium_until(21, |g| matches!(g.phase(), Phase::MoveRobber { .. })).unwrap();
    let me = game.current();
    let view = game.view(Some(me));
    let legal = game.legal_actions(me);
    let medium = crate::HeuristicBot::at(Level::Medium).choose(
        &view,
        &legal,
        &mut ChaCha8Rng::seed_from_u64(1),
    );
    let c = super::turn::candidates(&view, me, &legal, medium);
    assert_eq!(c[0], medium);
    assert!(
        c.len() >= 2 && c.len() <= super::turn::MAX_CANDIDATES,
        "{c:?}"
    );
    assert!(
        c.iter()
            .all(|a| matches!(a, Action::MoveRobber { .. }) && legal.contains(a))
    );
    // What to build is the medium level's: a road is searched among roads only, an
    // end of the turn or a trade step not at all.
    let game = medium_until(22, |g| {
        g.phase() == Phase::Main
            && g.legal_actions(g.current())
                .iter()
                .filter(|a| matches!(a, Action::BuildRoad { .. }))
                .count()
                >= 2
    })
    .unwrap();
    let me = game.current();
    let view = game.view(Some(me));
    let legal = game.legal_actions(me);
    let road = *legal
        .iter()
        .find(|a| matches!(a, Action::BuildRoad { .. }))
        .unwrap();
    let c = super::turn::candidates(&view, me, &legal, road);
    assert_eq!(c[0], road);
    assert!(c.len() >= 2 && c.iter().all(|a| matches!(a, Action::BuildRoad { .. })));
    assert_eq!(
        super::turn::candidates(&view, me, &legal, Action::EndTurn),
        vec![Action::EndTurn]
    );
}

#[test]
fn a_searched_robber_move_is_legal_and_the_same_when_only_hidden_cards_differ() {
    // the robber decision is searched with whole games from the view alone.
    for seed in [31, 32] {
        let a = medium_until(seed, |g| matches!(g.phase(), Phase::MoveRobber { .. })).unwrap();
        let me = a.current();
        let b = hidden_changed(&a, me);
        let (va, vb) = (a.view(Some(me)), b.view(Some(me)));
        assert_eq!(va, vb);
        let legal = a.legal_actions(me);
        let pick = choice_within(&va, &legal, Budget::playouts(12));
        assert!(matches!(pick, Action::MoveRobber { .. }) && legal.contains(&pick));
        assert_eq!(pick, choice_within(&vb, &legal, Budget::playouts(12)));
    }
}
