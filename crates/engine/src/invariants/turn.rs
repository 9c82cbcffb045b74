//! Invariants of the turn: open offers, the dice, and a phase that agrees
//! with the pieces, the cards and the dice.

use super::seats;
use crate::board::{VertexId, topology};
use crate::game::Game;
use crate::phase::{Phase, Resume};
use crate::position_error::PositionError;
use crate::rules::{MAX_OPEN_OFFERS, setup_seat};
use crate::seat::{MAX_SEATS, Seat};

/// open offers are well formed and answerable.
pub(super) fn check_offers(game: &Game) -> Result<(), PositionError> {
    let mut last = 0;
    for (i, o) in game.offers.iter().enumerate() {
        let bad = |reason| PositionError::Offer {
            offer: o.id,
            reason,
        };
        ensure!(i < MAX_OPEN_OFFERS, bad("more offers open than allowed"));
        ensure!(
            o.id.0 > last && o.id.0 < game.next_offer,
            bad("ids out of order or not yet issued")
        );
        last = o.id.0;
        ensure!(
            !o.give.is_empty() && !o.get.is_empty() && !o.give.overlaps(&o.get),
            bad("an empty side or a resource on both sides (R-9.2)")
        );
        ensure!(
            o.from.0 < game.options.players,
            bad("from a seat not in play")
        );
        match o.counter_to {
            None => ensure!(
                o.from == game.current
                    && o.to
                        .is_none_or(|t| t != o.from && t.0 < game.options.players),
                bad("not the current player's offer to an opponent (R-9.1)")
            ),
            Some(c) => ensure!(
                o.from != game.current && o.to == Some(game.current) && c.0 < o.id.0,
                bad("a counter-offer not from an opponent to the current player")
            ),
        }
        let recipients = seats(game)
            .filter(|&s| o.is_recipient(s))
            .fold(0u8, |m, s| m | (1 << s.0));
        ensure!(
            o.accepted & o.rejected == 0 && (o.accepted | o.rejected) & !recipients == 0,
            bad("answers from non-recipients or both answers from one seat")
        );
        ensure!(o.rejected != recipients, bad("rejected by all yet open"));
    }
    Ok(())
}

/// the last roll and the scripted dice show 1 to 6.
pub(super) fn check_dice(game: &Game) -> Result<(), PositionError> {
    let dice = game.last_roll.iter().chain(&game.dice).flatten();
    for &d in dice {
        ensure!((1..=6).contains(&d), PositionError::Die(d));
    }
    Ok(())
}

/// The phase agrees with the rest of the state.
pub(super) fn check_phase(game: &Game) -> Result<(), PositionError> {
    let offers_allowed = matches!(
        game.phase,
        Phase::Main
            | Phase::MoveRobber {
                resume: Resume::Main
            }
            | Phase::RoadBuilding {
                resume: Resume::Main,
                ..
            }
    );
    ensure!(
        offers_allowed || game.offers.is_empty(),
        PositionError::OffersOutOfPhase(game.phase)
    );
    let target = game.options.vp_target;
    match game.phase {
        Phase::Setup { index, settlement } => return check_setup(game, index, settlement),
        Phase::Over {
            winner: Some(winner),
        } => ensure!(
            winner == game.current && game.total_vp(winner) >= target,
            PositionError::Winner(winner)
        ),
        // over with no winner only once the last allowed turn has ended, and
        // not with the current player at the target (that is a win, R-10.4).
        Phase::Over { winner: None } => {
            ensure!(
                game.turn >= u32::from(game.options.turn_limit),
                PositionError::EndedBeforeTurnLimit {
                    turn: game.turn,
                    limit: game.options.turn_limit,
                }
            );
            ensure!(
                game.total_vp(game.current) < target,
                PositionError::TargetReached {
                    seat: game.current,
                    points: game.total_vp(game.current),
                }
            );
        }
        _ => ensure!(
            game.total_vp(game.current) < target,
            PositionError::TargetReached {
                seat: game.current,
                points: game.total_vp(game.current),
            }
        ),
    }
    ensure!(
        game.turn >= 1,
        PositionError::Turn {
            turn: game.turn,
            phase: game.phase,
        }
    );
    for s in seats(game) {
        let p = &game.players[s.index()];
        ensure!(
            p.buildings().count_ones() >= 2 && p.roads.count_ones() >= 2,
            PositionError::SetupPieces(s)
        );
    }
    check_turn_step(game)
}

