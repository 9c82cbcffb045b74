//! Random legal playouts finish, with a winner or at the turn limit, and
//! never see a listed action refused.

use catan_engine::{Action, ActionKind, Actor, Game, GameOptions, Phase};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn random_legal_games_end_with_a_winner_or_at_the_turn_limit() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut actions = Vec::new();
    let mut events = Vec::new();
    let mut total = 0u64;
    for seed in 0..200 {
        let mut g = Game::new(GameOptions::default(), seed).unwrap();
        let mut steps = 0;
        while !g.is_over() {
            // Whoever must act: the discarding seats first, else the current player.
            let actor = match g.phase() {
                Phase::Discard { pending } => {
                    catan_engine::Seat(pending.iter().position(|&n| n > 0).unwrap() as u8)
                }
                _ => g.current(),
            };
            actions.clear();
            g.legal_actions_into(Actor::Seat(actor), &mut actions);
            actions
                .retain(|a| !matches!(a.kind(), ActionKind::OfferTrade | ActionKind::CounterOffer));
            assert!(
                !actions.is_empty(),
                "seed {seed}: no legal action in {:?}",
                g.phase()
            );
            let a: Action = actions[rng.random_range(0..actions.len())];
            events.clear();
            g.apply_into(Actor::Seat(actor), a, &mut events)
                .unwrap_or_else(|e| panic!("seed {seed}: listed {a:?} refused: {e}"));
            steps += 1;
            assert!(steps < 100_000, "seed {seed} does not end");
        }
        assert!(g.winner().is_some() || g.turn() == u32::from(g.options().turn_limit));
        total += steps;
    }
    eprintln!("mean actions per game: {}", total / 200);
}
