//! Player trades by the bot's own evaluation of a hand: how far it is
//! from the goals worth pursuing ([`value`]). The medium level offers, answers and
//! counters with it; the easy level only answers (see `answer`).
//!
//! No spam: at most [`MAX_OFFERS_PER_TURN`] offers of its own per turn, never the
//! same terms twice in a turn (so never again after a refusal), at most one counter
//! to any offer, and an own offer nobody accepted is withdrawn, not left open.

use catan_engine::{Action, OfferId, Resource, Resources, Seat, TradeOffer};

use super::{goals, nearest_goal};
use crate::board::Board;
use crate::plan::{self, Goal};

/// Own offers per turn, at most.
pub(crate) const MAX_OFFERS_PER_TURN: usize = 2;
/// How much a trade must raise [`value`] to be accepted or proposed: about one card
/// nearer the next build.
pub(crate) const CLEARLY_HELPS: f32 = 0.5;
/// How much a trade offered to the bot must raise [`value`] for it to accept: any
/// real help (a card nearer a later goal counts a quarter), less than it asks of its
/// own offers. At [`CLEARLY_HELPS`] a medium bot accepted 13% of fair 1:1 offers
/// (65 of 504, `fair_trade_tests`), at 0.2 30% (152), none that hurt it.
pub(crate) const ACCEPTS_GAIN: f32 = 0.2;
/// A player this close to the target gets no help.
pub(crate) const NEAR_WIN: u8 = 3;
/// Cards above this lose half on a 7.
const SAFE_HAND: u32 = 7;

/// What the bot remembers of its trading this turn.
#[derive(Debug, Clone, Default)]
pub(crate) struct TradeMemory {
    /// The turn the rest is about.
    turn: u32,
    /// Terms offered this turn, `(give, get)`.
    offered: Vec<(Resources, Resources)>,
    /// Offers this seat already countered.
    countered: Vec<OfferId>,
}

impl TradeMemory {
    /// Forgets everything from an earlier turn.
    pub(super) fn start(&mut self, turn: u32) {
        if self.turn != turn {
            *self = TradeMemory {
                turn,
                ..TradeMemory::default()
            };
        }
    }
}

/// How good `hand` is for the viewer: minus the cards the nearest goal lacks, minus
/// a quarter of what the other goals lack, plus a little per card up to a safe hand
/// and minus the expected loss to a 7 above it.
pub(crate) fn value(goals: &[Goal], hand: &Resources) -> f32 {
    let missing: Vec<f32> = goals
        .iter()
        .map(|g| plan::missing(hand, &g.cost()) as f32)
        .collect();
    let nearest = missing.iter().copied().fold(f32::INFINITY, f32::min);
    let nearest = if nearest.is_finite() { nearest } else { 0.0 };
    let rest: f32 = missing.iter().sum::<f32>() - nearest;
    let total = hand.total();
    let excess = total.saturating_sub(SAFE_HAND) as f32;
    -nearest - 0.25 * rest + 0.05 * total.min(SAFE_HAND) as f32 - excess / 6.0 * 0.5
}

/// How much taking `o` (giving its `get`, receiving its `give`) changes [`value`].
fn gain(b: &Board, goals: &[Goal], o_give: &Resources, o_get: &Resources) -> f32 {
    let hand = b.hand();
    if !hand.contains(o_get) {
        return f32::NEG_INFINITY;
    }
    let mut after = hand;
    after.sub(o_get);
    after.add(o_give);
    value(goals, &after) - value(goals, &hand)
}

/// Whether `seat` is close enough to winning, or far enough ahead of the viewer,
/// that the viewer helps it with no trade.
pub(crate) fn too_strong(b: &Board, seat: Seat) -> bool {
    let p = b.player(seat);
    p.public_vp + NEAR_WIN >= b.view.options.vp_target
        || b.leader() == Some(seat) && p.public_vp > b.my_player().public_vp + 1
}

/// Whether the viewer should accept `o`, made to it by another seat: it helps by
/// [`value`] (at least [`ACCEPTS_GAIN`]) and does not help a player who is near
/// winning.
pub(crate) fn accepts(b: &Board, o: &TradeOffer) -> bool {
    !too_strong(b, o.from) && gain(b, &goals(b), &o.give, &o.get) >= ACCEPTS_GAIN
}

