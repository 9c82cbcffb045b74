//! The turn limit (R-10.5): every game ends, with no winner once the last allowed turn
//! ends without one; a win on that turn is still a win.

use super::support::{
    A, B, cards, city, edit, main_phase, ok, refused, roads, script_roll, set_hand, settle, v,
};
use crate::playout::RandomPlayer;
use crate::{
    Action, Actor, DEFAULT_TURN_LIMIT, Event, FinalScore, Game, GameOptions, MapKind, Phase,
    Position, TURN_LIMIT_MAX, TURN_LIMIT_MIN,
};

/// Seat A's trade-and-build phase of turn `turn` in a game limited to `limit` turns.
fn main_phase_at(turn: u32, limit: u16) -> Game {
    let mut g = main_phase(4);
    edit(&mut g, |p| {
        p.options.turn_limit = limit;
        p.turn = turn;
    });
    g
}

/// Whether `events` end the game at the turn limit: `turn_limit_reached` and then the
/// `over` phase with no winner, as the last two events.
fn ends_without_a_winner(events: &[Event], turn: u32) -> bool {
    events.ends_with(&[
        Event::TurnLimitReached { turn },
        Event::PhaseChanged {
            phase: Phase::Over { winner: None },
        },
    ])
}

/// Nothing is legal or accepted any more, for anyone.
#[track_caller]
fn assert_nothing_more(g: &mut Game) {
    for seat in g.seats().collect::<Vec<_>>() {
        assert!(g.legal_actions(seat).is_empty(), "{seat}");
        refused(g, seat, Action::EndTurn, "game_over");
        refused(g, seat, Action::RollDice, "game_over");
    }
    assert!(g.legal_actions(Actor::System).is_empty());
    refused(g, Actor::System, Action::TimeOut, "game_over");
}

#[test]
fn the_game_ends_with_no_winner_when_the_last_allowed_turn_ends_not_a_turn_early() {
    // R-10.5: with a limit of 100, turn 99 ends into turn 100, which is played; the
    // end of turn 100 ends the game.
    let mut g = main_phase_at(99, 100);
    let events = ok(&mut g, A, Action::EndTurn);
    assert!(events.contains(&Event::TurnStarted { seat: B, turn: 100 }));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::TurnLimitReached { .. }))
    );
    assert_eq!((g.current(), g.turn(), g.phase()), (B, 100, Phase::PreRoll));
    assert!(!g.is_over());
    // The last turn is played in full.
    script_roll(&mut g, 6);
    ok(&mut g, B, Action::RollDice);
    let before = g.final_scores();
    let events = ok(&mut g, B, Action::EndTurn);
    assert!(ends_without_a_winner(&events, 100), "{events:?}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::TurnStarted { .. }))
    );
    // Over, nobody won, and the scores stand as they were; no turn 101.
    assert_eq!(g.phase(), Phase::Over { winner: None });
    assert!(g.is_over());
    assert_eq!(g.winner(), None);
    assert_eq!((g.current(), g.turn()), (B, 100));
    assert_eq!(g.final_scores(), before);
    assert_nothing_more(&mut g);
}

#[test]
fn a_time_out_that_ends_the_last_turn_ends_the_game_with_no_winner() {
    // R-10.5, R-4.5: the timer ends the last turn as the player would have.
    let mut g = main_phase_at(1000, DEFAULT_TURN_LIMIT);
    let events = ok(&mut g, Actor::System, Action::TimeOut);
    assert_eq!(events[0], Event::TimedOut { seat: A });
    assert!(ends_without_a_winner(&events, 1000), "{events:?}");
    assert_eq!(g.phase(), Phase::Over { winner: None });
    assert_nothing_more(&mut g);
}

#[test]
fn open_offers_close_with_the_last_turn() {
    // R-10.5, R-4.4: the offers close as the turn ends, then the game does.
    let mut g = main_phase_at(100, 100);
    set_hand(&mut g, A, cards(1, 0, 0, 0, 0));
    ok(
        &mut g,
        A,
        Action::OfferTrade {
            to: None,
            give: cards(1, 0, 0, 0, 0),
            get: cards(0, 1, 0, 0, 0),
        },
    );
    let events = ok(&mut g, A, Action::EndTurn);
    assert!(matches!(
        events[0],
        Event::OfferClosed {
            reason: crate::OfferClosed::TurnEnded,
            ..
        }
    ));
    assert!(ends_without_a_winner(&events, 100));
    assert!(g.offers().is_empty());
}

#[test]
fn a_win_on_the_last_allowed_turn_is_still_a_win() {
    // R-10.5, R-10.4, R-1.1: 9 points, and the 10th built on the last turn.
    let mut g = main_phase_at(100, 100);
    for n in [19, 0, 53, 27] {
        settle(&mut g, A, n);
        city(&mut g, A, n);
    }
    settle(&mut g, A, 46);
    roads(&mut g, A, &[46, 42, 37]);
    set_hand(&mut g, A, cards(1, 1, 1, 1, 0));
    let events = ok(&mut g, A, Action::BuildSettlement { vertex: v(37) });
    assert!(events.contains(&Event::GameWon {
        seat: A,
        points: 10
    }));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::TurnLimitReached { .. }))
    );
    assert_eq!(g.phase(), Phase::Over { winner: Some(A) });
    assert_eq!(g.winner(), Some(A));
    assert!(g.is_over());
    assert_nothing_more(&mut g);
}

