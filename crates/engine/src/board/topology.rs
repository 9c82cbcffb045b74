//! The fixed geometry of the 19-tile board, computed once.
//!
//! Tiles are pointy-top hexes in axial coordinates `(q, r)` with `r` from -2 (top
//! row) to 2. Corners get integer coordinates `(x, y)` where a tile's centre is
//! `(2q + r, 3r)` and its corners are at the offsets below; equal coordinates are
//! the same intersection. Clients draw the board from these coordinates.

use std::sync::LazyLock;

use super::{EDGE_COUNT, EdgeId, HARBOR_COUNT, TILE_COUNT, TileId, VERTEX_COUNT, VertexId};

/// A set of intersections, one bit per [`VertexId`].
pub type VertexMask = u64;
/// A set of paths, one bit per [`EdgeId`].
pub type EdgeMask = u128;

/// Corner offsets of a pointy-top hex, clockwise from the top.
const CORNERS: [(i16, i16); 6] = [(0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1)];

/// Precomputed adjacency tables. Obtain the single instance with [`topology`].
#[derive(Debug)]
pub struct Topology {
    /// Axial coordinates `(q, r)` of each tile.
    pub tile_coords: [(i8, i8); TILE_COUNT],
    /// The six corners of each tile, clockwise from the top.
    pub tile_vertices: [[VertexId; 6]; TILE_COUNT],
    /// `tile_vertices` as a mask, for production and the robber.
    pub tile_vertex_mask: [VertexMask; TILE_COUNT],
    /// The tiles sharing a side with each tile.
    pub tile_neighbors: [Vec<TileId>; TILE_COUNT],
    /// Each intersection's drawing coordinates `(x, y)` (see the module docs).
    pub vertex_coords: [(i16, i16); VERTEX_COUNT],
    /// The 1 to 3 tiles touching each intersection.
    pub vertex_tiles: [Vec<TileId>; VERTEX_COUNT],
    /// `vertex_tiles` as a mask (bit `t` for tile `t`), for the robber's listing
    /// the tiles a seat's buildings touch in one pass over its buildings.
    pub(crate) vertex_tile_mask: [u32; VERTEX_COUNT],
    /// The 2 or 3 intersections one path away.
    pub vertex_neighbors: [Vec<VertexId>; VERTEX_COUNT],
    /// `vertex_neighbors` as a mask, for the distance rule.
    pub vertex_neighbor_mask: [VertexMask; VERTEX_COUNT],
    /// The 2 or 3 paths meeting at each intersection.
    pub vertex_edges: [Vec<EdgeId>; VERTEX_COUNT],
    /// `vertex_edges` as a mask.
    pub vertex_edge_mask: [EdgeMask; VERTEX_COUNT],
    /// The two end points of each path (lower id first).
    pub edge_vertices: [[VertexId; 2]; EDGE_COUNT],
    /// Mask of both end points of each path.
    pub edge_vertex_mask: [VertexMask; EDGE_COUNT],
    /// The 30 coastal paths, in order around the island (clockwise from the top).
    pub coast: Vec<EdgeId>,
    /// The 9 coastal paths that carry harbors, spread 3-3-4 around the coast.
    pub harbor_edges: [EdgeId; HARBOR_COUNT],
    /// The 18 intersections served by a harbor (both ends of each harbor path).
    pub harbor_vertices: VertexMask,
    /// For each intersection in `harbor_vertices`, the index in `harbor_edges` of the
    /// harbor serving it ([`NO_HARBOR`] elsewhere): harbors never share an intersection.
    pub vertex_harbor: [u8; VERTEX_COUNT],
}

/// `vertex_harbor` of an intersection without a harbor.
pub const NO_HARBOR: u8 = u8::MAX;

/// The board's topology, built on first use.
#[must_use]
pub fn topology() -> &'static Topology {
    static TOPOLOGY: LazyLock<Topology> = LazyLock::new(Topology::build);
    &TOPOLOGY
}

