//! A seat's points from its buildings and the harbors they reach:
//! counted once where a game is made, then kept beside the pieces.

use super::Player;
use crate::board::{Map, VertexMask};
use crate::dev_card::{DevCard, DevCards};
use crate::seat::MAX_SEATS;

/// One point per settlement and two per city: `settlements.count_ones() +
/// 2 * cities.count_ones()` as one bit-parallel count, since the portable build has no
/// popcount instruction (the game keeps each seat's in [`SeatBuildings`]; views and
/// positions count them here).
pub(super) fn building_points(settlements: VertexMask, cities: VertexMask) -> u32 {
    const M1: u64 = 0x5555_5555_5555_5555;
    const M2: u64 = 0x3333_3333_3333_3333;
    const M4: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    // The bits set in each 4-bit field of `x` (at most 4).
    let nibbles = |x: u64| {
        let pairs = x - ((x >> 1) & M1);
        (pairs & M2) + ((pairs >> 2) & M2)
    };
    // Points per 4-bit field: at most 4 + 2 * 4 = 12; per byte at most 24.
    let n = nibbles(settlements) + 2 * nibbles(cities);
    let bytes = (n & M4) + ((n >> 4) & M4);
    // The sum of the eight bytes (at most 192) gathers in the top byte.
    (bytes.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32
}

/// Public victory points of a seat with these buildings, holding Longest Road and
/// Largest Army or not: shared by [`Game::public_vp`] and views that follow
/// events, so both count the same way.
#[inline]
pub(crate) fn public_vp(
    settlements: VertexMask,
    cities: VertexMask,
    longest_road: bool,
    largest_army: bool,
) -> u8 {
    let vp = building_points(settlements, cities)
        + 2 * u32::from(longest_road)
        + 2 * u32::from(largest_army);
    u8::try_from(vp).unwrap_or(u8::MAX)
}

/// Total victory points: the public ones plus the hidden VP cards.
#[inline]
pub(crate) fn total_vp(public_vp: u8, dev_cards: &DevCards) -> u8 {
    public_vp + dev_cards.get(DevCard::VictoryPoint)
}

/// What a seat's buildings give it, derived from its buildings and the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct SeatBuildings {
    /// One point per settlement and two per city.
    pub(crate) points: u8,
    /// The harbors the buildings stand on, as [`rules::harbors_in_reach`]
    /// gives them.
    ///
    /// [`rules::harbors_in_reach`]: crate::rules::harbors_in_reach
    pub(crate) harbors: u8,
}

impl SeatBuildings {
    /// The points and harbors of each seat of `players` on `map`.
    pub(crate) fn of(map: &Map, players: &[Player; MAX_SEATS]) -> [SeatBuildings; MAX_SEATS] {
        std::array::from_fn(|s| {
            let p = &players[s];
            SeatBuildings {
                points: u8::try_from(building_points(p.settlements, p.cities)).unwrap_or(u8::MAX),
                harbors: crate::rules::harbors_in_reach(map, p.buildings()),
            }
        })
    }
}
