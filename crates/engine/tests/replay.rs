//! Replaying a log ([`Replay`]): the game, the events and the game after each action
//! are those of the play that wrote the log; a refusal names the action's index; a log
//! older than the turn limit ends at the limit.

mod common;

use catan_engine::{
    Action, ActionError, Actor, Event, Game, GameOptions, Replay, ReplayError, TURN_LIMIT_MIN,
};
use common::{RandomPlayer, Style};

/// A played game: the log, the events of each action and the game after each action.
struct Played {
    /// The game as it started.
    start: Game,
    /// Every action, in order.
    log: Vec<(Actor, Action)>,
    /// The events of each action.
    events: Vec<Vec<Event>>,
    /// The game after each action.
    after: Vec<Game>,
}

/// Plays a game of `options` from `seed` with every kind of action (player trades,
/// time-outs, offer expiries), until it is over or `actions` were played.
fn play(options: GameOptions, seed: u64, actions: usize) -> Played {
    let start = Game::new(options, seed).unwrap();
    let mut game = start.clone();
    let mut player = RandomPlayer::new(seed, Style::FULL);
    let mut played = Played {
        start,
        log: Vec::new(),
        events: Vec::new(),
        after: Vec::new(),
    };
    while !game.is_over() && played.log.len() < actions {
        let (actor, action) = player.choose(&game).expect("a legal action");
        played.events.push(game.apply(actor, action).unwrap());
        played.log.push((actor, action));
        played.after.push(game.clone());
    }
    played
}

#[test]
fn a_log_replays_action_by_action_to_the_game_it_was_played_in() {
    let options = GameOptions::default().with_players(3);
    let p = play(options, 21, usize::MAX);
    assert!(p.start.seats().count() == 3 && p.after.last().unwrap().is_over());
    let mut replay = Replay::new(options, 21, p.log.iter().copied()).unwrap();
    assert_eq!(
        replay.game(),
        &p.start,
        "before the first action: the start"
    );
    let mut n = 0;
    while let Some(step) = replay.next() {
        let step = step.unwrap();
        assert_eq!(step.index, n);
        assert_eq!((step.actor, step.action), p.log[n]);
        assert_eq!(step.events, p.events[n], "action {n}");
        assert_eq!(replay.game(), &p.after[n], "the game after action {n}");
        n += 1;
    }
    assert_eq!(n, p.log.len());
    assert_eq!(replay.played(), p.log.len());
    assert!(!replay.went_past_the_limit());
    assert!(replay.next().is_none(), "a finished replay stays finished");
}

#[test]
fn a_part_of_a_log_replays_to_the_game_at_that_point() {
    // What a view "as of" an earlier moment needs: the log up to there.
    let p = play(GameOptions::default(), 4, 400);
    for k in [0, 1, 57, 399] {
        let game = Replay::from_game(p.start.clone(), p.log[..k].iter().copied())
            .run()
            .unwrap()
            .into_game();
        let expected = if k == 0 { &p.start } else { &p.after[k - 1] };
        assert_eq!(&game, expected, "after {k} actions");
    }
}

#[test]
fn a_refused_action_is_named_by_its_index_and_the_engines_refusal() {
    let p = play(GameOptions::default(), 9, 300);
    // Action 120 of the log replaced by one out of turn.
    let mut log = p.log.clone();
    let idle = p.after[119]
        .seats()
        .find(|&s| p.after[119].legal_actions(s).is_empty())
        .expect("a seat that may not act");
    log[120] = (Actor::Seat(idle), Action::EndTurn);
    let mut replay = Replay::from_game(p.start.clone(), log.iter().copied());
    let err = loop {
        match replay.next().expect("the replay stops at the refusal") {
            Ok(_) => {}
            Err(e) => break e,
        }
    };
    assert_eq!(err.index(), Some(120));
    assert_eq!(err.code(), "not_your_turn");
    assert!(matches!(
        err,
        ReplayError::Refused {
            index: 120,
            error: ActionError::NotYourTurn,
            action: Action::EndTurn,
            ..
        }
    ));
    assert!(err.to_string().contains("action 120"), "{err}");
    // The game is as before the refused action, and the replay has ended.
    assert_eq!(replay.game(), &p.after[119]);
    assert_eq!(replay.played(), 120);
    assert!(replay.next().is_none());
    // `run` reports the same.
    let run = Replay::from_game(p.start.clone(), log.iter().copied()).run();
    assert_eq!(run.unwrap_err(), err);
}

#[test]
fn a_log_that_goes_on_after_a_win_is_refused() {
    // nothing follows a win; a log that goes on is not this game's.
    let options = GameOptions::default().with_vp_target(5);
    let p = play(options, 3, usize::MAX);
    let over = p.after.last().unwrap();
    let winner = over.winner().expect("a win at 5 points");
    let mut log = p.log.clone();
    log.push((Actor::Seat(winner), Action::EndTurn));
    let err = Replay::new(options, 3, log.iter().copied())
        .unwrap()
        .run()
        .unwrap_err();
    assert_eq!(err.index(), Some(p.log.len()));
    assert_eq!(err.code(), "game_over");
}

#[test]
fn a_log_written_before_the_turn_limit_ends_at_the_limit() {
    // the same game played without a limit (the default 1000 turns: none of
    // these random games gets that far) and with the lowest one. The log of the first
    // goes on past turn 100; replayed with the limit, the game ends when turn 100
    // does, with no winner, and the rest of the log is not part of it.
    let limited = GameOptions::default().with_turn_limit(TURN_LIMIT_MIN);
    let short = play(limited, 12, usize::MAX);
    let ended = short.after.last().unwrap();
    assert!(
        ended.is_over() && ended.winner().is_none(),
        "ended at the limit"
    );
    let long = play(GameOptions::default(), 12, usize::MAX);
    assert!(long.log.len() > short.log.len());
    assert_eq!(long.log[..short.log.len()], short.log[..], "the same play");

    let mut replay = Replay::new(limited, 12, long.log.iter().copied()).unwrap();
    let steps: Vec<_> = replay.by_ref().map(Result::unwrap).collect();
    assert_eq!(steps.len(), short.log.len());
    assert_eq!(replay.played(), short.log.len());
    assert!(replay.went_past_the_limit());
    assert_eq!(replay.game(), ended);
    assert!(
        steps
            .last()
            .unwrap()
            .events
            .contains(&Event::TurnLimitReached {
                turn: u32::from(TURN_LIMIT_MIN)
            })
    );

    // A log that ends exactly at the limit went on past nothing.
    let exact = Replay::new(limited, 12, short.log.iter().copied())
        .unwrap()
        .run()
        .unwrap();
    assert!(!exact.went_past_the_limit());
    assert_eq!(exact.game(), ended);
}

#[test]
fn options_that_cannot_start_a_game_are_refused_before_any_action() {
    let options = GameOptions::default().with_players(5);
    let err = Replay::new(options, 1, std::iter::empty::<(Actor, Action)>()).unwrap_err();
    assert_eq!(err.index(), None);
    assert_eq!(err.code(), "invalid_player_count");
}
