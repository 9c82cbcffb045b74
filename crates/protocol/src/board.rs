//! The body of `GET /api/board`: the board's fixed geometry (protocol.md 4.14), taken
//! from the engine's topology, so that clients need not re-derive it.

use catan_engine::board::topology;
use catan_engine::{EdgeId, TileId, VertexId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `GET /api/board` answer: every tile, intersection and path in id order, and the
/// coast. It never changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BoardGeometry {
    /// The 19 tiles, in id order.
    pub tiles: Vec<TileGeometry>,
    /// The 54 intersections, in id order.
    pub vertices: Vec<VertexGeometry>,
    /// The 72 paths, in id order.
    pub edges: Vec<EdgeGeometry>,
    /// The 30 coastal paths, clockwise from intersection 0.
    pub coast: Vec<EdgeId>,
    /// The 9 harbor paths, in coast order (which harbor is where is per game:
    /// `view.map.harbors`).
    pub harbor_edges: Vec<EdgeId>,
}

/// One tile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TileGeometry {
    /// The tile's id.
    pub id: TileId,
    /// Axial coordinate q.
    pub q: i8,
    /// Axial coordinate r.
    pub r: i8,
    /// Drawing x of the centre (`2q + r`).
    pub x: i16,
    /// Drawing y of the centre (`3r`).
    pub y: i16,
    /// The 6 corners, clockwise from the top.
    pub vertices: Vec<VertexId>,
    /// The tiles sharing a side with it, ascending.
    pub neighbors: Vec<TileId>,
}

/// One intersection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VertexGeometry {
    /// The intersection's id.
    pub id: VertexId,
    /// Drawing x.
    pub x: i16,
    /// Drawing y.
    pub y: i16,
    /// The 1 to 3 tiles touching it.
    pub tiles: Vec<TileId>,
    /// The 2 or 3 paths meeting there.
    pub edges: Vec<EdgeId>,
}

/// One path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EdgeGeometry {
    /// The path's id.
    pub id: EdgeId,
    /// One end (the lower id).
    pub a: VertexId,
    /// The other end.
    pub b: VertexId,
}

impl BoardGeometry {
    /// The engine's topology as the answer of `GET /api/board`.
    #[must_use]
    pub fn of_topology() -> BoardGeometry {
        let t = topology();
        BoardGeometry {
            tiles: t
                .tile_coords
                .iter()
                .enumerate()
                .map(|(i, &(q, r))| TileGeometry {
                    id: TileId(i as u8),
                    q,
                    r,
                    x: 2 * i16::from(q) + i16::from(r),
                    y: 3 * i16::from(r),
                    vertices: t.tile_vertices[i].to_vec(),
                    neighbors: t.tile_neighbors[i].clone(),
                })
                .collect(),
            vertices: t
                .vertex_coords
                .iter()
                .enumerate()
                .map(|(i, &(x, y))| VertexGeometry {
                    id: VertexId(i as u8),
                    x,
                    y,
                    tiles: t.vertex_tiles[i].clone(),
                    edges: t.vertex_edges[i].clone(),
                })
                .collect(),
            edges: t
                .edge_vertices
                .iter()
                .enumerate()
                .map(|(i, &[a, b])| EdgeGeometry {
                    id: EdgeId(i as u8),
                    a,
                    b,
                })
                .collect(),
            coast: t.coast.clone(),
            harbor_edges: t.harbor_edges.to_vec(),
        }
    }
}
