//! Development cards: buying and playing, with the timing rules of.

use crate::dev_card::DevCard;
use crate::error::ActionError;
use crate::event::Event;
use crate::game::Game;
use crate::phase::{Phase, Resume};
use crate::resource::{Resource, Resources};
use crate::seat::{MAX_SEATS, Seat};

impl Game {
    pub(crate) fn buy_dev_card(
        &mut self,
        seat: Seat,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_turn(seat)?;
        if self.phase != Phase::Main {
            return Err(ActionError::WrongPhase);
        }
        if self.dev_deck.is_empty() {
            return Err(ActionError::DevDeckEmpty);
        }
        if !self.players[seat.index()]
            .hand
            .contains(&Resources::DEV_CARD)
        {
            return Err(ActionError::InsufficientResources);
        }
        let p = &mut self.players[seat.index()];
        p.hand.sub(&Resources::DEV_CARD);
        self.bank.add(&Resources::DEV_CARD);
        out.push(Event::Paid {
            seat,
            cards: Resources::DEV_CARD,
        });
        let card = self.dev_deck.pop().expect("checked non-empty");
        *p.dev_cards.get_mut(card) += 1;
        *p.dev_cards_new.get_mut(card) += 1;
        out.push(Event::DevCardBought {
            seat,
            card: Some(card),
        });
        Ok(())
    }

    /// the shared checks for playing `card`; returns where the turn resumes.
    pub(crate) fn check_play(&self, seat: Seat, card: DevCard) -> Result<Resume, ActionError> {
        self.require_turn(seat)?;
        let resume = match self.phase {
            Phase::PreRoll => Resume::PreRoll,
            Phase::Main => Resume::Main,
            _ => return Err(ActionError::WrongPhase),
        };
        if self.dev_played {
            return Err(ActionError::DevCardAlreadyPlayed);
        }
        if card == DevCard::VictoryPoint || self.players[seat.index()].playable(card) == 0 {
            return Err(ActionError::NoPlayableCard);
        }
        Ok(resume)
    }

    fn mark_played(&mut self, seat: Seat, card: DevCard, out: &mut Vec<Event>) {
        *self.players[seat.index()].dev_cards.get_mut(card) -= 1;
        self.dev_played = true;
        out.push(Event::DevCardPlayed { seat, card });
    }

    pub(crate) fn play_knight(
        &mut self,
        seat: Seat,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let resume = self.check_play(seat, DevCard::Knight)?;
        self.mark_played(seat, DevCard::Knight, out);
        self.players[seat.index()].knights_played += 1;
        self.update_largest_army(out);
        // robber and steal, no discard.
        self.set_phase(Phase::MoveRobber { resume }, out);
        Ok(())
    }

    pub(crate) fn play_road_building(
        &mut self,
        seat: Seat,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let resume = self.check_play(seat, DevCard::RoadBuilding)?;
        self.mark_played(seat, DevCard::RoadBuilding, out);
        // place what the supply and the board allow, possibly nothing.
        let left = self.players[seat.index()].roads_left();
        if left > 0 && self.road_spots(seat) != 0 {
            self.set_phase(
                Phase::RoadBuilding {
                    remaining: left.min(2),
                    resume,
                },
                out,
            );
        }
        Ok(())
    }

    pub(crate) fn play_year_of_plenty(
        &mut self,
        seat: Seat,
        take: Resources,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.check_play(seat, DevCard::YearOfPlenty)?;
        // two cards, or all the bank has if it holds fewer than two.
        let want = self.bank.total().min(2);
        if take.total() != want || !self.bank.contains(&take) {
            return Err(ActionError::InvalidYearOfPlenty);
        }
        self.mark_played(seat, DevCard::YearOfPlenty, out);
        self.bank.sub(&take);
        self.players[seat.index()].hand.add(&take);
        out.push(Event::YearOfPlenty { seat, cards: take });
        Ok(())
    }

    pub(crate) fn play_monopoly(
        &mut self,
        seat: Seat,
        resource: Resource,
        out: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.check_play(seat, DevCard::Monopoly)?;
        self.mark_played(seat, DevCard::Monopoly, out);
        // every opponent hands over all of it; the bank gives nothing.
        let mut taken = [0u8; MAX_SEATS];
        let mut total = 0;
        for s in self.seats() {
            if s == seat {
                continue;
            }
            let n = self.players[s.index()].hand.get(resource);
            *self.players[s.index()].hand.get_mut(resource) = 0;
            taken[s.index()] = n;
            total += n;
        }
        *self.players[seat.index()].hand.get_mut(resource) += total;
        out.push(Event::Monopoly {
            seat,
            resource,
            taken,
        });
        Ok(())
    }
}
