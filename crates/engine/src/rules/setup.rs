//! Setup placements: snake order, free pieces, starting resources.

use crate::board::{EdgeId, VertexId, topology};
use crate::event::Event;
use crate::game::Game;
use crate::phase::Phase;
use crate::resource::Resources;
use crate::seat::Seat;

impl Game {
    /// places a setup settlement on a legal spot (checked by the caller).
    pub(crate) fn place_setup_settlement(
        &mut self,
        seat: Seat,
        index: u8,
        v: VertexId,
        out: &mut Vec<Event>,
    ) {
        self.place_settlement(seat, v);
        out.push(Event::SettlementBuilt { seat, vertex: v });
        // the second settlement yields one card per adjacent producing tile.
        if index >= self.options.players {
            let mut cards = Resources::ZERO;
            for t in &topology().vertex_tiles[v.index()] {
                if let Some(r) = self.map.terrain[t.index()].resource()
                    && self.bank.get(r) > cards.get(r)
                {
                    *cards.get_mut(r) += 1;
                }
            }
            if !cards.is_empty() {
                self.bank.sub(&cards);
                self.players[seat.index()].hand.add(&cards);
                out.push(Event::StartingResources { seat, cards });
            }
        }
        self.update_longest_road_after_settlement(seat, v, out);
        self.set_phase(
            Phase::Setup {
                index,
                settlement: Some(v),
            },
            out,
        );
    }

    /// the road of a setup placement, then the next placement or the first turn.
    pub(crate) fn place_setup_road(
        &mut self,
        seat: Seat,
        index: u8,
        e: EdgeId,
        out: &mut Vec<Event>,
    ) {
        self.players[seat.index()].roads |= e.bit();
        out.push(Event::RoadBuilt { seat, edge: e });
        self.update_longest_road_after_road(seat, e, out);
        let next = index + 1;
        if next == 2 * self.options.players {
            // the first player starts the first normal turn.
            self.current = self.first;
            self.turn = 1;
            out.push(Event::TurnStarted {
                seat: self.current,
                turn: self.turn,
            });
            self.set_phase(Phase::PreRoll, out);
        } else {
            self.current = crate::rules::setup_seat(self.first, self.options.players, next);
            self.set_phase(
                Phase::Setup {
                    index: next,
                    settlement: None,
                },
                out,
            );
        }
    }
}
