//! The built-in strategies by the protocol's names ([`BotKind`], the one list of
//! kinds the lobby API, rooms and command lines share).

use catan_protocol::BotKind;

use crate::{HeuristicBot, Level, RandomBot, Strategy};

/// A fresh strategy of kind `kind` (the hard level with its default budget).
#[must_use]
pub fn strategy(kind: BotKind) -> Box<dyn Strategy + Send> {
    match kind {
        BotKind::Random => Box::new(RandomBot::new()),
        BotKind::Easy => Box::new(HeuristicBot::at(Level::Easy)),
        BotKind::Medium => Box::new(HeuristicBot::at(Level::Medium)),
        BotKind::Hard => Box::new(crate::SearchBot::new(crate::Budget::default())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_builds_the_strategy_of_its_name() {
        for k in BotKind::ALL {
            assert_eq!(strategy(k).name(), k.name());
        }
    }
}
