//! A seeded random player shared by the property and golden tests: it plays every kind
//! of action, player trades and system time-outs included, with random card amounts.
#![allow(dead_code)]

use catan_engine::{Action, ActionKind, Actor, Game, Phase, Resource, Resources, Seat};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How the random player behaves.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    /// Chance in 1000 that the system acts instead (a time-out or an offer expiry).
    pub system_per_mille: u32,
    /// Whether player trades (offers, counters and answers) are played.
    pub trades: bool,
}

impl Style {
    /// Everything: trades and occasional system actions.
    pub(crate) const FULL: Style = Style {
        system_per_mille: 30,
        trades: true,
    };
    /// Seats only, no player trades: games end sooner.
    pub(crate) const QUIET: Style = Style {
        system_per_mille: 0,
        trades: false,
    };
}

/// A random player for every seat (and the system), reproducible from its seed.
#[derive(Debug, Clone)]
pub(crate) struct RandomPlayer {
    rng: ChaCha8Rng,
    style: Style,
    /// Choices made so far: a playout past [`MAX_CHOICES`] fails instead of hanging.
    choices: u32,
}

/// The most actions one player chooses: a whole game at the highest turn limit
/// takes far fewer, so a test that gets here has a rule that no longer moves
/// the game on, and fails with a message instead of looping until its time limit.
pub(crate) const MAX_CHOICES: u32 = 200_000;

impl RandomPlayer {
    /// A player seeded with `seed`.
    pub(crate) fn new(seed: u64, style: Style) -> Self {
        RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
            style,
            choices: 0,
        }
    }

    /// Access to the player's RNG, for callers that need more randomness in sync.
    pub(crate) fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }

    /// The next action: whoever must act picks uniformly among its legal actions, with
    /// random amounts for the kinds the listing gives by one representative. `None`
    /// once the game is over (won, or ended by the turn limit: ).
    ///
    /// # Panics
    /// After [`MAX_CHOICES`] choices: the game does not end.
    pub(crate) fn choose(&mut self, game: &Game) -> Option<(Actor, Action)> {
        if game.is_over() {
            return None;
        }
        self.choices += 1;
        assert!(
            self.choices <= MAX_CHOICES,
            "the game did not end within {MAX_CHOICES} actions (turn {}, phase {:?}): \
             a rule no longer moves it on",
            game.turn(),
            game.phase()
        );
        if self.rng.random_range(0..1000) < self.style.system_per_mille {
            let actions = game.legal_actions(Actor::System);
            let a = *actions.choose(&mut self.rng)?;
            return Some((Actor::System, a));
        }
        let mut seat = self.pick_seat(game);
        let mut actions = self.actions(game, seat);
        if actions.is_empty() && seat != game.current() {
            // An opponent with nothing to answer: the current player acts instead.
            seat = game.current();
            actions = self.actions(game, seat);
        }
        let a = *actions.choose(&mut self.rng)?;
        Some((Actor::Seat(seat), self.randomize(game, seat, a)))
    }

    /// The legal actions of `seat` this player may choose from.
    fn actions(&self, game: &Game, seat: Seat) -> Vec<Action> {
        let mut actions = game.legal_actions(seat);
        if !self.style.trades {
            actions.retain(|a| !is_player_trade(a.kind()));
        }
        actions
    }

    /// Discarding seats during a discard; answering opponents now and then while
    /// offers are open; otherwise the current player.
    fn pick_seat(&mut self, game: &Game) -> Seat {
        match game.phase() {
            Phase::Discard { pending } => {
                let owing: Vec<Seat> = game.seats().filter(|s| pending[s.index()] > 0).collect();
                *owing.choose(&mut self.rng).expect("someone owes cards")
            }
            Phase::Main if self.style.trades && !game.offers().is_empty() => {
                let others: Vec<Seat> = game.seats().filter(|&s| s != game.current()).collect();
                if self.rng.random_bool(0.5) {
                    *others.choose(&mut self.rng).expect("opponents exist")
                } else {
                    game.current()
                }
            }
            _ => game.current(),
        }
    }

    /// Replaces a representative discard, offer or counter with random amounts.
    fn randomize(&mut self, game: &Game, seat: Seat, a: Action) -> Action {
        let hand = game.player(seat).hand;
        match a {
            Action::Discard { cards } => Action::Discard {
                cards: self.draw(hand, cards.total()),
            },
            Action::OfferTrade { .. } => {
                let (give, get) = self.terms(hand);
                let to = if self.rng.random_bool(0.5) {
                    None
                } else {
                    let opponents: Vec<Seat> = game.seats().filter(|&s| s != seat).collect();
                    opponents.choose(&mut self.rng).copied()
                };
                Action::OfferTrade { to, give, get }
            }
            Action::CounterOffer { offer, .. } => {
                let (give, get) = self.terms(hand);
                Action::CounterOffer { offer, give, get }
            }
            other => other,
        }
    }

    /// `n` cards drawn uniformly without replacement from `hand`.
    fn draw(&mut self, mut hand: Resources, n: u32) -> Resources {
        let mut out = Resources::ZERO;
        for _ in 0..n {
            let k = self.rng.random_range(0..hand.total());
            let r = hand.nth_card(k).expect("k below the hand size");
            *hand.get_mut(r) -= 1;
            *out.get_mut(r) += 1;
        }
        out
    }

    /// Random legal trade terms from `hand` (which holds at least one card): one to
    /// three cards given, one to three cards of other resources asked.
    fn terms(&mut self, hand: Resources) -> (Resources, Resources) {
        let n = self.rng.random_range(1..=hand.total().min(3));
        let give = self.draw(hand, n);
        let wanted: Vec<Resource> = Resource::ALL
            .into_iter()
            .filter(|&r| give.get(r) == 0)
            .collect();
        let mut get = Resources::ZERO;
        for _ in 0..self.rng.random_range(1..=3) {
            *get.get_mut(
                *wanted
                    .choose(&mut self.rng)
                    .expect("give has under 5 kinds"),
            ) += 1;
        }
        (give, get)
    }
}

/// The kinds that make player trades.
pub(crate) fn is_player_trade(kind: ActionKind) -> bool {
    matches!(
        kind,
        ActionKind::OfferTrade
            | ActionKind::CounterOffer
            | ActionKind::AcceptOffer
            | ActionKind::RejectOffer
            | ActionKind::WithdrawOffer
            | ActionKind::ConfirmTrade
    )
}