/// The step within a normal turn agrees with the dice and the cards.
fn check_turn_step(game: &Game) -> Result<(), PositionError> {
    let fresh = game.players.iter().any(|p| p.dev_cards_new.total() > 0);
    match game.phase {
        Phase::PreRoll | Phase::Discard { .. } => ensure!(
            !fresh,
            PositionError::BeforeRoll("development cards bought before the roll")
        ),
        _ => {}
    }
    match game.phase {
        Phase::PreRoll => ensure!(
            !game.dev_played || game.last_roll.is_some(),
            PositionError::BeforeRoll("a card played before any roll of the game")
        ),
        Phase::Discard { pending } => check_discard(game, pending)?,
        Phase::MoveRobber { resume } => ensure!(
            game.dev_played || (resume == Resume::Main && rolled_seven(game)),
            PositionError::RobberWithoutCause
        ),
        Phase::RoadBuilding { remaining, .. } => ensure!(
            game.dev_played
                && (1..=2).contains(&remaining)
                && game.players[game.current.index()].roads_left() > 0,
            PositionError::RoadBuilding
        ),
        _ => {}
    }
    Ok(())
}

fn rolled_seven(game: &Game) -> bool {
    game.last_roll.is_some_and(|[a, b]| a + b == 7)
}

/// pending discards are half of hands over 7.
fn check_discard(game: &Game, pending: [u8; MAX_SEATS]) -> Result<(), PositionError> {
    ensure!(
        rolled_seven(game),
        PositionError::Discard("discards pending without a 7")
    );
    ensure!(
        pending.iter().any(|&n| n > 0),
        PositionError::Discard("a discard phase with nobody to discard")
    );
    for (i, &owed) in pending.iter().enumerate() {
        if owed == 0 {
            continue;
        }
        let seat = Seat(i as u8);
        ensure!(
            i < usize::from(game.options.players),
            PositionError::UnusedSeat(seat)
        );
        let hand = game.players[i].hand.total();
        ensure!(
            hand > 7 && u32::from(owed) == hand / 2,
            PositionError::DiscardOwed { seat, owed, hand }
        );
    }
    Ok(())
}

/// the placement index matches whose turn it is and what is on the board.
fn check_setup(game: &Game, index: u8, settlement: Option<VertexId>) -> Result<(), PositionError> {
    let n = game.options.players;
    let bad = |reason| PositionError::Setup { index, reason };
    ensure!(index < 2 * n, bad("beyond the last placement"));
    ensure!(
        game.turn == 0,
        PositionError::Turn {
            turn: game.turn,
            phase: game.phase,
        }
    );
    ensure!(
        game.current == setup_seat(game.first, n, index),
        bad("the current seat is not the snake order's")
    );
    ensure!(
        !game.dev_played && game.offers.is_empty(),
        bad("cards played or offers open in setup")
    );
    for s in seats(game) {
        let done = (0..index)
            .filter(|&i| setup_seat(game.first, n, i) == s)
            .count() as u32;
        let p = &game.players[s.index()];
        let extra = u32::from(s == game.current && settlement.is_some());
        ensure!(
            p.settlements.count_ones() == done + extra
                && p.cities == 0
                && p.roads.count_ones() == done,
            bad("a seat's pieces do not match the placements made")
        );
        ensure!(
            p.dev_cards.total() == 0 && p.knights_played == 0,
            bad("development cards in setup")
        );
    }
    if let Some(v) = settlement {
        let p = &game.players[game.current.index()];
        ensure!(
            p.settlements & v.bit() != 0,
            bad("the pending road's settlement is not the current player's")
        );
        ensure!(
            p.roads & topology().vertex_edge_mask[v.index()] == 0,
            bad("the new settlement already has its road")
        );
    }
    Ok(())
}
