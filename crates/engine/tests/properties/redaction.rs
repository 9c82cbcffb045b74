//! What each seat may see: views hold only the viewer's own
//! hidden cards and none of the seed, the RNG or the deck order, and redacted events
//! show a stolen or bought card only to those entitled to it.

use std::collections::BTreeSet;

use catan_engine::{DevCard, Event, Game, GameOptions, Resource, Resources, Seat};
use proptest::prelude::*;
use serde_json::Value;

use super::common::{RandomPlayer, Style};
use super::{STEPS, config, options, playout};

proptest! {
    #![proptest_config(config(20))]

    /// a view holds only the viewer's own hand and cards, no seed, no
    /// RNG and no deck order; changing another seat's hidden cards changes nothing.
    #[test]
    fn views_never_show_another_seats_hand_or_development_cards(
        options in options(), game_seed: u64, player_seed: u64,
    ) {
        playout(options, game_seed, player_seed, STEPS, |step, _, _, _, _, after| {
            if step % 8 == 0 {
                check_views(after);
                check_views_ignore_hidden_cards(after, step);
            }
        });
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// a stolen card is shown to thief and victim only, a bought
    /// card to its buyer only; every other event is public.
    #[test]
    fn redacted_events_hide_stolen_and_bought_cards_from_everyone_else(
        options in options(), game_seed: u64, player_seed: u64,
    ) {
        playout(options, game_seed, player_seed, STEPS, |_, before, _, _, events, _| {
            for e in events {
                check_redaction(before, e);
            }
        });
    }
}

// ----- views -------------------------------------------------------------------------

const PUBLIC_PLAYER_KEYS: [&str; 9] = [
    "seat",
    "resource_cards",
    "dev_cards",
    "knights_played",
    "public_vp",
    "road_length",
    "roads_left",
    "settlements_left",
    "cities_left",
];

/// Fails if a key that only the engine's private state has appears anywhere in `v`.
fn assert_no_secret_keys(v: &Value, path: &str) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                assert!(
                    !["seed", "rng", "dev_deck_order", "hand", "dev_cards_new"]
                        .contains(&k.as_str())
                        || path.ends_with(".me"),
                    "secret key {path}.{k} in a view"
                );
                if k == "dev_deck" {
                    assert!(x.is_u64(), "the deck is shown as more than a count");
                }
                assert_no_secret_keys(x, &format!("{path}.{k}"));
            }
        }
        Value::Array(xs) => xs.iter().for_each(|x| assert_no_secret_keys(x, path)),
        _ => {}
    }
}

/// the JSON of every seat's view and the spectator's.
fn check_views(game: &Game) {
    let viewers = game.seats().map(Some).chain([None]);
    for viewer in viewers {
        let v = serde_json::to_value(game.view(viewer)).unwrap();
        assert_no_secret_keys(&v, "");
        match viewer {
            Some(s) => {
                assert_eq!(v["viewer"], Value::from(s.0));
                assert_eq!(v["me"]["seat"], Value::from(s.0), "`me` is someone else");
                let hand: Resources = serde_json::from_value(v["me"]["hand"].clone()).unwrap();
                assert_eq!(hand, game.player(s).hand);
            }
            None => {
                assert!(
                    v["viewer"].is_null() && v["me"].is_null(),
                    "a spectator has `me`"
                );
            }
        }
        let players = v["players"].as_array().expect("players list");
        assert_eq!(players.len(), usize::from(game.options().players));
        for p in players {
            let keys: BTreeSet<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys, PUBLIC_PLAYER_KEYS.into_iter().collect(), "{p}");
            assert!(p.as_object().unwrap().values().all(Value::is_u64), "{p}");
        }
    }
}

/// Rewrites cards only `seat` and the seat after it can see, and the seed, RNG and deck
/// order into those of another game, keeping every invariant (`Game::from_position`
/// checks them): `seat` swaps one card with the next seat for one of another
/// resource, so both keep their counts and the bank stays as it was, and
/// trades one action card held since an earlier turn for a deck card of
/// another kind (VP cards stay, they count towards the score). The views check uses
/// it with the viewer just before `seat`, whose cards stay as they are.
fn with_other_hidden_cards(game: &Game, seat: Seat) -> Game {
    let mut g = game.to_position();
    let other = Game::new(*game.options(), game.seed() ^ 0xdead_beef)
        .unwrap()
        .to_position();
    let next = next_seat(game, seat);
    let (s, n) = (seat.index(), next.index());
    if let Some((give, get)) = card_swap(&g.seats[s].hand, &g.seats[n].hand) {
        *g.seats[s].hand.get_mut(give) -= 1;
        *g.seats[s].hand.get_mut(get) += 1;
        *g.seats[n].hand.get_mut(get) -= 1;
        *g.seats[n].hand.get_mut(give) += 1;
    }
    let p = &mut g.seats[s];
    let held = DevCard::ALL
        .into_iter()
        .find(|&c| c != DevCard::VictoryPoint && p.dev_cards.get(c) > p.dev_cards_new.get(c));
    if let Some(x) = held {
        let in_deck = g
            .dev_deck
            .iter()
            .position(|&d| d != x && d != DevCard::VictoryPoint);
        if let Some(i) = in_deck {
            let y = std::mem::replace(&mut g.dev_deck[i], x);
            *p.dev_cards.get_mut(x) -= 1;
            *p.dev_cards.get_mut(y) += 1;
        }
    }
    g.seed = other.seed;
    g.rng_word_pos = other.rng_word_pos;
    g.dev_deck.reverse();
    Game::from_position(g).expect("still a game")
}

