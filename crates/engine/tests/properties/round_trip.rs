//! A game survives a JSON round trip: equal, and carrying on exactly as the original.

use catan_engine::Game;
use proptest::prelude::*;

use super::common::{RandomPlayer, Style};
use super::{STEPS, config, options, playout};

proptest! {
    #![proptest_config(config(64))]

    /// A game survives a JSON round trip as an equal game whose RNG, deck and offers
    /// carry on exactly as the original's.
    #[test]
    fn a_game_after_a_json_round_trip_is_equal_and_continues_identically(
        options in options(), game_seed: u64, player_seed: u64, cut in 0usize..STEPS,
    ) {
        let game = playout(options, game_seed, player_seed, cut, |_, _, _, _, _, _| {});
        let json = serde_json::to_string(&game).unwrap();
        let back: Game = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &game);
        prop_assert_eq!(serde_json::to_string(&back).unwrap(), json);
        let (mut a, mut b) = (game, back);
        let mut player = RandomPlayer::new(player_seed ^ 0x5eed, Style::FULL);
        for _ in 0..STEPS / 2 {
            let Some((by, action)) = player.choose(&a) else { break };
            prop_assert_eq!(a.apply(by, action), b.apply(by, action));
        }
        prop_assert_eq!(a, b);
    }
}