/// The answer to `o` from a recipient that does not accept it: a counter that gives
/// one spare card for one card of `o`'s that the nearest goal lacks, when that
/// clearly helps and differs from `o`; else `None` (reject).
pub(crate) fn counter(b: &Board, o: &TradeOffer, memory: &TradeMemory) -> Option<Action> {
    if memory.countered.contains(&o.id) || too_strong(b, o.from) {
        return None;
    }
    let goals = goals(b);
    let goal = nearest_goal(b, &goals)?;
    let hand = b.hand();
    let want = o.give.kinds().find(|&r| hand.get(r) < goal.cost().get(r))?;
    let spare = spare(&hand, &goals).filter(|&r| r != want)?;
    let (give, get) = (Resources::single(spare, 1), Resources::single(want, 1));
    let differs = (give, get) != (o.get, o.give);
    (differs && gain(b, &goals, &get, &give) >= CLEARLY_HELPS).then_some(Action::CounterOffer {
        offer: o.id,
        give,
        get,
    })
}

/// The resource the hand holds most of beyond every goal's cost, if any.
fn spare(hand: &Resources, goals: &[Goal]) -> Option<Resource> {
    let mut need = Resources::ZERO;
    for g in goals {
        for r in Resource::ALL {
            *need.get_mut(r) = need.get(r).max(g.cost().get(r));
        }
    }
    Resource::ALL
        .into_iter()
        .filter(|&r| hand.get(r) > need.get(r))
        .max_by_key(|&r| hand.get(r) - need.get(r))
}

/// Records that the viewer countered `offer`.
pub(crate) fn countered(memory: &mut TradeMemory, offer: OfferId) {
    memory.countered.push(offer);
}

/// The current player's next trade step, if any: answer a counter addressed to it,
/// close its own open offer (confirm with an acceptor, or withdraw), or make a new
/// offer toward the nearest goal. `None`: go on building.
pub(crate) fn own_turn(b: &Board, legal: &[Action], memory: &mut TradeMemory) -> Option<Action> {
    let me = b.seat();
    for o in &b.view.offers {
        if o.from == me {
            return Some(close_own(b, o, legal));
        }
        if o.is_recipient(me) {
            let accept = Action::AcceptOffer { offer: o.id };
            return Some(if legal.contains(&accept) && accepts(b, o) {
                accept
            } else {
                Action::RejectOffer { offer: o.id }
            });
        }
    }
    let offer = propose(b, legal, memory)?;
    if let Action::OfferTrade { give, get, .. } = offer {
        memory.offered.push((give, get));
    }
    Some(offer)
}

/// Confirms `o` with the weakest acceptor who may still be helped, else withdraws it.
fn close_own(b: &Board, o: &TradeOffer, legal: &[Action]) -> Action {
    legal
        .iter()
        .filter_map(|a| match *a {
            Action::ConfirmTrade { offer, with } if offer == o.id && !too_strong(b, with) => {
                Some((*a, b.player(with).public_vp))
            }
            _ => None,
        })
        .min_by_key(|&(_, vp)| vp)
        .map_or(Action::WithdrawOffer { offer: o.id }, |(a, _)| a)
}

/// A new offer to every opponent: one spare card for one card the nearest goal
/// lacks, when that clearly helps, the turn's budget allows and these terms were not
/// offered this turn already.
fn propose(b: &Board, legal: &[Action], memory: &TradeMemory) -> Option<Action> {
    if memory.offered.len() >= MAX_OFFERS_PER_TURN
        || !legal.iter().any(|a| matches!(a, Action::OfferTrade { .. }))
    {
        return None;
    }
    let goals = goals(b);
    let goal = nearest_goal(b, &goals)?;
    let hand = b.hand();
    let cost = goal.cost();
    if hand.contains(&cost) || plan::missing(&hand, &cost) > 2 {
        return None;
    }
    let spare = spare(&hand, &goals)?;
    Resource::ALL
        .into_iter()
        .filter(|&r| hand.get(r) < cost.get(r) && r != spare)
        .map(|want| (Resources::single(spare, 1), Resources::single(want, 1)))
        .find(|(give, get)| {
            !memory.offered.contains(&(*give, *get))
                && gain(b, &goals, get, give) >= CLEARLY_HELPS
                && b.opponents()
                    .any(|p| p.resource_cards > 0 && !too_strong(b, p.seat))
        })
        .map(|(give, get)| Action::OfferTrade {
            to: None,
            give,
            get,
        })
}
