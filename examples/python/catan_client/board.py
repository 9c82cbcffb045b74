"""The board's fixed geometry (protocol.md sections 4.14 and 14), from ``GET /api/board``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Board:
    """Tiles, intersections and paths by id, with what touches what."""

    tile_vertices: list[list[int]]
    tile_neighbors: list[list[int]]
    vertex_edges: list[list[int]]
    vertex_neighbors: list[list[int]]
    edge_ends: list[tuple[int, int]]
    harbor_edges: list[int]

    @staticmethod
    def from_json(doc: dict[str, Any]) -> "Board":
        """Reads the ``BoardGeometry`` answer of ``GET /api/board``."""
        edges = [(e["a"], e["b"]) for e in doc["edges"]]
        neighbors: list[list[int]] = [[] for _ in doc["vertices"]]
        for a, b in edges:
            neighbors[a].append(b)
            neighbors[b].append(a)
        return Board(
            tile_vertices=[t["vertices"] for t in doc["tiles"]],
            tile_neighbors=[t["neighbors"] for t in doc["tiles"]],
            vertex_edges=[v["edges"] for v in doc["vertices"]],
            vertex_neighbors=[sorted(n) for n in neighbors],
            edge_ends=edges,
            harbor_edges=doc["harbor_edges"],
        )

    def distance_ok(self, occupied: set[int]) -> list[int]:
        """Intersections, ascending, that are free with no building next to them (R-5.3)."""
        blocked = set(occupied)
        for v in occupied:
            blocked.update(self.vertex_neighbors[v])
        return [v for v in range(len(self.vertex_edges)) if v not in blocked]

    def other_end(self, edge: int, vertex: int) -> int:
        """The end of ``edge`` that is not ``vertex``."""
        a, b = self.edge_ends[edge]
        return b if a == vertex else a

    def route_length(self, roads: set[int], blocked: set[int]) -> int:
        """The longest trail over ``roads`` that passes through no ``blocked``
        intersection (opponents' buildings, R-10.1); it may end on one."""
        best = 0

        def walk(v: int, used: set[int], length: int) -> None:
            nonlocal best
            best = max(best, length)
            if v in blocked and length > 0:
                return
            for e in self.vertex_edges[v]:
                if e in roads and e not in used:
                    used.add(e)
                    walk(self.other_end(e, v), used, length + 1)
                    used.discard(e)

        for start in {v for e in roads for v in self.edge_ends[e]}:
            walk(start, set(), 0)
        return best
