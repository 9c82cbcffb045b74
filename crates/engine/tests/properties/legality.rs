//! `apply` accepts an action exactly when `legal_actions` lists it, and a refusal
//! leaves the game byte-identical (STYLE 4, R-4..R-9): random, often invalid, probes
//! and exhaustive sweeps of the finite action kinds.

use catan_engine::{
    Action, ActionKind, Actor, EdgeId, Game, Resource, Resources, Seat, TileId, VertexId,
    invariants,
};
use proptest::prelude::*;

use super::{STEPS, config, options, playout};

proptest! {
    #![proptest_config(config(20))]

    /// `apply` accepts an action exactly when `legal_actions` lists it; a refusal
    /// leaves the game byte-identical (STYLE 4, R-4..R-9).
    #[test]
    fn an_arbitrary_action_is_accepted_exactly_when_it_is_listed(
        options in options(), game_seed: u64, player_seed: u64,
        probes in prop::collection::vec(probe_spec(), 64),
    ) {
        let mut i = 0;
        playout(options, game_seed, player_seed, STEPS, |step, _, _, _, _, after| {
            for _ in 0..2 {
                let (by, action) = probes[i % probes.len()].resolve(after);
                i += 1;
                probe(after, by, action);
            }
            every_listed_action_applies(after);
            if step % 40 == 39 {
                every_accepted_action_is_listed(after);
            }
        });
    }
}

fn seat() -> impl Strategy<Value = Seat> {
    prop_oneof![8 => 0u8..4, 1 => 4u8..=255].prop_map(Seat)
}

fn actor() -> impl Strategy<Value = Actor> {
    prop_oneof![8 => seat().prop_map(Actor::Seat), 1 => Just(Actor::System)]
}

fn resource() -> impl Strategy<Value = Resource> {
    prop::sample::select(Resource::ALL.to_vec())
}

fn resources() -> impl Strategy<Value = Resources> {
    prop_oneof![
        4 => prop::array::uniform5(prop_oneof![3 => Just(0u8), 2 => 1u8..=2]),
        1 => prop::array::uniform5(0u8..=20),
    ]
    .prop_map(Resources)
}

fn offer() -> impl Strategy<Value = catan_engine::OfferId> {
    (0u32..40).prop_map(catan_engine::OfferId)
}

/// Every action variant with random, often invalid, arguments.
fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        (0u8..60).prop_map(|v| Action::BuildSettlement {
            vertex: VertexId(v)
        }),
        (0u8..80).prop_map(|e| Action::BuildRoad { edge: EdgeId(e) }),
        (0u8..60).prop_map(|v| Action::BuildCity {
            vertex: VertexId(v)
        }),
        Just(Action::RollDice),
        resources().prop_map(|cards| Action::Discard { cards }),
        (0u8..22, prop::option::of(seat())).prop_map(|(t, victim)| Action::MoveRobber {
            tile: TileId(t),
            victim
        }),
        Just(Action::BuyDevCard),
        Just(Action::PlayKnight),
        Just(Action::PlayRoadBuilding),
        resources().prop_map(|take| Action::PlayYearOfPlenty { take }),
        resource().prop_map(|resource| Action::PlayMonopoly { resource }),
        (resource(), resource()).prop_map(|(give, get)| Action::MaritimeTrade { give, get }),
        (prop::option::of(seat()), resources(), resources())
            .prop_map(|(to, give, get)| Action::OfferTrade { to, give, get }),
        offer().prop_map(|offer| Action::AcceptOffer { offer }),
        offer().prop_map(|offer| Action::RejectOffer { offer }),
        (offer(), resources(), resources()).prop_map(|(offer, give, get)| Action::CounterOffer {
            offer,
            give,
            get
        }),
        offer().prop_map(|offer| Action::WithdrawOffer { offer }),
        (offer(), seat()).prop_map(|(offer, with)| Action::ConfirmTrade { offer, with }),
        Just(Action::EndTurn),
        offer().prop_map(|offer| Action::ExpireOffer { offer }),
        Just(Action::TimeOut),
    ]
}

/// A probe: an arbitrary actor and action, partly relative to the game it meets so
/// that a useful share of probes is close to legal.
#[derive(Debug, Clone, Copy)]
struct ProbeSpec {
    /// 0..=3: the seat that must act; 4: `actor` as generated; 5: the system.
    who: u8,
    actor: Actor,
    action: Action,
    /// Replace the action's offer id by the `k`-th open offer's, if any is open.
    open_offer: Option<usize>,
}

fn probe_spec() -> impl Strategy<Value = ProbeSpec> {
    (0u8..=5, actor(), action(), prop::option::of(0usize..8)).prop_map(
        |(who, actor, action, open_offer)| ProbeSpec {
            who,
            actor,
            action,
            open_offer,
        },
    )
}

