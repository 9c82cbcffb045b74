use super::*;
use rand::{Rng, SeedableRng};

#[test]
fn building_points_count_one_per_settlement_and_two_per_city() {
    //
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..100_000 {
        // Sparse and dense masks alike, overlapping or not.
        let density = rng.random_range(0..4);
        let mut mask = || (0..density).fold(rng.random::<u64>(), |m, _| m & rng.random::<u64>());
        let (s, c) = (mask(), mask());
        assert_eq!(
            building_points(s, c),
            s.count_ones() + 2 * c.count_ones(),
            "{s:#x} {c:#x}"
        );
    }
    assert_eq!(building_points(u64::MAX, u64::MAX), 192);
}

#[test]
fn kept_points_and_harbors_match_the_buildings_after_every_action() {
    // what `place_settlement` and `place_city` keep is what the
    // buildings give, in every game, and as a game read back makes it.
    for seed in 0..40 {
        let players = 3 + (seed % 2) as u8;
        let options = GameOptions::default().with_players(players);
        let mut game = Game::new(options, seed).unwrap();
        let mut player = crate::playout::RandomPlayer::new(seed);
        let mut events = Vec::new();
        while !game.is_over() {
            player.step(&mut game, &mut events).unwrap();
            assert_eq!(
                game.buildings,
                SeatBuildings::of(&game.map, &game.players),
                "seed {seed}, turn {}",
                game.turn
            );
        }
        let back = Game::from_position(game.to_position()).unwrap();
        assert_eq!(back.buildings, game.buildings, "seed {seed}");
    }
}
