//! Development cards.

use serde::{Deserialize, Serialize};
use strum::{EnumCount, VariantArray};

/// A development card kind.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    VariantArray,
    EnumCount,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DevCard {
    /// Move the robber and steal; counts toward Largest Army once played.
    Knight,
    /// Place two free roads.
    RoadBuilding,
    /// Take two resources from the bank.
    YearOfPlenty,
    /// Take all cards of one resource from every opponent.
    Monopoly,
    /// One hidden victory point; never played.
    VictoryPoint,
}

impl DevCard {
    /// All kinds in their fixed index order.
    pub const ALL: [DevCard; DevCard::COUNT] =
        *DevCard::VARIANTS.first_chunk().expect("COUNT variants");

    /// Stable index 0..5, used to address [`DevCards`].
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// How many of this kind the 25-card deck holds.
    #[must_use]
    pub const fn deck_count(self) -> u8 {
        match self {
            DevCard::Knight => 14,
            DevCard::RoadBuilding | DevCard::YearOfPlenty | DevCard::Monopoly => 2,
            DevCard::VictoryPoint => 5,
        }
    }
}

/// A count of development cards per kind.
///
/// On the wire an object with one optional field per kind, e.g. `{"knight": 2}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DevCards(pub [u8; 5]);

/// Development cards by kind: one field per kind, a count of 0 left out; an unknown
/// kind is refused.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct DevCardsRepr {
    /// Knights.
    #[serde(default, skip_serializing_if = "is_zero")]
    knight: u8,
    /// Road Building cards.
    #[serde(default, skip_serializing_if = "is_zero")]
    road_building: u8,
    /// Year of Plenty cards.
    #[serde(default, skip_serializing_if = "is_zero")]
    year_of_plenty: u8,
    /// Monopoly cards.
    #[serde(default, skip_serializing_if = "is_zero")]
    monopoly: u8,
    /// Victory Point cards.
    #[serde(default, skip_serializing_if = "is_zero")]
    victory_point: u8,
}

/// The schema of the wire form, [`DevCardsRepr`], under the name `DevCards`.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for DevCards {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "DevCards".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        DevCardsRepr::json_schema(generator)
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &u8) -> bool {
    *n == 0
}

impl Serialize for DevCards {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let [
            knight,
            road_building,
            year_of_plenty,
            monopoly,
            victory_point,
        ] = self.0;
        DevCardsRepr {
            knight,
            road_building,
            year_of_plenty,
            monopoly,
            victory_point,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for DevCards {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = DevCardsRepr::deserialize(d)?;
        Ok(DevCards([
            r.knight,
            r.road_building,
            r.year_of_plenty,
            r.monopoly,
            r.victory_point,
        ]))
    }
}

impl DevCards {
    /// How many of `c`.
    #[must_use]
    pub const fn get(&self, c: DevCard) -> u8 {
        self.0[c as usize]
    }

    /// Mutable count of `c`.
    pub fn get_mut(&mut self, c: DevCard) -> &mut u8 {
        &mut self.0[c.index()]
    }

    /// Total number of cards.
    #[must_use]
    pub fn total(&self) -> u32 {
        self.0.iter().map(|&n| u32::from(n)).sum()
    }
}
