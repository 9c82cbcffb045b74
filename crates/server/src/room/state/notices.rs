//! What a game over days shows its notifications (`crate::notify::triggers`): the
//! moves the seats owe, the open offers and who may take each, and for each the
//! seat's person (their player, name, and whether they are connected now).

use catan_engine::Seat;

use super::Room;
use crate::notify::{Facts, Owed, Person};

impl Room {
    /// The notifications' view of a game over days in play; `None` for a live
    /// game, or a room not playing.
    pub(crate) fn notice_facts(&self) -> Option<Facts> {
        let days = self.options.days?;
        let m = self.stage.game()?;
        let clock = m.clock()?;
        let game = m.game();
        let moves = clock
            .moves(game)
            .into_iter()
            .filter_map(|(seat, since, deadline)| {
                Some(Owed {
                    seat: seat.0,
                    person: self.notice_person(seat)?,
                    since,
                    deadline,
                })
            })
            .collect();
        let offers = game
            .offers()
            .iter()
            .map(|o| {
                let takers = game
                    .seats()
                    .filter(|s| *s != o.from && o.to.is_none_or(|t| t == *s))
                    .filter_map(|s| self.notice_person(s))
                    .collect();
                (u64::from(o.id.0), takers)
            })
            .collect();
        Some(Facts {
            moves,
            offers,
            move_hours: days.move_hours,
        })
    }

    /// The person in `seat`, if a signed-in person sits there.
    fn notice_person(&self, seat: Seat) -> Option<Person> {
        if !self.seats.is_person(seat) {
            return None;
        }
        Some(Person {
            player: self.seats.player(seat)?,
            name: self.seats.name(seat)?,
            connected: self.conns.of_seat(seat).is_some(),
        })
    }
}
