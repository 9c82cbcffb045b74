//! Whole games through the arena: every decision of every bot must be accepted by
//! the engine, the medium level must clearly beat random-legal play and the easy
//! level, and games between trading bots complete player trades.

use catan_bots::arena::{self, Tally, seating};
use catan_bots::{BotKind, Budget, RandomBot, SearchBot, Strategy};
use catan_engine::{Action, Game, GameOptions, MapKind, Phase, Resources};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const H: BotKind = BotKind::Medium;
const E: BotKind = BotKind::Easy;
const R: BotKind = BotKind::Random;

fn options(players: u8, map: MapKind) -> GameOptions {
    GameOptions::default()
        .with_players(players)
        .with_vp_target(10)
        .with_map(map)
}

fn assert_clean(tally: &Tally) {
    assert!(
        tally.errors.is_empty(),
        "refused or stuck: {:?}",
        tally.errors
    );
    assert_eq!(tally.finished(), tally.games);
}

#[test]
fn one_heuristic_bot_wins_at_least_85_percent_of_200_games_against_three_random_bots() {
    // the lineup rotates, so the heuristic bot sits in every seat 50 times.
    let lineup = [H, R, R, R];
    let tally = arena::run(&lineup, options(4, MapKind::Random), 7, 0..200);
    assert_clean(&tally);
    let share = tally.share(&lineup, H);
    assert!(share >= 0.85, "heuristic won only {:.1}%", 100.0 * share);
}

#[test]
fn every_decision_of_four_heuristic_bots_is_legal_and_every_game_ends() {
    let lineup = [H, H, H, H];
    let tally = arena::run(&lineup, options(4, MapKind::Random), 11, 0..40);
    assert_clean(&tally);
    // Equal bots: no entry wins everything.
    assert!(tally.wins.iter().all(|&w| w < 30), "wins {:?}", tally.wins);
}

#[test]
fn every_decision_is_legal_in_three_player_games_on_both_maps() {
    // three seats.
    for map in [MapKind::Random, MapKind::Beginner] {
        let tally = arena::run(&[H, R, H], options(3, map), 3, 0..30);
        assert_clean(&tally);
    }
}

#[test]
fn random_bots_only_also_finish_their_games() {
    let tally = arena::run(&[R, R, R, R], options(4, MapKind::Random), 5, 0..10);
    assert_clean(&tally);
}

#[test]
fn games_nobody_wins_end_at_the_turn_limit_and_count_as_finished_without_a_winner() {
    // random bots do not reach 20 points in 100 turns.
    let options = GameOptions::default()
        .with_vp_target(20)
        .with_turn_limit(catan_engine::TURN_LIMIT_MIN);
    let tally = arena::run(&[R, R, R, R], options, 5, 0..6);
    assert_clean(&tally);
    assert_eq!((tally.won(), tally.no_winner), (0, 6));
    assert_eq!(tally.turns, 6 * 100, "each ended with turn 100");
    assert_eq!(tally.share(&[R, R, R, R], R), 0.0);
    let mut game = Game::new(options, 9).unwrap();
    let mut bots: Vec<_> = [R; 4].iter().map(|&k| catan_bots::strategy(k)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let o = arena::play(&mut game, &mut bots, &mut rng).expect("ends");
    assert_eq!((o.winner, o.turns), (None, 100));
    assert!(game.is_over());
}

#[test]
fn the_lineup_rotates_through_every_seat() {
    let mut seen = [[false; 4]; 4];
    for i in 0..4 {
        for (seat, entry) in seating(4, i).into_iter().enumerate() {
            seen[entry][seat] = true;
        }
    }
    assert!(seen.iter().flatten().all(|&s| s));
}

#[test]
fn the_random_bot_discards_exactly_the_owed_cards_from_its_own_hand() {
    //
    let game = Game::new(GameOptions::default(), 1).unwrap();
    let mut view = game.view(Some(game.current()));
    let hand = Resources([3, 0, 2, 2, 1]);
    view.me.as_mut().unwrap().hand = hand;
    view.phase = Phase::Discard { pending: [4; 4] };
    let legal = [Action::Discard {
        cards: Resources([3, 0, 1, 0, 0]),
    }];
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for _ in 0..50 {
        let Action::Discard { cards } = RandomBot::new().choose(&view, &legal, &mut rng) else {
            panic!("a discard is due");
        };
        assert_eq!(cards.total(), 4);
        assert!(hand.contains(&cards));
    }
}

#[test]
fn a_run_is_the_same_whatever_way_its_games_are_split() {
    let lineup = [H, R, R, R];
    let whole = arena::run(&lineup, options(4, MapKind::Random), 2, 0..12);
    let mut parts = arena::run(&lineup, options(4, MapKind::Random), 2, 0..5);
    parts.merge(arena::run(&lineup, options(4, MapKind::Random), 2, 5..12));
    assert_eq!(whole, parts);
}

#[test]
fn the_medium_level_wins_most_games_against_three_easy_bots_and_trades() {
    // the levels are ordered, and the medium bots' offers are answered
    // and completed.
    let lineup = [H, E, E, E];
    let tally = arena::run(&lineup, options(4, MapKind::Random), 3, 0..200);
    assert_clean(&tally);
    let share = tally.share(&lineup, H);
    assert!(share >= 0.6, "medium won only {:.1}%", 100.0 * share);
    assert!(
        tally.trades >= 100,
        "only {} player trades in 200 games",
        tally.trades
    );
}

#[test]
fn games_of_four_medium_bots_finish_with_player_trades() {
    // offers are made, answered (the arena asks every recipient) and
    // confirmed, and every such game still ends.
    let tally = arena::run(&[H, H, H, H], options(4, MapKind::Random), 4, 0..20);
    assert_clean(&tally);
    assert!(tally.trades >= 20, "{} trades in 20 games", tally.trades);
}

#[test]
fn every_decision_of_a_hard_bot_is_legal() {
    // The search with a small playout cap and no clock, so the run is quick and
    // reproducible.
    let make = |k: BotKind| -> Box<dyn Strategy + Send> {
        match k {
            // Few whole-game playouts: they are slow in a debug build.
            BotKind::Hard => Box::new(SearchBot::new(Budget::playouts(8))),
            k => catan_bots::strategy(k),
        }
    };
    let lineup = [BotKind::Hard, H, E, R];
    let a = arena::run_with(&lineup, options(4, MapKind::Random), 6, 0..3, &make);
    assert_clean(&a);
    let b = arena::run_with(&lineup, options(4, MapKind::Random), 6, 0..3, &make);
    assert_eq!(a, b, "no clock: the same games");
}