/// The seat after `seat` in turn order.
fn next_seat(game: &Game, seat: Seat) -> Seat {
    Seat((seat.0 + 1) % game.options().players)
}

/// A resource `a` holds and another one `b` holds, for a one-for-one swap, if any.
fn card_swap(a: &Resources, b: &Resources) -> Option<(Resource, Resource)> {
    a.kinds()
        .find_map(|x| b.kinds().find(|&y| y != x).map(|y| (x, y)))
}

/// a seat's view and the spectator's do not depend on the other seats' hidden
/// cards, the seed, the RNG or the deck order.
fn check_views_ignore_hidden_cards(game: &Game, step: usize) {
    let n = game.options().players;
    let a = Seat((step % usize::from(n)) as u8);
    let b = Seat((a.0 + 1) % n);
    let other = with_other_hidden_cards(game, b);
    for viewer in [Some(a), None] {
        let (x, y) = (game.view(viewer), other.view(viewer));
        assert_eq!(
            serde_json::to_vec(&x).unwrap(),
            serde_json::to_vec(&y).unwrap(),
            "{viewer:?} sees {b}'s hidden cards"
        );
        assert_eq!(x, y);
    }
    // The rewrite really changed something the owner sees, so the test can fail.
    let next = game.player(next_seat(game, b));
    if card_swap(&game.player(b).hand, &next.hand).is_some() {
        assert_ne!(game.view(Some(b)), other.view(Some(b)));
    }
}

// ----- events ------------------------------------------------------------------------

/// for one event; returns whether the event held something hidden.
fn check_redaction(game: &Game, event: &Event) -> bool {
    let viewers: Vec<Option<Seat>> = game
        .seats()
        .map(Some)
        .chain([None, Some(Seat(7))])
        .collect();
    let mut hidden = false;
    for viewer in viewers {
        let r = event.redact_for(viewer);
        match (*event, r) {
            (
                Event::Stolen {
                    thief,
                    victim,
                    resource,
                },
                Event::Stolen {
                    thief: t2,
                    victim: v2,
                    resource: shown,
                },
            ) => {
                assert!(resource.is_some(), "the engine's own event has the card");
                assert_eq!((thief, victim), (t2, v2));
                let involved = viewer == Some(thief) || viewer == Some(victim);
                assert_eq!(shown, resource.filter(|_| involved), "{viewer:?}");
                hidden = true;
            }
            (
                Event::DevCardBought { seat, card },
                Event::DevCardBought {
                    seat: s2,
                    card: shown,
                },
            ) => {
                assert!(card.is_some(), "the engine's own event has the card");
                assert_eq!(seat, s2);
                assert_eq!(shown, card.filter(|_| viewer == Some(seat)), "{viewer:?}");
                hidden = true;
            }
            (e, r) => assert_eq!(e, r, "a public event was changed for {viewer:?}"),
        }
        if r != *event {
            let json = serde_json::to_string(&r).unwrap();
            for name in Resource::ALL.map(Resource::name) {
                assert!(!json.contains(name), "{json} names a card");
            }
        }
    }
    hidden
}

// ----- fixed cases -------------------------------------------------------------------

#[test]
fn redaction_is_exercised_by_games_that_steal_and_buy_cards() {
    // the redaction property sees both hidden kinds, so it can fail.
    let (mut stolen, mut bought) = (0, 0);
    for seed in 0..4 {
        playout(
            GameOptions::default(),
            seed,
            seed,
            2 * STEPS,
            |_, before, _, _, events, _| {
                for e in events {
                    if check_redaction(before, e) {
                        match e {
                            Event::Stolen { .. } => stolen += 1,
                            _ => bought += 1,
                        }
                    }
                }
            },
        );
    }
    assert!(stolen > 0 && bought > 0, "stolen {stolen}, bought {bought}");
}

#[test]
fn the_rewrite_used_by_the_view_property_changes_what_the_owner_sees() {
    // guards the helper, so the view property cannot pass vacuously.
    let mut game = Game::new(GameOptions::default(), 3).unwrap();
    let mut player = RandomPlayer::new(3, Style::QUIET);
    while game.turn() < 8 {
        let (by, a) = player.choose(&game).unwrap();
        game.apply(by, a).unwrap();
    }
    let b = game
        .seats()
        .find(|&s| {
            let next = game.player(next_seat(&game, s));
            card_swap(&game.player(s).hand, &next.hand).is_some()
        })
        .expect("two seats in a row that can swap cards");
    let other = with_other_hidden_cards(&game, b);
    assert_eq!(other.player(b).hand.total(), game.player(b).hand.total());
    assert_ne!(other.player(b).hand, game.player(b).hand);
    assert_ne!(other.seed(), game.seed());
    assert_ne!(game.view(Some(b)), other.view(Some(b)));
    check_views_ignore_hidden_cards(&game, usize::from(b.0) + 2);
}
