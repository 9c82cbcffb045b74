//! Questions a view answers with the engine's own rules: whose pieces stand where (as
//! masks), the distance rule, where settlements and roads may go, route lengths. Bots and views that follow events
//! ask these instead of knowing the rules themselves.

use crate::board::{EdgeMask, VertexId, VertexMask};
use crate::rules;
use crate::seat::Seat;
use crate::view::GameView;

impl GameView {
    /// Intersections holding any building.
    #[must_use]
    pub fn occupied_vertices(&self) -> VertexMask {
        self.buildings.iter().fold(0, |m, b| m | b.vertex.bit())
    }

    /// Intersections holding `seat`'s settlements (not cities).
    #[must_use]
    pub fn settlements_of(&self, seat: Seat) -> VertexMask {
        self.building_mask(|b| b.seat == seat && !b.city)
    }

    /// Intersections holding `seat`'s cities.
    #[must_use]
    pub fn cities_of(&self, seat: Seat) -> VertexMask {
        self.building_mask(|b| b.seat == seat && b.city)
    }

    /// Intersections holding any building of `seat`.
    #[must_use]
    pub fn buildings_of(&self, seat: Seat) -> VertexMask {
        self.building_mask(|b| b.seat == seat)
    }

    /// Paths holding `seat`'s roads.
    #[must_use]
    pub fn roads_of(&self, seat: Seat) -> EdgeMask {
        self.roads
            .iter()
            .filter(|r| r.seat == seat)
            .fold(0, |m, r| m | r.edge.bit())
    }

    /// Whether the distance rule lets a settlement stand on `v` now: `v` and
    /// its neighbours are empty. Roads, pieces and cards aside; the same check the
    /// game makes ([`rules::distance_ok`]).
    #[must_use]
    pub fn distance_ok(&self, v: VertexId) -> bool {
        rules::distance_ok(self.occupied_vertices(), v)
    }

    /// `seat`'s route length if it also had the roads in `extra`, with the
    /// buildings standing now; `extra = 0` gives the current length. Measured by the
    /// game's own search ([`rules::route_length`]).
    #[must_use]
    pub fn route_length_with(&self, seat: Seat, extra: EdgeMask) -> u8 {
        rules::route_length(
            self.roads_of(seat) | extra,
            self.buildings_of(seat),
            self.occupied_vertices(),
        )
    }

    /// Where `seat` may build a settlement now by and R-5.4 (the distance rule
    /// and an own road there); pieces and cards aside. The same listing the game
    /// makes ([`rules::settlement_spots`]).
    #[must_use]
    pub fn settlement_spots(&self, seat: Seat) -> VertexMask {
        rules::settlement_spots(self.roads_of(seat), self.occupied_vertices())
    }

    /// The empty paths where `seat` may build a road now by R-5.2 (next to an own
    /// building, or to an own road not cut by an opponent's building); pieces and
    /// cards aside. The same listing the game makes ([`rules::road_spots`]).
    #[must_use]
    pub fn road_spots(&self, seat: Seat) -> EdgeMask {
        let all_roads = self.roads.iter().fold(0, |m, r| m | r.edge.bit());
        rules::road_spots(
            self.roads_of(seat),
            self.buildings_of(seat),
            self.occupied_vertices(),
            all_roads,
        )
    }

    /// The buildings `keep` selects, as a mask.
    fn building_mask(&self, keep: impl Fn(&crate::view::BuildingView) -> bool) -> VertexMask {
        self.buildings
            .iter()
            .filter(|b| keep(b))
            .fold(0, |m, b| m | b.vertex.bit())
    }
}

#[cfg(test)]
mod tests {
    use crate::board::{EdgeId, VertexId, topology};
    use crate::game::Game;
    use crate::options::GameOptions;
    use crate::playout::RandomPlayer;
    use crate::rules;
    use crate::seat::Seat;

    /// A game some way into normal play, roads and buildings on the board.
    fn played() -> Game {
        let mut game = Game::new(GameOptions::default(), 5).unwrap();
        let mut player = RandomPlayer::new(5);
        let mut events = Vec::new();
        while game.turn() < 60 && !game.is_over() {
            player.step(&mut game, &mut events).unwrap();
        }
        game
    }

    #[test]
    fn a_view_answers_the_distance_rule_as_the_game_does() {
        //
        let game = played();
        let view = game.view(None);
        for v in 0..54 {
            let v = VertexId(v);
            assert_eq!(view.distance_ok(v), game.distance_ok(v), "{v:?}");
        }
        assert!(!view.distance_ok(VertexId(54)), "off the board");
    }

    #[test]
    fn a_view_lists_road_and_settlement_spots_as_the_game_does() {
        //
        let game = played();
        let view = game.view(None);
        for s in game.seats() {
            assert_eq!(view.road_spots(s), game.road_spots(s), "{s}");
            assert_eq!(view.settlement_spots(s), game.settlement_spots(s), "{s}");
        }
        assert!(game.seats().any(|s| view.settlement_spots(s) != 0));
        assert!(game.seats().any(|s| view.road_spots(s) != 0));
    }

    #[test]
    fn a_view_measures_routes_as_the_game_does_also_with_extra_roads() {
        //
        let game = played();
        let view = game.view(Some(Seat(0)));
        let occupied = game.occupied_vertices();
        for s in game.seats() {
            let p = game.player(s);
            assert_eq!(view.route_length_with(s, 0), p.road_length, "{s}");
            for e in 0..72u8 {
                let extra = EdgeId(e).bit() & !game.occupied_edges();
                let expected = rules::longest_route(p.roads | extra, occupied & !p.buildings());
                assert_eq!(view.route_length_with(s, extra), expected, "{s} {e}");
            }
        }
        // A sanity check that some extra road lengthens some route.
        let topo = topology();
        assert!(game.seats().any(|s| {
            let roads = game.player(s).roads;
            (0..72u8).any(|e| {
                let e = EdgeId(e);
                roads & e.bit() == 0
                    && topo.edge_vertex_mask[e.index()] & game.occupied_vertices() == 0
                    && view.route_length_with(s, e.bit()) > game.player(s).road_length
            })
        }));
    }
}
