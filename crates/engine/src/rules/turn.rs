//! Ending a turn, and the game with the last allowed one.

use crate::error::ActionError;
use crate::event::Event;
use crate::game::Game;
use crate::phase::Phase;
use crate::seat::Seat;
use crate::trade::OfferClosed;

impl Game {
    pub(crate) fn end_turn(&mut self, seat: Seat, out: &mut Vec<Event>) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        match self.phase {
            Phase::Main => {}
            Phase::MoveRobber { .. } | Phase::Discard { .. } | Phase::RoadBuilding { .. } => {
                return Err(ActionError::PendingStep);
            }
            _ => return Err(ActionError::WrongPhase),
        }
        // open offers close with the turn.
        if !self.offers.is_empty() {
            for o in self.offers.drain(..) {
                out.push(Event::OfferClosed {
                    offer: o.id,
                    reason: OfferClosed::TurnEnded,
                });
            }
        }
        // the last allowed turn has ended without a winner (a win would have
        // ended the game already), so no turn follows, and nobody wins at its start
        // . The rest stays as it stands, as after a win. A game saved before
        // the limit existed may be past it: it ends with the turn being played.
        if self.turn >= u32::from(self.options.turn_limit) {
            out.push(Event::TurnLimitReached { turn: self.turn });
            self.set_phase(Phase::Over { winner: None }, out);
            return Ok(());
        }
        let p = &mut self.players[seat.index()];
        p.dev_cards_new = crate::dev_card::DevCards::default();
        self.dev_played = false;
        self.current = self.next_seat(seat);
        self.turn += 1;
        out.push(Event::TurnStarted {
            seat: self.current,
            turn: self.turn,
        });
        self.set_phase(Phase::PreRoll, out);
        Ok(())
    }
}