#[test]
fn a_turn_limit_outside_one_hundred_to_five_thousand_is_refused() {
    // R-10.5
    let with = |turn_limit| {
        Game::new(
            GameOptions {
                turn_limit,
                ..GameOptions::default()
            },
            1,
        )
        .map(|_| ())
        .map_err(|e| e.code())
    };
    assert_eq!(with(0), Err("invalid_turn_limit"));
    assert_eq!(with(TURN_LIMIT_MIN - 1), Err("invalid_turn_limit"));
    assert_eq!(with(TURN_LIMIT_MAX + 1), Err("invalid_turn_limit"));
    assert_eq!(with(u16::MAX), Err("invalid_turn_limit"));
    assert_eq!(with(TURN_LIMIT_MIN), Ok(()));
    assert_eq!(with(TURN_LIMIT_MAX), Ok(()));
    assert_eq!((TURN_LIMIT_MIN, TURN_LIMIT_MAX), (100, 5000));
    assert_eq!(GameOptions::default().turn_limit, 1000);
    assert_eq!(DEFAULT_TURN_LIMIT, 1000);
    let e = GameOptions {
        turn_limit: 99,
        ..GameOptions::default()
    }
    .validate()
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the turn limit must be between 100 and 5000, not 99"
    );
}

#[test]
fn options_and_positions_written_before_the_turn_limit_read_with_the_default() {
    // R-10.5: the field came later; a missing one is the default.
    let o: GameOptions =
        serde_json::from_str(r#"{"players":3,"vp_target":8,"map":"beginner"}"#).unwrap();
    assert_eq!(o.turn_limit, DEFAULT_TURN_LIMIT);
    assert_eq!(
        serde_json::to_value(GameOptions::default()).unwrap(),
        serde_json::json!({"players": 4, "vp_target": 10, "map": "random", "turn_limit": 1000})
    );
    // And the no-winner end on the wire: `winner: null`.
    assert_eq!(
        serde_json::to_value(Phase::Over { winner: None }).unwrap(),
        serde_json::json!({"name": "over", "winner": null})
    );
    assert_eq!(
        serde_json::to_value(Event::TurnLimitReached { turn: 1000 }).unwrap(),
        serde_json::json!({"type": "turn_limit_reached", "turn": 1000})
    );
}

/// A random game just after setup, limited to `limit` turns, as a position.
fn after_setup(limit: u16) -> Position {
    let options = GameOptions {
        map: MapKind::Random,
        turn_limit: limit,
        ..GameOptions::default()
    };
    let mut game = Game::new(options, 3).unwrap();
    let mut player = RandomPlayer::new(3);
    let mut limit = crate::tests::support::StepLimit::new("the end of setup");
    while game.turn() == 0 {
        limit.tick(&game);
        player.step(&mut game, &mut Vec::new()).unwrap();
    }
    game.to_position()
}

#[test]
fn a_position_over_with_no_winner_is_accepted_only_once_the_limit_is_reached() {
    // R-10.5: `over` with no winner at the limit is a legal position; before it, not.
    let mut p = after_setup(100);
    p.phase = Phase::Over { winner: None };
    p.turn = 100;
    let game = Game::from_position(p.clone()).unwrap();
    assert!(game.is_over() && game.winner().is_none());
    p.turn = 99;
    let e = Game::from_position(p.clone()).unwrap_err();
    assert_eq!(e.code(), "ended_before_turn_limit");
    assert!(e.to_string().starts_with("R-10.5: "), "{e}");
    // Out of range in a position: refused as options.
    p.turn = 100;
    p.options.turn_limit = 99;
    assert_eq!(
        Game::from_position(p).unwrap_err().code(),
        "invalid_options"
    );
}

#[test]
fn a_game_saved_past_its_turn_limit_ends_with_the_turn_being_played() {
    // R-10.5: a game saved before the limit existed may be past the default; it loads
    // and ends when its current turn does.
    let mut p = after_setup(DEFAULT_TURN_LIMIT);
    p.turn = 1500;
    let mut g = Game::from_position(p).unwrap();
    let seat = g.current();
    ok(&mut g, seat, Action::RollDice);
    while matches!(g.phase(), Phase::Discard { .. } | Phase::MoveRobber { .. }) {
        ok(&mut g, Actor::System, Action::TimeOut);
    }
    let events = ok(&mut g, seat, Action::EndTurn);
    assert!(ends_without_a_winner(&events, 1500), "{events:?}");
    assert_eq!(crate::invariants::check(&g), Ok(()));
}

#[test]
fn the_final_scores_of_a_game_without_a_winner_are_everyones_total() {
    // R-10.5, R-1.3: the scores stand as they are, hidden VP cards revealed.
    let mut g = main_phase_at(100, 100);
    settle(&mut g, A, 19);
    city(&mut g, A, 19);
    settle(&mut g, B, 0);
    super::support::give_card(&mut g, B, crate::DevCard::VictoryPoint);
    ok(&mut g, A, Action::EndTurn);
    assert_eq!(
        &g.final_scores()[..2],
        &[
            FinalScore {
                seat: A,
                points: 2,
                vp_cards: 0
            },
            FinalScore {
                seat: B,
                points: 2,
                vp_cards: 1
            },
        ]
    );
}
