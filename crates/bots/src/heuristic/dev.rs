//! Development cards: a Knight when the robber sits on the viewer or Largest
//! Army is one Knight away, Monopoly on what opponents likely hold, Year of Plenty
//! for the next build, Road Building when roads lead somewhere.

use catan_engine::rules::LARGEST_ARMY_MIN;
use catan_engine::{Action, DevCard, Resource, Resources};

use super::{goals, robber};
use crate::board::Board;
use crate::plan::{self, Goal};

/// Cards a Monopoly should bring in to be worth playing.
const MONOPOLY_WORTH: f32 = 2.5;

/// Before the roll: a Knight if it frees an own tile, takes Largest Army, or
/// is the only card worth playing; otherwise roll.
pub(super) fn before_roll(b: &Board, legal: &[Action]) -> Action {
    if legal.contains(&Action::PlayKnight) {
        let others = [
            DevCard::Monopoly,
            DevCard::YearOfPlenty,
            DevCard::RoadBuilding,
        ]
        .iter()
        .any(|&c| playable(b, c) > 0);
        if robber_hurts_me(b) || takes_largest_army(b) || !others {
            return Action::PlayKnight;
        }
    }
    Action::RollDice
}

/// In the trade-and-build phase: the first card worth playing now, if any.
pub(super) fn in_main(b: &Board, legal: &[Action]) -> Option<Action> {
    if let Some(a) = year_of_plenty(b, legal) {
        return Some(a);
    }
    if let Some(a) = monopoly(b, legal) {
        return Some(a);
    }
    if legal.contains(&Action::PlayRoadBuilding)
        && b.my_player().roads_left > 0
        && goals(b).contains(&Goal::Road)
    {
        return Some(Action::PlayRoadBuilding);
    }
    legal
        .contains(&Action::PlayKnight)
        .then_some(Action::PlayKnight)
}

/// Cards of kind `c` the viewer may play (not bought this turn, R-8.1).
fn playable(b: &Board, c: DevCard) -> u8 {
    b.me.dev_cards.get(c) - b.me.dev_cards_new.get(c)
}

/// Whether the robber blocks one of the viewer's producing tiles.
fn robber_hurts_me(b: &Board) -> bool {
    let t = b.view.robber;
    b.tile_pips(t) > 0 && b.touches(t, b.seat()) && robber::score(b, t, None) < 0.0
}

/// Whether one more Knight takes Largest Army.
fn takes_largest_army(b: &Board) -> bool {
    let mine = b.my_player().knights_played + 1;
    let others = b.opponents().map(|p| p.knights_played).max().unwrap_or(0);
    b.view.largest_army != Some(b.seat()) && mine >= LARGEST_ARMY_MIN && mine > others
}

/// Year of Plenty: the two cards that bring the best goal within reach.
fn year_of_plenty(b: &Board, legal: &[Action]) -> Option<Action> {
    let goals = goals(b);
    let hand = b.hand();
    legal
        .iter()
        .filter_map(|a| match a {
            Action::PlayYearOfPlenty { take } => Some((*a, *take)),
            _ => None,
        })
        .max_by_key(|(_, take)| {
            let mut h = hand;
            h.add(take);
            progress(b, &goals, &h)
        })
        .map(|(a, _)| a)
}

/// How close `hand` is to the goals: reachable goals by priority, else fewer missing.
fn progress(b: &Board, goals: &[Goal], hand: &Resources) -> i32 {
    let ratios = &b.me.maritime_ratios;
    for (i, g) in goals.iter().enumerate() {
        if plan::trades_toward(hand, &g.cost(), ratios, &b.view.bank).is_some() {
            return 100 - 10 * i as i32;
        }
    }
    goals
        .first()
        .map_or(0, |g| -(plan::missing(hand, &g.cost()) as i32))
}

/// Monopoly on the resource opponents most likely hold, if that is enough cards.
fn monopoly(b: &Board, legal: &[Action]) -> Option<Action> {
    if !legal
        .iter()
        .any(|a| matches!(a, Action::PlayMonopoly { .. }))
    {
        return None;
    }
    let wanted = super::nearest_goal(b, &goals(b)).map_or(Resources::ZERO, Goal::cost);
    let (resource, expected) = Resource::ALL
        .into_iter()
        .map(|r| (r, expected_holdings(b, r)))
        .max_by(|x, y| {
            let bonus = |r: Resource| if wanted.get(r) > 0 { 1.0 } else { 0.0 };
            (x.1 + bonus(x.0)).total_cmp(&(y.1 + bonus(y.0)))
        })?;
    (expected >= MONOPOLY_WORTH).then_some(Action::PlayMonopoly { resource })
}

/// Expected cards of `r` in opponents' hands: each hand split by what its owner
/// produces.
fn expected_holdings(b: &Board, r: Resource) -> f32 {
    b.opponents()
        .map(|p| {
            let prod = b.production(p.seat);
            let total: u32 = prod.iter().sum();
            let share = if total == 0 {
                0.2
            } else {
                prod[r.index()] as f32 / total as f32
            };
            p.resource_cards as f32 * share
        })
        .sum()
}