impl ProbeSpec {
    fn resolve(&self, game: &Game) -> (Actor, Action) {
        let by = match self.who {
            0..=3 => Actor::Seat(match game.phase() {
                catan_engine::Phase::Discard { pending } => game
                    .seats()
                    .filter(|s| pending[s.index()] > 0)
                    .nth(usize::from(self.who) % 2)
                    .unwrap_or(game.current()),
                _ => game.current(),
            }),
            4 => self.actor,
            _ => Actor::System,
        };
        let open = self
            .open_offer
            .and_then(|k| game.offers().get(k % game.offers().len().max(1)))
            .map(|o| o.id);
        let mut action = self.action;
        if let Some(id) = open {
            match &mut action {
                Action::AcceptOffer { offer }
                | Action::RejectOffer { offer }
                | Action::CounterOffer { offer, .. }
                | Action::WithdrawOffer { offer }
                | Action::ConfirmTrade { offer, .. }
                | Action::ExpireOffer { offer } => *offer = id,
                _ => {}
            }
        }
        (by, action)
    }
}

/// The kinds listed by one representative instead of every amount of cards.
fn by_representative(kind: ActionKind) -> bool {
    matches!(
        kind,
        ActionKind::Discard | ActionKind::OfferTrade | ActionKind::CounterOffer
    )
}

/// Applies `action` to a copy of `game` and checks it against the listing.
fn probe(game: &Game, by: Actor, action: Action) {
    let listed = game.legal_actions(by);
    let bytes = serde_json::to_vec(game).unwrap();
    let mut trial = game.clone();
    let result = trial.apply(by, action);
    let kind = action.kind();
    match result {
        Ok(_) => {
            if by_representative(kind) {
                assert!(
                    listed.iter().any(|a| a.kind() == kind),
                    "{by:?} {action:?} accepted but no {kind:?} is listed"
                );
            } else {
                assert!(
                    listed.contains(&action),
                    "{by:?} {action:?} accepted but not listed in {:?}",
                    game.phase()
                );
            }
            if let Err(e) = invariants::check(&trial) {
                panic!("after {by:?} {action:?}: {e}");
            }
        }
        Err(e) => {
            assert!(
                by_representative(kind) || !listed.contains(&action),
                "{by:?} {action:?} listed but refused: {e}"
            );
            assert!(trial == *game, "refused {action:?} ({e}) changed the game");
            assert_eq!(
                serde_json::to_vec(&trial).unwrap(),
                bytes,
                "refused {action:?} ({e}) changed the game's bytes"
            );
        }
    }
}

/// Every action listed for any actor (seats out of range and the system included) is
/// accepted; this is also how a listed representative is checked.
pub(super) fn every_listed_action_applies(game: &Game) {
    let actors = (0..=game.options().players)
        .map(|s| Actor::Seat(Seat(s)))
        .chain([Actor::System]);
    for by in actors {
        for a in game.legal_actions(by) {
            if let Err(e) = game.clone().apply(by, a) {
                panic!("{by:?} {a:?} listed but refused: {e} in {:?}", game.phase());
            }
        }
    }
}

/// Every action with finitely many arguments (all kinds but the three listed by a
/// representative), a few out of range, for every seat and the system: exactly the
/// listed ones are accepted, and a refusal leaves the game as it was.
fn every_accepted_action_is_listed(game: &Game) {
    let mut candidates = vec![
        Action::RollDice,
        Action::BuyDevCard,
        Action::PlayKnight,
        Action::PlayRoadBuilding,
        Action::EndTurn,
        Action::TimeOut,
    ];
    for i in 0..56 {
        candidates.push(Action::BuildSettlement {
            vertex: VertexId(i),
        });
        candidates.push(Action::BuildCity {
            vertex: VertexId(i),
        });
    }
    candidates.extend((0..74).map(|e| Action::BuildRoad { edge: EdgeId(e) }));
    for t in 0..20 {
        let victims = (0..5).map(|v| Some(Seat(v))).chain([None]);
        candidates.extend(victims.map(|victim| Action::MoveRobber {
            tile: TileId(t),
            victim,
        }));
    }
    for r in Resource::ALL {
        candidates.push(Action::PlayMonopoly { resource: r });
        candidates.push(Action::PlayYearOfPlenty {
            take: Resources::single(r, 1),
        });
        for q in Resource::ALL {
            candidates.push(Action::MaritimeTrade { give: r, get: q });
            if q >= r {
                let mut take = Resources::single(r, 1);
                *take.get_mut(q) += 1;
                candidates.push(Action::PlayYearOfPlenty { take });
            }
        }
    }
    candidates.push(Action::PlayYearOfPlenty {
        take: Resources::ZERO,
    });
    let ids = game
        .offers()
        .iter()
        .map(|o| o.id)
        .chain([catan_engine::OfferId(999)]);
    for offer in ids {
        candidates.push(Action::AcceptOffer { offer });
        candidates.push(Action::RejectOffer { offer });
        candidates.push(Action::WithdrawOffer { offer });
        candidates.push(Action::ExpireOffer { offer });
        candidates.extend((0..5).map(|w| Action::ConfirmTrade {
            offer,
            with: Seat(w),
        }));
    }
    let actors = (0..=game.options().players)
        .map(|s| Actor::Seat(Seat(s)))
        .chain([Actor::System]);
    for by in actors {
        let listed = game.legal_actions(by);
        let mut trial = game.clone();
        for &a in &candidates {
            let accepted = trial.apply(by, a).is_ok();
            assert_eq!(
                accepted,
                listed.contains(&a),
                "{by:?} {a:?}: accepted {accepted} in {:?}",
                game.phase()
            );
            if accepted {
                trial = game.clone();
            } else {
                assert!(trial == *game, "refused {a:?} changed the game");
            }
        }
    }
}
