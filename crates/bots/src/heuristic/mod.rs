//! The heuristic bot: a greedy player that plans one build ahead.
//!
//! It re-reads the view at every decision and keeps no memory between them, so it
//! plays the same behind the server (from `snapshot`s) as in the arena. Each part of
//! a turn has its own module: `setup` (first placements), `turn` (build, trade, end),
//! `dev` (development cards), `robber`, `answer` (offers from others), `trade`
//! (player trades by its own evaluation) and `roads` (where a road leads).
//!
//! It plays two levels: [`Level::Medium`] is the whole of it, player trades
//! included; [`Level::Easy`] makes no bank trades, buys and plays no development
//! cards, makes no offers and counters none (it still answers offers by value).

mod answer;
mod dev;
mod roads;
mod robber;
pub(crate) use robber::score as robber_score;
#[cfg(test)]
mod fair_trade_tests;
pub(crate) mod setup;
#[cfg(test)]
mod tests;
mod trade;
#[cfg(test)]
mod trade_tests;
mod turn;

use catan_engine::{Action, GameView, Phase, Resources};
use rand::RngCore;

use self::trade::TradeMemory;
use crate::board::Board;
use crate::plan::{self, Goal};
use crate::{Strategy, is_proposal};

/// How much of the heuristic a [`HeuristicBot`] plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Level {
    /// No bank trades, no development cards, no offers or counters of its own.
    Easy,
    /// Everything, player trades included.
    #[default]
    Medium,
}

/// Plays to win from its own view: setup spots by pips, resource mix and harbors;
/// cities before settlements before development cards before roads, roads only
/// toward a good spot or to take Longest Road; maritime trades toward the next
/// build; the robber on the leader's best tile; development cards when they help;
/// discards that keep the next build; player offers toward the next build (at most
/// two a turn, never repeated), and offers from others accepted only when they
/// clearly help by its evaluation without helping a leader close to winning.
#[derive(Debug, Clone, Default)]
pub struct HeuristicBot {
    /// The level played.
    level: Level,
    /// Offers made and countered this turn.
    memory: TradeMemory,
}

impl HeuristicBot {
    /// A medium-level bot. It is deterministic: the same views and lists in the
    /// same order give the same choices.
    #[must_use]
    pub fn new() -> HeuristicBot {
        HeuristicBot::at(Level::Medium)
    }

    /// A bot of `level`.
    #[must_use]
    pub fn at(level: Level) -> HeuristicBot {
        HeuristicBot {
            level,
            memory: TradeMemory::default(),
        }
    }
}

impl Strategy for HeuristicBot {
    fn name(&self) -> &'static str {
        match self.level {
            Level::Easy => "easy",
            Level::Medium => "medium",
        }
    }

    fn choose(&mut self, view: &GameView, legal: &[Action], _rng: &mut dyn RngCore) -> Action {
        let Some(board) = Board::new(view) else {
            return fallback(legal);
        };
        self.memory.start(view.turn);
        let (level, memory) = (self.level, &mut self.memory);
        let me = board.seat();
        let pick = match view.phase {
            Phase::Setup {
                settlement: None, ..
            } => setup::settlement(&board, legal),
            Phase::Setup {
                settlement: Some(v),
                ..
            } => setup::road(&board, v, legal),
            Phase::PreRoll if level == Level::Easy => Some(Action::RollDice),
            Phase::PreRoll => Some(dev::before_roll(&board, legal)),
            Phase::Discard { .. } => discard(&board, legal),
            Phase::MoveRobber { .. } => robber::choose(&board, legal),
            Phase::RoadBuilding { .. } => roads::best_road(&board, legal, true),
            Phase::Main if view.current == me => Some(turn::main(&board, legal, level, memory)),
            Phase::Main => answer::offers(&board, legal, level, memory),
            Phase::Over { .. } => None,
        };
        pick.filter(|a| allowed(a, legal))
            .unwrap_or_else(|| fallback(legal))
    }
}

/// Whether `a` may be sent for `legal`: one of its actions, or a discard, offer or
/// counter of the strategy's own terms where `legal` lists that kind (for a counter,
/// to the same offer).
fn allowed(a: &Action, legal: &[Action]) -> bool {
    match *a {
        Action::Discard { .. } => true,
        Action::OfferTrade { .. } => legal.iter().any(|l| matches!(l, Action::OfferTrade { .. })),
        Action::CounterOffer { offer, .. } => legal
            .iter()
            .any(|l| matches!(*l, Action::CounterOffer { offer: o, .. } if o == offer)),
        _ => legal.contains(a),
    }
}

/// The goals worth pursuing now, best first: a city, a settlement on a reachable
/// spot, a road that leads to a spot (or takes Longest Road), a development card.
pub(super) fn goals(b: &Board) -> Vec<Goal> {
    goals_at(b, Level::Medium)
}

/// [`goals`] as `level` plays: the easy level buys no development cards.
pub(super) fn goals_at(b: &Board, level: Level) -> Vec<Goal> {
    let p = b.my_player();
    let mut goals = Vec::with_capacity(4);
    if p.cities_left > 0 && b.my_settlements().next().is_some() {
        goals.push(Goal::City);
    }
    let spots = !b.reachable_spots().is_empty();
    if p.settlements_left > 0 && spots {
        goals.push(Goal::Settlement);
    }
    let edges = roads::candidates(b);
    if p.roads_left > 0
        && ((p.settlements_left > 0 && !spots && roads::leads_somewhere(b))
            || roads::longest_road_edge(b, &edges).is_some())
    {
        goals.push(Goal::Road);
    }
    if b.view.dev_deck > 0 && level == Level::Medium {
        goals.push(Goal::DevCard);
    }
    // Nothing else to build: work toward Longest Road.
    if goals.is_empty() && p.roads_left > 0 && roads::route_edge(b, &edges).is_some() {
        goals.push(Goal::Road);
    }
    goals
}

/// The goal the hand is nearest to (fewest cards missing, then priority).
pub(super) fn nearest_goal(b: &Board, goals: &[Goal]) -> Option<Goal> {
    let hand = b.hand();
    goals
        .iter()
        .enumerate()
        .min_by_key(|(i, g)| (plan::missing(&hand, &g.cost()), *i))
        .map(|(_, g)| *g)
}

/// gives up the representative's count of cards, keeping the nearest goal.
fn discard(b: &Board, legal: &[Action]) -> Option<Action> {
    let n = legal.iter().find_map(|a| match a {
        Action::Discard { cards } => Some(cards.total()),
        _ => None,
    })?;
    let keep = nearest_goal(b, &goals(b)).map_or(Resources::ZERO, Goal::cost);
    Some(Action::Discard {
        cards: plan::discard(&b.hand(), n, &keep),
    })
}

/// A safe default when no rule applies: end the turn or roll if possible, else turn
/// down an offer, else the first action that is not a trade proposal.
fn fallback(legal: &[Action]) -> Action {
    for wanted in [Action::EndTurn, Action::RollDice] {
        if legal.contains(&wanted) {
            return wanted;
        }
    }
    legal
        .iter()
        .find(|a| matches!(a, Action::RejectOffer { .. }))
        .or_else(|| legal.iter().find(|a| !is_proposal(a)))
        .or_else(|| legal.first())
        .copied()
        .unwrap_or(Action::EndTurn)
}
