//! Resources and fixed-size resource counts (hands, costs, the bank).

use serde::{Deserialize, Serialize};
use strum::{EnumCount, IntoStaticStr, VariantArray};

/// One of the five resources produced by land tiles (R-2.1).
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
    IntoStaticStr,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Resource {
    /// Produced by forest.
    Lumber,
    /// Produced by hills.
    Brick,
    /// Produced by pasture.
    Wool,
    /// Produced by fields.
    Grain,
    /// Produced by mountains.
    Ore,
}

impl Resource {
    /// All resources in their fixed index order.
    pub const ALL: [Resource; Resource::COUNT] =
        *Resource::VARIANTS.first_chunk().expect("COUNT variants");

    /// Stable index 0..5, used to address [`Resources`].
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The wire name (`"lumber"`, ...), as serde writes it.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// A count of each resource: a hand, a cost, the bank, a trade side.
///
/// A fixed array rather than a map, so it is `Copy`, compares cheaply and never
/// allocates. On the wire it is an object with one optional field per resource,
/// e.g. `{"lumber": 1, "brick": 1}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Resources(pub [u8; 5]);

impl Resources {
    /// No cards at all.
    pub const ZERO: Resources = Resources([0; 5]);

    /// Cost of a road (R-5).
    pub const ROAD: Resources = Resources([1, 1, 0, 0, 0]);
    /// Cost of a settlement (R-5).
    pub const SETTLEMENT: Resources = Resources([1, 1, 1, 1, 0]);
    /// Cost of a city (R-5).
    pub const CITY: Resources = Resources([0, 0, 0, 2, 3]);
    /// Cost of a development card (R-5).
    pub const DEV_CARD: Resources = Resources([0, 0, 1, 1, 1]);

    /// `n` of every resource (the full bank is `Resources::splat(19)`).
    #[must_use]
    pub const fn splat(n: u8) -> Self {
        Resources([n; 5])
    }

    /// `n` cards of one resource.
    #[must_use]
    pub fn single(r: Resource, n: u8) -> Self {
        let mut c = Resources::ZERO;
        c.0[r.index()] = n;
        c
    }

    /// The counts packed into a word, byte `r` for resource `r` (so that several
    /// resources add up in one register); bytes above the fifth are ignored.
    #[must_use]
    pub(crate) fn from_word(w: u64) -> Resources {
        // One copy of the five bytes (a 4-byte and a 1-byte store, not five).
        let mut counts = [0; 5];
        counts.copy_from_slice(&w.to_le_bytes()[..5]);
        Resources(counts)
    }

    /// How many of `r`.
    #[must_use]
    pub const fn get(&self, r: Resource) -> u8 {
        self.0[r as usize]
    }

    /// Mutable count of `r`.
    pub fn get_mut(&mut self, r: Resource) -> &mut u8 {
        &mut self.0[r.index()]
    }

    /// Total number of cards.
    #[must_use]
    pub fn total(&self) -> u32 {
        self.0.iter().map(|&n| u32::from(n)).sum()
    }

    /// Whether there are no cards.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 5]
    }

    /// The counts as the low five bytes of a word, byte `r` for resource `r`: the
    /// comparisons below test all five at once in it.
    #[inline]
    pub(crate) const fn word(&self) -> u64 {
        let [a, b, c, d, e] = self.0;
        u64::from_le_bytes([a, b, c, d, e, 0, 0, 0])
    }

    /// Whether `self` holds at least `other` of every resource.
    #[must_use]
    #[inline]
    pub fn contains(&self, other: &Resources) -> bool {
        // Branch-free: all five comparisons at once, then one test (hands are
        // unpredictable).
        at_least_lanes(self.word(), other.word()) == LANE_HIGH
    }

    /// Adds `other` (saturating; callers keep totals within the 19-card bank).
    pub fn add(&mut self, other: &Resources) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = a.saturating_add(*b);
        }
    }

    /// Subtracts `other`; callers check [`Resources::contains`] first.
    pub fn sub(&mut self, other: &Resources) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            debug_assert!(*a >= *b, "resource underflow");
            *a = a.saturating_sub(*b);
        }
    }

    /// Whether some resource is non-zero on both sides.
    #[must_use]
    pub fn overlaps(&self, other: &Resources) -> bool {
        self.0
            .iter()
            .zip(other.0.iter())
            .fold(false, |any, (a, b)| any | ((*a > 0) & (*b > 0)))
    }

    /// The resources with at least `n` cards, as a bit set by resource index.
    #[must_use]
    #[inline]
    pub fn at_least(&self, n: u8) -> u8 {
        let ge = at_least_lanes(self.word(), Resources::splat(n).word());
        // Bit `8r + 7` of `ge` to bit `r`: the multiplier moves each lane's bit to
        // `56 + r` (no two partial products meet, so nothing carries into them).
        const GATHER: u64 = 1 << 56 | 1 << 49 | 1 << 42 | 1 << 35 | 1 << 28;
        ((ge >> 7).wrapping_mul(GATHER) >> 56) as u8 & 0x1f
    }

    /// The first resource with a card, in index order.
    #[must_use]
    #[inline]
    pub(crate) fn first_kind(&self) -> Option<Resource> {
        let w = self.word();
        if w == 0 {
            return None;
        }
        Resource::ALL.get(w.trailing_zeros() as usize / 8).copied()
    }

    /// The resources with a non-zero count, in index order.
    pub fn kinds(&self) -> impl Iterator<Item = Resource> + '_ {
        Resource::ALL.into_iter().filter(|r| self.get(*r) > 0)
    }

    /// The `k`-th card (0-based) when the cards are laid out in resource order;
    /// used to pick a uniformly random card from a hand.
    #[must_use]
    pub fn nth_card(&self, mut k: u32) -> Option<Resource> {
        for r in Resource::ALL {
            let n = u32::from(self.get(r));
            if k < n {
                return Some(r);
            }
            k -= n;
        }
        None
    }
}

