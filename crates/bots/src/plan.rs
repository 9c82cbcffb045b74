//! Goals and the card arithmetic around them: what the next build costs, which
//! maritime trade brings it closer, and which cards to keep when discarding.

use catan_engine::{Resource, Resources};

use crate::board::RESOURCE_WEIGHT;

/// Something worth saving cards for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Goal {
    /// Upgrade a settlement (2 VP, double production).
    City,
    /// A new settlement on a reachable spot.
    Settlement,
    /// A road that leads to a spot or takes Longest Road.
    Road,
    /// A development card.
    DevCard,
}

impl Goal {
    /// What the goal costs.
    pub(crate) fn cost(self) -> Resources {
        match self {
            Goal::City => Resources::CITY,
            Goal::Settlement => Resources::SETTLEMENT,
            Goal::Road => Resources::ROAD,
            Goal::DevCard => Resources::DEV_CARD,
        }
    }
}

/// Cards of `cost` that `hand` lacks.
pub(crate) fn missing(hand: &Resources, cost: &Resources) -> u32 {
    Resource::ALL
        .iter()
        .map(|&r| u32::from(cost.get(r).saturating_sub(hand.get(r))))
        .sum()
}

/// Trades with the bank that would make `cost` affordable, in order; `None` when the
/// surplus (cards beyond `cost`) cannot cover what is missing at the seat's ratios
/// or the bank lacks a card asked for. Empty when already affordable.
pub(crate) fn trades_toward(
    hand: &Resources,
    cost: &Resources,
    ratios: &[u8; 5],
    bank: &Resources,
) -> Option<Vec<(Resource, Resource)>> {
    let (mut h, mut bank) = (*hand, *bank);
    let mut trades = Vec::new();
    while !h.contains(cost) {
        let get = Resource::ALL
            .into_iter()
            .find(|&r| h.get(r) < cost.get(r) && bank.get(r) > 0)?;
        // Give what is most in excess at the best ratio.
        let give = Resource::ALL
            .into_iter()
            .filter(|&r| h.get(r) >= cost.get(r) + ratios[r.index()])
            .max_by_key(|&r| {
                let spare = i32::from(h.get(r) - cost.get(r));
                (
                    spare / i32::from(ratios[r.index()]),
                    spare,
                    -i32::from(ratios[r.index()]),
                )
            })?;
        let ratio = ratios[give.index()];
        *h.get_mut(give) -= ratio;
        *bank.get_mut(give) += ratio;
        *h.get_mut(get) += 1;
        *bank.get_mut(get) -= 1;
        trades.push((give, get));
    }
    Some(trades)
}

/// Which `n` cards to give up from `hand`, keeping `keep` as long as possible and
/// otherwise the cards worth most.
pub(crate) fn discard(hand: &Resources, n: u32, keep: &Resources) -> Resources {
    let mut h = *hand;
    let mut out = Resources::ZERO;
    for _ in 0..n {
        let Some(r) = Resource::ALL
            .into_iter()
            .filter(|&r| h.get(r) > 0)
            .max_by(|&a, &b| discard_score(&h, keep, a).total_cmp(&discard_score(&h, keep, b)))
        else {
            break;
        };
        *h.get_mut(r) -= 1;
        *out.get_mut(r) += 1;
    }
    out
}

/// How readily a card of `r` is given up: cards beyond what is kept first, then
/// the largest pile, then the least valuable resource.
fn discard_score(h: &Resources, keep: &Resources, r: Resource) -> f32 {
    let excess = f32::from(h.get(r)) - f32::from(keep.get(r));
    excess * 10.0 + f32::from(h.get(r)) - RESOURCE_WEIGHT[r.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surplus_is_traded_for_what_a_city_lacks() {
        // 4 lumber at 4:1 buys the third ore.
        let hand = Resources([4, 0, 0, 2, 2]);
        let t = trades_toward(&hand, &Resources::CITY, &[4; 5], &Resources::splat(19));
        assert_eq!(t, Some(vec![(Resource::Lumber, Resource::Ore)]));
    }

    #[test]
    fn a_goal_out_of_reach_gives_no_trades() {
        let hand = Resources([3, 0, 0, 2, 2]);
        assert_eq!(
            trades_toward(&hand, &Resources::CITY, &[4; 5], &Resources::splat(19)),
            None
        );
        let two_one = [2, 4, 4, 4, 4];
        assert!(trades_toward(&hand, &Resources::CITY, &two_one, &Resources::splat(19)).is_some());
    }

    #[test]
    fn discards_keep_the_cards_of_the_next_build() {
        // 9 cards, discard 4, keep the city's 2 grain and 3 ore.
        let hand = Resources([2, 1, 1, 2, 3]);
        let out = discard(&hand, 4, &Resources::CITY);
        assert_eq!(out.total(), 4);
        let mut kept = hand;
        kept.sub(&out);
        assert!(kept.contains(&Resources::CITY));
    }
}
