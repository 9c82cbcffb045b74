//! A game's map: terrain and number of every tile and the type of every harbor.

use rand::Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use super::{EdgeId, HARBOR_COUNT, TILE_COUNT, TileId, topology};
use crate::resource::Resource;

/// A tile's terrain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Terrain {
    /// Produces lumber.
    Forest,
    /// Produces brick.
    Hills,
    /// Produces wool.
    Pasture,
    /// Produces grain.
    Fields,
    /// Produces ore.
    Mountains,
    /// Produces nothing; the robber starts here.
    Desert,
}

impl Terrain {
    /// The resource this terrain produces, if any.
    #[must_use]
    pub const fn resource(self) -> Option<Resource> {
        match self {
            Terrain::Forest => Some(Resource::Lumber),
            Terrain::Hills => Some(Resource::Brick),
            Terrain::Pasture => Some(Resource::Wool),
            Terrain::Fields => Some(Resource::Grain),
            Terrain::Mountains => Some(Resource::Ore),
            Terrain::Desert => None,
        }
    }
}

/// A harbor on a coastal path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Harbor {
    /// The coastal path; both of its intersections use the harbor.
    pub edge: EdgeId,
    /// `None` for a generic 3:1 harbor, `Some(r)` for a 2:1 harbor of `r`.
    pub resource: Option<Resource>,
}

/// Terrain, numbers and harbors of one game. Fixed once the game starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Map {
    /// Terrain of each tile, by [`TileId`].
    pub terrain: [Terrain; TILE_COUNT],
    /// Number token of each tile; 0 for the desert.
    pub numbers: [u8; TILE_COUNT],
    /// The 9 harbors; `harbors[i]` lies on `topology().harbor_edges[i]`.
    pub harbors: [Harbor; HARBOR_COUNT],
}

/// The 19 terrain tiles.
pub(crate) const TERRAIN_BAG: [Terrain; TILE_COUNT] = [
    Terrain::Forest,
    Terrain::Forest,
    Terrain::Forest,
    Terrain::Forest,
    Terrain::Hills,
    Terrain::Hills,
    Terrain::Hills,
    Terrain::Pasture,
    Terrain::Pasture,
    Terrain::Pasture,
    Terrain::Pasture,
    Terrain::Fields,
    Terrain::Fields,
    Terrain::Fields,
    Terrain::Fields,
    Terrain::Mountains,
    Terrain::Mountains,
    Terrain::Mountains,
    Terrain::Desert,
];

/// The 18 number tokens.
pub(crate) const NUMBER_BAG: [u8; 18] = [2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10, 10, 11, 11, 12];

const HARBOR_BAG: [Option<Resource>; HARBOR_COUNT] = [
    None,
    Some(Resource::Grain),
    Some(Resource::Ore),
    None,
    Some(Resource::Wool),
    None,
    None,
    Some(Resource::Brick),
    Some(Resource::Lumber),
];

impl Map {
    /// A random map: terrain, numbers and harbor types shuffled with `rng`,
    /// numbers re-dealt until no two 6/8 tiles are adjacent.
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> Map {
        let mut terrain = TERRAIN_BAG;
        terrain.shuffle(rng);
        let mut numbers = [0u8; TILE_COUNT];
        loop {
            let mut bag = NUMBER_BAG;
            bag.shuffle(rng);
            let mut it = bag.into_iter();
            for (t, n) in numbers.iter_mut().enumerate() {
                *n = if terrain[t] == Terrain::Desert {
                    0
                } else {
                    it.next().expect("18 tokens for 18 tiles")
                };
            }
            if !has_adjacent_red_numbers(&numbers) {
                break;
            }
        }
        let mut kinds = HARBOR_BAG;
        kinds.shuffle(rng);
        Map {
            terrain,
            numbers,
            harbors: harbors_with(kinds),
        }
    }

    /// The fixed beginner layout, rows from the top.
    #[must_use]
    pub fn beginner() -> Map {
        use Terrain::{
            Desert as D, Fields as F, Forest as W, Hills as H, Mountains as M, Pasture as P,
        };
        Map {
            terrain: [M, P, W, F, H, P, H, F, W, D, W, M, W, M, F, P, H, F, P],
            numbers: [10, 2, 9, 12, 6, 4, 10, 9, 11, 0, 3, 8, 8, 3, 4, 5, 5, 6, 11],
            harbors: harbors_with(HARBOR_BAG),
        }
    }

    /// The desert tile, where the robber starts.
    #[must_use]
    pub fn desert(&self) -> TileId {
        let i = self
            .terrain
            .iter()
            .position(|&t| t == Terrain::Desert)
            .expect("every map has a desert");
        TileId(u8::try_from(i).expect("19 tiles"))
    }
}

fn harbors_with(kinds: [Option<Resource>; HARBOR_COUNT]) -> [Harbor; HARBOR_COUNT] {
    let edges = topology().harbor_edges;
    std::array::from_fn(|i| Harbor {
        edge: edges[i],
        resource: kinds[i],
    })
}

/// Whether two tiles carrying 6 or 8 touch (forbidden by ).
#[must_use]
pub(crate) fn has_adjacent_red_numbers(numbers: &[u8; TILE_COUNT]) -> bool {
    let topo = topology();
    let red = |n: u8| n == 6 || n == 8;
    (0..TILE_COUNT).any(|t| {
        red(numbers[t])
            && topo.tile_neighbors[t]
                .iter()
                .any(|n| red(numbers[n.index()]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn check_counts(map: &Map) {
        let count = |t: Terrain| map.terrain.iter().filter(|&&x| x == t).count();
        assert_eq!(count(Terrain::Forest), 4);
        assert_eq!(count(Terrain::Hills), 3);
        assert_eq!(count(Terrain::Pasture), 4);
        assert_eq!(count(Terrain::Fields), 4);
        assert_eq!(count(Terrain::Mountains), 3);
        assert_eq!(count(Terrain::Desert), 1);
        let mut nums: Vec<u8> = map.numbers.iter().copied().filter(|&n| n != 0).collect();
        nums.sort_unstable();
        assert_eq!(nums, NUMBER_BAG.to_vec());
        assert_eq!(map.numbers[map.desert().index()], 0);
        let generic = map.harbors.iter().filter(|h| h.resource.is_none()).count();
        assert_eq!(generic, 4);
        for r in Resource::ALL {
            assert_eq!(
                map.harbors.iter().filter(|h| h.resource == Some(r)).count(),
                1
            );
        }
    }

    #[test]
    fn random_maps_have_the_right_pieces_and_no_adjacent_six_or_eight() {
        //
        for seed in 0..500 {
            let map = Map::random(&mut ChaCha8Rng::seed_from_u64(seed));
            check_counts(&map);
            assert!(!has_adjacent_red_numbers(&map.numbers), "seed {seed}");
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_map_and_different_seeds_differ() {
        let a = Map::random(&mut ChaCha8Rng::seed_from_u64(7));
        let b = Map::random(&mut ChaCha8Rng::seed_from_u64(7));
        let c = Map::random(&mut ChaCha8Rng::seed_from_u64(8));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn the_beginner_map_is_a_legal_map() {
        let map = Map::beginner();
        check_counts(&map);
        assert!(!has_adjacent_red_numbers(&map.numbers));
        assert_eq!(map.desert(), TileId(9));
    }
}
