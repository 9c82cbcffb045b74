//! The trade-and-build phase: play a useful development card, then build
//! the best goal within reach (trading with the bank toward it), shed cards above 7
//! through the bank, and end the turn when nothing useful is left.

use catan_engine::board::topology;
use catan_engine::{Action, Resource, Resources};

use super::trade::{self, TradeMemory};
use super::{Level, dev, goals_at, roads};
use crate::board::Board;
use crate::plan::{self, Goal};

/// Hands above this lose half on a 7.
const SAFE_HAND: u32 = 7;

/// The viewer's next action in its own trade-and-build phase: at the medium level
/// a development card worth playing, then a player-trade step (`trade::own_turn`);
/// then the best goal within reach, through bank trades at the medium level.
pub(super) fn main(b: &Board, legal: &[Action], level: Level, memory: &mut TradeMemory) -> Action {
    let medium = level == Level::Medium;
    if medium
        && !b.view.dev_card_played
        && let Some(a) = dev::in_main(b, legal)
    {
        return a;
    }
    if medium && let Some(a) = trade::own_turn(b, legal, memory) {
        return a;
    }
    let goals = goals_at(b, level);
    let hand = b.hand();
    for (i, &goal) in goals.iter().enumerate() {
        let Some(trades) =
            plan::trades_toward(&hand, &goal.cost(), &b.me.maritime_ratios, &b.view.bank)
        else {
            continue;
        };
        if !medium && !trades.is_empty() {
            continue;
        }
        if spoils_better(&hand, &goals[..i], &goal.cost()) {
            continue;
        }
        let action = match trades.first() {
            Some(&(give, get)) => Some(Action::MaritimeTrade { give, get }),
            None => build(b, goal, legal),
        };
        if let Some(a) = action.filter(|a| legal.contains(a)) {
            return a;
        }
    }
    if medium
        && hand.total() > SAFE_HAND
        && let Some(a) = shed(b, &goals, legal)
    {
        return a;
    }
    Action::EndTurn
}

/// Whether spending `cost` now would set back a better goal that is one card away.
fn spoils_better(hand: &Resources, better: &[Goal], cost: &Resources) -> bool {
    better.iter().any(|g| {
        let before = plan::missing(hand, &g.cost());
        let mut after = *hand;
        for r in Resource::ALL {
            *after.get_mut(r) = after.get(r).saturating_sub(cost.get(r));
        }
        before <= 1 && plan::missing(&after, &g.cost()) > before
    })
}

/// The legal action that builds `goal` at its best place.
fn build(b: &Board, goal: Goal, legal: &[Action]) -> Option<Action> {
    match goal {
        Goal::City => best_city(b, legal),
        Goal::Settlement => best_settlement(b, legal),
        Goal::Road => roads::best_road(b, legal, false),
        Goal::DevCard => legal
            .contains(&Action::BuyDevCard)
            .then_some(Action::BuyDevCard),
    }
}

/// The city on the settlement that produces most.
fn best_city(b: &Board, legal: &[Action]) -> Option<Action> {
    legal
        .iter()
        .filter_map(|a| match a {
            Action::BuildCity { vertex } => Some(*vertex),
            _ => None,
        })
        .max_by_key(|v| {
            topology().vertex_tiles[v.index()]
                .iter()
                .filter(|&&t| t != b.view.robber)
                .map(|&t| b.tile_pips(t))
                .sum::<u32>()
        })
        .map(|vertex| Action::BuildCity { vertex })
}

/// The settlement on the best spot.
fn best_settlement(b: &Board, legal: &[Action]) -> Option<Action> {
    let prod = b.production(b.seat());
    legal
        .iter()
        .filter_map(|a| match a {
            Action::BuildSettlement { vertex } => Some(*vertex),
            _ => None,
        })
        .max_by(|x, y| b.spot_value(*x, &prod).total_cmp(&b.spot_value(*y, &prod)))
        .map(|vertex| Action::BuildSettlement { vertex })
}

/// With too many cards to risk a 7: trade a surplus for what the goals lack most.
/// Only cards beyond every goal's cost are given, and only cards some goal lacks are
/// asked for, so shedding never trades back and forth.
fn shed(b: &Board, goals: &[Goal], legal: &[Action]) -> Option<Action> {
    let hand = b.hand();
    let mut wish = Resources::ZERO;
    let wanted: &[Goal] = if goals.is_empty() {
        &[Goal::City, Goal::Settlement]
    } else {
        goals
    };
    for g in wanted {
        for r in Resource::ALL {
            *wish.get_mut(r) = wish.get(r).max(g.cost().get(r));
        }
    }
    legal
        .iter()
        .filter_map(|a| match *a {
            Action::MaritimeTrade { give, get } => Some((*a, give, get)),
            _ => None,
        })
        .filter(|&(_, give, get)| {
            hand.get(give) >= wish.get(give) + b.me.maritime_ratios[give.index()]
                && hand.get(get) < wish.get(get)
        })
        .max_by_key(|&(_, give, get)| {
            let lack = i32::from(wish.get(get)) - i32::from(hand.get(get));
            (
                lack,
                hand.get(give),
                -i32::from(b.me.maritime_ratios[give.index()]),
            )
        })
        .map(|(a, _, _)| a)
}
