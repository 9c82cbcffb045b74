//! The built-in strategies by name, for command lines (`--bots heuristic,random`).

use std::fmt;
use std::str::FromStr;

use crate::{HeuristicBot, RandomBot, Strategy};

/// A built-in strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BotKind {
    /// [`RandomBot`].
    Random,
    /// [`HeuristicBot`].
    Heuristic,
}

impl BotKind {
    /// Every kind, in a fixed order.
    pub const ALL: [BotKind; 2] = [BotKind::Random, BotKind::Heuristic];

    /// The kind's name, as parsed by `from_str`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Heuristic => "heuristic",
        }
    }

    /// A fresh strategy of this kind.
    #[must_use]
    pub fn build(self) -> Box<dyn Strategy + Send> {
        match self {
            BotKind::Random => Box::new(RandomBot::new()),
            BotKind::Heuristic => Box::new(HeuristicBot::new()),
        }
    }
}

impl fmt::Display for BotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`BotKind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownBotKind(pub String);

impl fmt::Display for UnknownBotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown bot kind `{}` (known: random, heuristic)",
            self.0
        )
    }
}

impl std::error::Error for UnknownBotKind {}

impl FromStr for BotKind {
    type Err = UnknownBotKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BotKind::ALL
            .into_iter()
            .find(|k| k.name() == s.trim())
            .ok_or_else(|| UnknownBotKind(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_parses_from_its_own_name() {
        for k in BotKind::ALL {
            assert_eq!(k.name().parse::<BotKind>(), Ok(k));
            assert_eq!(k.build().name(), k.name());
        }
        assert!("clever".parse::<BotKind>().is_err());
    }
}
