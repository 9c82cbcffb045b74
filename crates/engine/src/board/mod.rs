//! The board: fixed topology (tiles, intersections, paths) and a game's map on it.
//!
//! Ids are compact indices so that sets of them fit in one machine word: 54
//! intersections in a `u64`, 72 paths in a `u128`. All adjacency is precomputed
//! once in [`Topology`].

mod map;
mod topology;

pub use map::{Harbor, Map, Terrain};
pub(crate) use map::{NUMBER_BAG, TERRAIN_BAG};
pub use topology::{EdgeMask, NO_HARBOR, Topology, VertexMask, topology};

use serde::{Deserialize, Serialize};

/// Number of land tiles.
pub const TILE_COUNT: usize = 19;
/// Number of intersections.
pub const VERTEX_COUNT: usize = 54;
/// Number of paths.
pub const EDGE_COUNT: usize = 72;
/// Number of harbors.
pub const HARBOR_COUNT: usize = 9;

/// A land tile, `0..19`, numbered row by row from the top, left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct TileId(pub u8);

/// An intersection, `0..54`, numbered top to bottom, left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct VertexId(pub u8);

/// A path between two intersections, `0..72`, ordered by its end points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct EdgeId(pub u8);

impl TileId {
    /// As an array index.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}
impl VertexId {
    /// As an array index.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// This vertex as a one-bit mask.
    #[must_use]
    pub const fn bit(self) -> VertexMask {
        1u64 << self.0
    }
}
impl EdgeId {
    /// As an array index.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// This edge as a one-bit mask.
    #[must_use]
    pub const fn bit(self) -> EdgeMask {
        1u128 << self.0
    }
}