impl Topology {
    #[allow(clippy::too_many_lines)]
    fn build() -> Topology {
        let mut tile_coords = Vec::with_capacity(TILE_COUNT);
        for r in -2i8..=2 {
            for q in (-2).max(-2 - r)..=2.min(2 - r) {
                tile_coords.push((q, r));
            }
        }
        assert_eq!(tile_coords.len(), TILE_COUNT);

        // Corners: collect unique coordinates, then number them top-down, left-right.
        let corner = |t: (i8, i8), i: usize| {
            let (cx, cy) = (2 * i16::from(t.0) + i16::from(t.1), 3 * i16::from(t.1));
            (cx + CORNERS[i].0, cy + CORNERS[i].1)
        };
        let mut coords: Vec<(i16, i16)> = tile_coords
            .iter()
            .flat_map(|&t| (0..6).map(move |i| corner(t, i)))
            .collect();
        coords.sort_by_key(|&(x, y)| (y, x));
        coords.dedup();
        assert_eq!(coords.len(), VERTEX_COUNT);
        let vid = |c: (i16, i16)| {
            let (x, y) = c;
            let i = coords
                .binary_search_by_key(&(y, x), |&(x, y)| (y, x))
                .expect("corner");
            VertexId(u8::try_from(i).expect("54 vertices"))
        };

        let mut tile_vertices = [[VertexId(0); 6]; TILE_COUNT];
        let mut pairs: Vec<(VertexId, VertexId)> = Vec::new();
        for (t, &tc) in tile_coords.iter().enumerate() {
            tile_vertices[t] = std::array::from_fn(|i| vid(corner(tc, i)));
            for i in 0..6 {
                let (a, b) = (tile_vertices[t][i], tile_vertices[t][(i + 1) % 6]);
                pairs.push((a.min(b), a.max(b)));
            }
        }
        let mut edge_count_by_pair = pairs.clone();
        pairs.sort();
        pairs.dedup();
        assert_eq!(pairs.len(), EDGE_COUNT);
        edge_count_by_pair.sort();

        let mut edge_vertices = [[VertexId(0); 2]; EDGE_COUNT];
        let mut edge_vertex_mask = [0; EDGE_COUNT];
        let mut vertex_edges: [Vec<EdgeId>; VERTEX_COUNT] = std::array::from_fn(|_| Vec::new());
        let mut vertex_neighbors: [Vec<VertexId>; VERTEX_COUNT] =
            std::array::from_fn(|_| Vec::new());
        for (e, &(a, b)) in pairs.iter().enumerate() {
            let id = EdgeId(u8::try_from(e).expect("72 edges"));
            edge_vertices[e] = [a, b];
            edge_vertex_mask[e] = a.bit() | b.bit();
            vertex_edges[a.index()].push(id);
            vertex_edges[b.index()].push(id);
            vertex_neighbors[a.index()].push(b);
            vertex_neighbors[b.index()].push(a);
        }
        let vertex_neighbor_mask =
            std::array::from_fn(|v| vertex_neighbors[v].iter().fold(0, |m, n| m | n.bit()));
        let vertex_edge_mask =
            std::array::from_fn(|v| vertex_edges[v].iter().fold(0, |m, e| m | e.bit()));

        let tile_vertex_mask =
            std::array::from_fn(|t| tile_vertices[t].iter().fold(0, |m, v| m | v.bit()));

        let mut vertex_tiles: [Vec<TileId>; VERTEX_COUNT] = std::array::from_fn(|_| Vec::new());
        for (t, vs) in tile_vertices.iter().enumerate() {
            for v in vs {
                vertex_tiles[v.index()].push(TileId(u8::try_from(t).expect("19 tiles")));
            }
        }
        let vertex_tile_mask = std::array::from_fn(|v| {
            vertex_tiles[v]
                .iter()
                .fold(0u32, |m: u32, t: &TileId| m | 1 << t.0)
        });
        let tile_neighbors = std::array::from_fn(|t| {
            let (q, r) = tile_coords[t];
            let dirs = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)];
            let mut n: Vec<TileId> = dirs
                .iter()
                .filter_map(|&(dq, dr)| {
                    tile_coords
                        .iter()
                        .position(|&c| c == (q + dq, r + dr))
                        .map(|i| TileId(u8::try_from(i).expect("19 tiles")))
                })
                .collect();
            n.sort();
            n
        });

        // Coastal paths belong to exactly one tile. Walk them around the island.
        let is_coastal = |a: VertexId, b: VertexId| {
            edge_count_by_pair
                .iter()
                .filter(|&&p| p == (a.min(b), a.max(b)))
                .count()
                == 1
        };
        let coastal: Vec<usize> = (0..EDGE_COUNT)
            .filter(|&e| is_coastal(edge_vertices[e][0], edge_vertices[e][1]))
            .collect();
        assert_eq!(coastal.len(), 30);
        // Start at the top-left tile's top corner, heading clockwise (east).
        let start_vertex = tile_vertices[0][0];
        let mut coast = Vec::with_capacity(30);
        let mut at = start_vertex;
        let mut prev: Option<usize> = None;
        loop {
            let next = coastal
                .iter()
                .copied()
                .filter(|&e| Some(e) != prev && edge_vertices[e].contains(&at))
                .max_by_key(|&e| {
                    // Prefer moving clockwise: the first step goes right (larger x).
                    let other = if edge_vertices[e][0] == at {
                        edge_vertices[e][1]
                    } else {
                        edge_vertices[e][0]
                    };
                    coords[other.index()].0
                })
                .expect("coast is a cycle");
            let e = if prev.is_none() {
                next
            } else {
                // After the first step there is exactly one unused coastal edge at `at`.
                coastal
                    .iter()
                    .copied()
                    .find(|&e| Some(e) != prev && edge_vertices[e].contains(&at))
                    .expect("coast is a cycle")
            };
            coast.push(EdgeId(u8::try_from(e).expect("72 edges")));
            at = if edge_vertices[e][0] == at {
                edge_vertices[e][1]
            } else {
                edge_vertices[e][0]
            };
            prev = Some(e);
            if at == start_vertex {
                break;
            }
        }
        assert_eq!(coast.len(), 30);
        // 9 harbors, gaps of 2, 2 and 3 empty paths between them, three times round.
        let mut harbor_edges = [EdgeId(0); HARBOR_COUNT];
        let mut pos = 0;
        for (i, h) in harbor_edges.iter_mut().enumerate() {
            *h = coast[pos];
            pos += if i % 3 == 2 { 4 } else { 3 };
        }

        let mut harbor_vertices: VertexMask = 0;
        let mut vertex_harbor = [NO_HARBOR; VERTEX_COUNT];
        for (i, h) in harbor_edges.iter().enumerate() {
            for v in edge_vertices[h.index()] {
                assert_eq!(
                    vertex_harbor[v.index()],
                    NO_HARBOR,
                    "harbors share a corner"
                );
                vertex_harbor[v.index()] = u8::try_from(i).expect("9 harbors");
                harbor_vertices |= v.bit();
            }
        }

        let mut vertex_coords = [(0, 0); VERTEX_COUNT];
        vertex_coords.copy_from_slice(&coords);
        Topology {
            tile_coords: tile_coords.try_into().expect("19 tiles"),
            tile_vertices,
            tile_vertex_mask,
            tile_neighbors,
            vertex_coords,
            vertex_tiles,
            vertex_tile_mask,
            vertex_neighbors,
            vertex_neighbor_mask,
            vertex_edges,
            vertex_edge_mask,
            edge_vertices,
            edge_vertex_mask,
            coast,
            harbor_edges,
            harbor_vertices,
            vertex_harbor,
        }
    }

    /// The other end of `edge` seen from `v`.
    #[must_use]
    pub fn other_end(&self, edge: EdgeId, v: VertexId) -> VertexId {
        let [a, b] = self.edge_vertices[edge.index()];
        if a == v { b } else { a }
    }

    /// The edge joining two intersections, if they are adjacent.
    #[must_use]
    pub fn edge_between(&self, a: VertexId, b: VertexId) -> Option<EdgeId> {
        self.vertex_edges[a.index()]
            .iter()
            .copied()
            .find(|&e| self.other_end(e, a) == b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_has_19_tiles_54_intersections_and_72_paths() {
        //
        let t = topology();
        assert_eq!(t.tile_coords.len(), 19);
        assert_eq!(t.vertex_coords.len(), 54);
        assert_eq!(t.edge_vertices.len(), 72);
        let rows: Vec<usize> = (-2..=2)
            .map(|r| t.tile_coords.iter().filter(|c| c.1 == r).count())
            .collect();
        assert_eq!(rows, vec![3, 4, 5, 4, 3]);
    }

    #[test]
    fn every_intersection_touches_one_to_three_tiles_and_two_or_three_paths() {
        let t = topology();
        for v in 0..VERTEX_COUNT {
            assert!((1..=3).contains(&t.vertex_tiles[v].len()));
            assert!((2..=3).contains(&t.vertex_edges[v].len()));
            assert_eq!(t.vertex_edges[v].len(), t.vertex_neighbors[v].len());
        }
        let total_incidences: usize = t.vertex_tiles.iter().map(Vec::len).sum();
        assert_eq!(total_incidences, 19 * 6);
    }

    #[test]
    fn the_coast_is_a_closed_ring_of_30_paths() {
        let t = topology();
        assert_eq!(t.coast.len(), 30);
        for w in 0..30 {
            let (a, b) = (t.coast[w], t.coast[(w + 1) % 30]);
            let shared = t.edge_vertex_mask[a.index()] & t.edge_vertex_mask[b.index()];
            assert_eq!(shared.count_ones(), 1, "consecutive coastal paths meet");
        }
    }

    #[test]
    fn harbors_never_share_an_intersection() {
        // each harbor serves the two intersections of its own path.
        let t = topology();
        let mut seen = 0u64;
        for h in t.harbor_edges {
            let m = t.edge_vertex_mask[h.index()];
            assert_eq!(seen & m, 0);
            seen |= m;
        }
        assert_eq!(seen.count_ones(), 18);
    }

    #[test]
    fn tiles_have_two_to_six_neighbours() {
        let t = topology();
        let total: usize = t.tile_neighbors.iter().map(Vec::len).sum();
        // 42 shared sides in a radius-2 hexagon, each counted twice.
        assert_eq!(total, 84);
        assert_eq!(t.tile_neighbors[9].len(), 6);
    }
}
