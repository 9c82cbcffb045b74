//! Every game reached by legal play keeps every invariant (`invariants::check`), a
//! drained bank and whole games to their end included, and the route length agrees
//! with a brute-force search.

use catan_engine::{Event, Game, GameOptions, MapKind, Resource, VertexId, invariants};
use proptest::prelude::*;

use super::common::{RandomPlayer, Style};
use super::legality::every_listed_action_applies;
use super::{STEPS, assert_invariants, config, options, playout, playout_from};

proptest! {
    #![proptest_config(config(48))]

    /// ..R-10.3 via `invariants::check`.
    #[test]
    fn every_game_reached_by_legal_play_keeps_every_invariant(
        options in options(), game_seed: u64, player_seed: u64,
    ) {
        let start = Game::new(options, game_seed).unwrap();
        prop_assert_eq!(invariants::check(&start), Ok(()));
        playout(options, game_seed, player_seed, STEPS, |step, _, actor, action, _, after| {
            assert_invariants(step, actor, action, after);
        });
    }

    /// with the bank all but empty (its cards moved into the
    /// hands), shortages, short Years of Plenty and refused maritime trades keep the
    /// invariants, and listing and `apply` still agree.
    #[test]
    fn a_nearly_empty_bank_keeps_every_invariant_and_the_listing_exact(
        options in options(), game_seed: u64, player_seed: u64,
        left in prop::array::uniform5(0u8..=2),
    ) {
        let game = with_drained_bank(&after_setup(options, game_seed, player_seed), left);
        prop_assert_eq!(invariants::check(&game), Ok(()));
        playout_from(game, player_seed, STEPS / 2, |step, _, actor, action, _, after| {
            assert_invariants(step, actor, action, after);
            every_listed_action_applies(after);
        });
    }
}

proptest! {
    #![proptest_config(config(2))]

    /// whole games, to a winner or the turn
    /// limit, through an empty development deck and exhausted supplies, keep every
    /// invariant.
    #[test]
    fn complete_games_keep_every_invariant_until_they_end(
        players in 3u8..=4, vp_target in 8u8..=10, game_seed: u64, player_seed: u64,
    ) {
        let options = GameOptions::default().with_players(players).with_vp_target(vp_target).with_map(MapKind::Random);
        let end = playout(options, game_seed, player_seed, 30_000, |step, _, actor, action, _, after| {
            assert_invariants(step, actor, action, after);
        });
        prop_assert!(end.is_over(), "not over after 30000 actions");
        prop_assert!(end.winner().is_some() || end.turn() == u32::from(options.turn_limit));
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// every game ends by its turn limit at the latest. A game won
    /// ends at or before the limit with the winner at the target; a game not won ends
    /// with the last allowed turn, not a turn before or after: the current player
    /// below the target, `turn_limit_reached` and then the `over` phase, and nothing
    /// legal for anyone.
    #[test]
    fn every_game_ends_by_its_turn_limit_with_a_winner_or_with_none(
        players in 3u8..=4, vp_target in prop_oneof![3u8..=6, 18u8..=20],
        turn_limit in 100u16..=130, game_seed: u64, player_seed: u64,
    ) {
        let options = GameOptions::default().with_players(players).with_vp_target(vp_target).with_map(MapKind::Random).with_turn_limit(turn_limit);
        let limit = u32::from(turn_limit);
        let mut last = Vec::new();
        let end = playout(options, game_seed, player_seed, 30_000, |step, before, actor, action, events, after| {
            assert_invariants(step, actor, action, after);
            assert!(after.turn() <= limit, "turn {} past the limit {limit}", after.turn());
            let ended = events.iter().any(|e| matches!(e, Event::TurnLimitReached { .. }));
            assert_eq!(ended, before.turn() == limit && after.is_over() && after.winner().is_none());
            last = events.to_vec();
        });
        prop_assert!(end.is_over(), "not over after 30000 actions");
        prop_assert!(end.legal_actions(end.current()).is_empty());
        prop_assert!(end.legal_actions(catan_engine::Actor::System).is_empty());
        match end.winner() {
            Some(w) => {
                prop_assert!(end.turn() <= limit);
                prop_assert!(end.total_vp(w) >= vp_target);
            }
            None => {
                prop_assert_eq!(end.turn(), limit);
                prop_assert!(end.total_vp(end.current()) < vp_target);
                let tail: Vec<Event> = last.iter().rev().take(2).rev().copied().collect();
                prop_assert_eq!(tail, vec![
                    Event::TurnLimitReached { turn: limit },
                    Event::PhaseChanged { phase: catan_engine::Phase::Over { winner: None } },
                ]);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(4000))]

    /// the engine's route length agrees with a brute-force search on random
    /// networks of up to 15 roads (random walks, so loops and branches abound) with
    /// random opponents' buildings blocking intersections.
    #[test]
    fn the_longest_route_agrees_with_a_brute_force_search(
        walks in prop::collection::vec((0u8..54, prop::collection::vec(0usize..3, 1..=10)), 1..=3),
        block_a: u64,
        block_b: u64,
    ) {
        let topo = catan_engine::board::topology();
        let mut roads: u128 = 0;
        let mut touched: u64 = 0;
        for (start, turns) in &walks {
            let mut at = VertexId(*start);
            for &t in turns {
                if roads.count_ones() == 15 {
                    break;
                }
                let edges = &topo.vertex_edges[at.index()];
                let e = edges[t % edges.len()];
                roads |= e.bit();
                touched |= topo.edge_vertex_mask[e.index()];
                at = topo.other_end(e, at);
            }
        }
        let blocked = block_a & block_b & touched;
        prop_assert_eq!(
            catan_engine::rules::longest_route(roads, blocked),
            invariants::longest_trail(roads, blocked),
            "roads {:#x}, blocked {:#x}", roads, blocked
        );
    }
}

/// A random game played until the first normal turn.
fn after_setup(options: GameOptions, game_seed: u64, player_seed: u64) -> Game {
    let mut game = Game::new(options, game_seed).unwrap();
    let mut player = RandomPlayer::new(player_seed, Style::QUIET);
    while game.turn() == 0 {
        let (by, a) = player.choose(&game).expect("setup goes on");
        game.apply(by, a).unwrap();
    }
    game
}

/// Moves all but `left[r]` cards of each resource from the bank into the hands, seat
/// by seat: the position's bank is what the hands do not hold.
fn with_drained_bank(game: &Game, left: [u8; 5]) -> Game {
    let mut g = game.to_position();
    let mut bank = game.bank();
    let n = usize::from(game.options().players);
    for r in Resource::ALL {
        let mut seat = 0;
        while bank.get(r) > left[r.index()] {
            *bank.get_mut(r) -= 1;
            *g.seats[seat % n].hand.get_mut(r) += 1;
            seat += 1;
        }
    }
    let drained = Game::from_position(g).expect("still a game");
    assert_eq!(drained.bank(), bank);
    drained
}
