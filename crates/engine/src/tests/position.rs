//! `Game::from_position`: what a position from outside must obey, what is computed
//! from it, and scripted dice.

use super::support::{A, B, v};
use crate::playout::RandomPlayer;
use crate::{
    Action, DevCard, Event, Game, GameOptions, Holder, MapKind, Phase, Position, PositionError,
    Resource, Seat,
};

/// A random game's position just after setup, on the beginner map or a random one.
fn after_setup(map: MapKind) -> Position {
    let options = GameOptions {
        map,
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

/// The code and message of refusing `p`.
fn refusal(p: Position) -> (&'static str, String) {
    let e = Game::from_position(p).unwrap_err();
    (e.code(), e.to_string())
}

#[test]
fn a_position_from_a_game_rebuilds_that_game() {
    for map in [MapKind::Beginner, MapKind::Random] {
        let p = after_setup(map);
        let game = Game::from_position(p.clone()).unwrap();
        assert_eq!(game.to_position(), p);
    }
}

#[test]
fn a_six_next_to_an_eight_is_refused_on_any_map() {
    // the beginner map itself obeys it, so it is accepted as it is.
    let mut p = after_setup(MapKind::Beginner);
    assert!(Game::from_position(p.clone()).is_ok());
    // Swap an 8 onto a tile next to a 6.
    let topo = crate::board::topology();
    let six = p.map.numbers.iter().position(|&n| n == 6).unwrap();
    let t = topo.tile_neighbors[six]
        .iter()
        .map(|t| t.index())
        .find(|&t| p.map.numbers[t] != 0)
        .unwrap();
    let eight = p.map.numbers.iter().position(|&n| n == 8).unwrap();
    p.map.numbers.swap(t, eight);
    let (code, msg) = refusal(p);
    assert_eq!(code, "adjacent_six_eight");
    assert!(
        msg.starts_with("R-2.2: ") && msg.contains("adjacent tiles"),
        "{msg}"
    );
}

#[test]
fn the_bank_is_what_the_hands_do_not_hold_and_more_than_exists_is_refused() {
    //
    let mut p = after_setup(MapKind::Random);
    p.seats[0].hand = crate::Resources([0, 0, 0, 0, 0]);
    p.seats[1].hand = crate::Resources([5, 0, 0, 0, 19]);
    for s in &mut p.seats[2..] {
        s.hand = crate::Resources::ZERO;
    }
    let game = Game::from_position(p.clone()).unwrap();
    assert_eq!(game.bank(), crate::Resources([14, 19, 19, 19, 0]));
    p.seats[0].hand = crate::Resources::single(Resource::Ore, 1);
    let (code, msg) = refusal(p);
    assert_eq!(code, "bank_negative");
    assert!(msg.starts_with("R-2.5"), "{msg}");
}

#[test]
fn a_settlement_beside_another_and_a_road_far_from_home_are_refused() {
    //
    let p = after_setup(MapKind::Random);
    let mut near = p.clone();
    let taken = p.seats[0].settlements[0];
    near.seats[1]
        .settlements
        .push(crate::board::topology().vertex_neighbors[taken.index()][0]);
    assert_eq!(refusal(near).0, "distance_rule");
    let mut far = p.clone();
    let game = Game::from_position(p).unwrap();
    let topo = crate::board::topology();
    let own = &game.player(A);
    let reach = (0..72)
        .filter(|&e| own.roads & (1u128 << e) != 0)
        .fold(own.buildings(), |m, e| m | topo.edge_vertex_mask[e]);
    let loose = (0..72u8)
        .map(crate::EdgeId)
        .find(|e| {
            game.occupied_edges() & e.bit() == 0 && topo.edge_vertex_mask[e.index()] & reach == 0
        })
        .unwrap();
    far.seats[0].roads.push(loose);
    let (code, msg) = refusal(far);
    assert_eq!(code, "road_not_connected");
    assert!(msg.starts_with("R-5.2"), "{msg}");
}

#[test]
fn a_sixth_settlement_and_a_missing_knight_are_refused() {
    //
    let mut p = after_setup(MapKind::Random);
    p.seats[0].settlements = (0..6).map(|i| v(i * 9)).collect();
    let (code, msg) = refusal(p);
    assert_eq!(code, "piece_supply", "{msg}");
    assert!(msg.starts_with("R-2.6"), "{msg}");
    let mut p = after_setup(MapKind::Random);
    let k = p
        .dev_deck
        .iter()
        .position(|&c| c == DevCard::Knight)
        .unwrap();
    p.dev_deck.remove(k);
    assert!(matches!(
        Game::from_position(p),
        Err(PositionError::DevCardCount {
            card: DevCard::Knight,
            count: 13,
            expected: 14,
        })
    ));
}

#[test]
fn largest_army_goes_to_a_sole_leader_and_a_tie_keeps_only_a_named_holder() {
    // three played Knights, alone in the lead, take it.
    let mut p = after_setup(MapKind::Random);
    let play_three = |p: &mut Position, seat: Seat| {
        for _ in 0..3 {
            let k = p
                .dev_deck
                .iter()
                .position(|&c| c == DevCard::Knight)
                .unwrap();
            p.dev_deck.remove(k);
        }
        p.seats[seat.index()].knights_played += 3;
    };
    play_three(&mut p, A);
    assert_eq!(
        Game::from_position(p.clone()).unwrap().largest_army(),
        Some(A)
    );
    // Tied at 3: nobody holds it unless the position names one of the two.
    play_three(&mut p, B);
    assert_eq!(Game::from_position(p.clone()).unwrap().largest_army(), None);
    p.largest_army = Holder::Seat(B);
    assert_eq!(
        Game::from_position(p.clone()).unwrap().largest_army(),
        Some(B)
    );
    p.largest_army = Holder::Seat(Seat(2));
    let (code, msg) = refusal(p);
    assert_eq!(code, "award_holder");
    assert!(msg.starts_with("R-10.3"), "{msg}");
}

#[test]
fn a_current_player_at_the_target_has_already_won() {
    // the win is checked as the position is loaded; hidden VP cards count.
    let mut p = after_setup(MapKind::Random);
    let current = p.current;
    let vp: Vec<usize> = (0..p.dev_deck.len())
        .filter(|&i| p.dev_deck[i] == DevCard::VictoryPoint)
        .collect();
    for &i in vp.iter().rev() {
        p.dev_deck.remove(i);
    }
    *p.seats[current.index()]
        .dev_cards
        .get_mut(DevCard::VictoryPoint) = 5;
    p.options.vp_target = 7;
    let game = Game::from_position(p).unwrap();
    assert_eq!(
        game.phase(),
        Phase::Over {
            winner: Some(current)
        }
    );
}

#[test]
fn scripted_dice_come_first_and_leave_the_generator_untouched() {
    // two scripted rolls, then the rolls the unscripted game would have made.
    let p = after_setup(MapKind::Random);
    let plain = Game::from_position(p.clone()).unwrap();
    let mut scripted = p.clone();
    scripted.scripted_dice = vec![[1, 1]];
    let mut game = Game::from_position(scripted).unwrap();
    let seat = game.current();
    let events = game.apply(seat, Action::RollDice).unwrap();
    assert!(events.contains(&Event::DiceRolled { seat, dice: [1, 1] }));
    assert!(game.scripted_dice().is_empty());
    assert_eq!(
        game.to_position().rng_word_pos,
        plain.to_position().rng_word_pos
    );
    // A die showing 7 is refused.
    let mut bad = p;
    bad.scripted_dice = vec![[7, 1]];
    let (code, msg) = refusal(bad);
    assert_eq!(code, "die");
    assert!(msg.starts_with("R-4.2"), "{msg}");
}

#[test]
fn dice_scripted_on_a_game_come_up_in_order_without_a_position_round_trip() {
    // the same as scripting them in a position; a die outside 1-6 scripts
    // nothing of the call.
    let mut game = Game::from_position(after_setup(MapKind::Random)).unwrap();
    let word_pos = game.to_position().rng_word_pos;
    let err = game.script_dice([[2, 3], [6, 0]]).unwrap_err();
    assert_eq!(err, PositionError::Die(0));
    assert!(game.scripted_dice().is_empty());
    game.script_dice([[3, 4]]).unwrap();
    game.script_dice([[1, 2]]).unwrap();
    assert_eq!(game.scripted_dice(), &[[3, 4], [1, 2]]);
    let seat = game.current();
    let events = game.apply(seat, Action::RollDice).unwrap();
    assert!(events.contains(&Event::DiceRolled { seat, dice: [3, 4] }));
    assert_eq!(game.scripted_dice(), &[[1, 2]]);
    assert_eq!(game.to_position().rng_word_pos, word_pos);
    // The view shows the last roll, never the dice to come.
    let view = serde_json::to_string(&game.view(Some(seat))).unwrap();
    assert!(!view.contains("scripted"), "{view}");
}

#[test]
fn the_empty_position_is_the_start_of_setup_on_an_empty_board() {
    // every card in the bank or the deck, the robber on the
    // desert, seat 0 to place first; a legal game that plays to its end.
    for players in [3, 4] {
        let p = Position::empty(GameOptions::default().with_players(players));
        assert_eq!(p.seats.len(), usize::from(players));
        assert_eq!(p.dev_deck.len(), 25);
        let mut game = Game::from_position(p).unwrap();
        assert_eq!(
            game.phase(),
            Phase::Setup {
                index: 0,
                settlement: None
            }
        );
        assert_eq!((game.current(), game.first(), game.turn()), (A, A, 0));
        assert_eq!(game.occupied_vertices(), 0);
        assert_eq!(game.robber(), game.map().desert());
        for r in Resource::ALL {
            assert_eq!(game.bank().get(r), 19);
        }
        assert_eq!((game.longest_road(), game.largest_army()), (None, None));
        let mut player = RandomPlayer::new(u64::from(players));
        player
            .play_to_end(&mut game, &mut Vec::new(), 100_000)
            .unwrap();
        assert!(game.is_over());
    }
    // Options that cannot start a game make a position that is refused.
    let p = Position::empty(GameOptions::default().with_players(2));
    assert_eq!(refusal(p).0, "invalid_options");
}

#[test]
fn an_award_holder_is_computed_or_named_in_a_position_and_only_held_in_a_game() {
    // `null` in a position lets the engine decide; a game writes its holder,
    // or `null` for nobody, which the engine decides the same way again.
    let p = after_setup(MapKind::Random);
    let read = |json: &str| serde_json::from_str::<Holder>(json).unwrap();
    assert_eq!(read("null"), Holder::Computed);
    assert_eq!(read("2"), Holder::Seat(Seat(2)));
    assert_eq!(serde_json::to_string(&Holder::Computed).unwrap(), "null");
    assert_eq!(serde_json::to_string(&Holder::Seat(B)).unwrap(), "1");
    assert_eq!(
        Position::empty(GameOptions::default()).largest_army,
        Holder::Computed
    );
    let game = Game::from_position(p).unwrap();
    assert_eq!(
        game.longest_road(),
        None,
        "nobody has a route of 5 after setup"
    );
    assert_eq!(game.to_position().longest_road, Holder::Computed);
}