/// The high bit of each of the five bytes of [`Resources::word`].
const LANE_HIGH: u64 = 0x80_8080_8080;

/// Byte by byte over the five bytes of two [`Resources::word`]s, whether `a >= b`:
/// the high bit of each byte set where it is, nothing else. Exact for every count
/// (0..=255): the low seven bits are compared by a subtraction no byte borrows
/// across (a high bit set in each byte of the first operand, cleared in the second),
/// the high bits directly.
#[inline]
const fn at_least_lanes(a: u64, b: u64) -> u64 {
    const LOW: u64 = 0x7f_7f7f_7f7f;
    let low_ge = (a | LANE_HIGH) - (b & LOW);
    ((a & !b) | (!(a ^ b) & low_ge)) & LANE_HIGH
}

/// Resource cards by kind: one field per resource, a count of 0 left out; `{}` is no
/// cards, and an unknown resource name is refused.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct ResourcesRepr {
    /// Lumber cards.
    #[serde(default, skip_serializing_if = "is_zero")]
    lumber: u8,
    /// Brick cards.
    #[serde(default, skip_serializing_if = "is_zero")]
    brick: u8,
    /// Wool cards.
    #[serde(default, skip_serializing_if = "is_zero")]
    wool: u8,
    /// Grain cards.
    #[serde(default, skip_serializing_if = "is_zero")]
    grain: u8,
    /// Ore cards.
    #[serde(default, skip_serializing_if = "is_zero")]
    ore: u8,
}

/// The schema of the wire form, [`ResourcesRepr`], under the name `Resources`.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Resources {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Resources".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ResourcesRepr::json_schema(generator)
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &u8) -> bool {
    *n == 0
}

impl Serialize for Resources {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let [lumber, brick, wool, grain, ore] = self.0;
        ResourcesRepr {
            lumber,
            brick,
            wool,
            grain,
            ore,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Resources {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = ResourcesRepr::deserialize(d)?;
        Ok(Resources([r.lumber, r.brick, r.wool, r.grain, r.ore]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_serialize_as_an_object_without_zeros() {
        let r = Resources([1, 0, 0, 2, 0]);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"lumber":1,"grain":2}"#);
        let back: Resources = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn unknown_resource_names_are_rejected() {
        assert!(serde_json::from_str::<Resources>(r#"{"gold":1}"#).is_err());
    }

    #[test]
    fn contains_and_at_least_agree_with_a_count_by_count_comparison() {
        // Every count 0..=255 on either side, in every lane: the word comparisons
        // must not let one resource's count spill into another's.
        let counts = [
            0u8, 1, 2, 3, 4, 7, 18, 19, 20, 126, 127, 128, 129, 200, 254, 255,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            counts[(x % counts.len() as u64) as usize]
        };
        for _ in 0..200_000 {
            let a = Resources([next(), next(), next(), next(), next()]);
            let b = Resources([next(), next(), next(), next(), next()]);
            let naive = a.0.iter().zip(b.0.iter()).all(|(x, y)| x >= y);
            assert_eq!(a.contains(&b), naive, "{a:?} {b:?}");
            let n = b.0[0];
            let naive: u8 = (0..5).filter(|&r| a.0[r] >= n).fold(0, |m, r| m | 1 << r);
            assert_eq!(a.at_least(n), naive, "{a:?} {n}");
            assert_eq!(a.first_kind(), a.kinds().next(), "{a:?}");
        }
    }

    #[test]
    fn nth_card_walks_the_hand_in_resource_order() {
        let r = Resources([0, 2, 0, 1, 0]);
        assert_eq!(r.nth_card(0), Some(Resource::Brick));
        assert_eq!(r.nth_card(1), Some(Resource::Brick));
        assert_eq!(r.nth_card(2), Some(Resource::Grain));
        assert_eq!(r.nth_card(3), None);
    }
}
