//! The seats: who sits in each (a person or a built-in bot, by name) and the digest
//! of each seat's token, beside the host's. Every question of who may do what with a
//! token is answered here, and only here are seats taken and freed.

use catan_engine::Seat;
use catan_protocol::{BotKind, Occupant};

use super::seat_at;
use crate::error::LobbyError;
use crate::store::PlayerRecord;
use crate::token::{self, TokenHash};

/// What a restored room's bots get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BotTokens {
    /// New tokens, to be started with: the game goes on.
    Fresh,
    /// Their stored ones (no bot runs: the game is over).
    Kept,
}

/// One taken seat.
#[derive(Debug, Clone)]
struct Taken {
    /// Who sits here.
    occupant: Occupant,
    /// The digest of the seat's token (the token itself is never kept).
    token: TokenHash,
    /// The signed-in player who took it, if any.
    player: Option<uuid::Uuid>,
}

/// The room's seats and the host's token.
#[derive(Debug)]
pub(crate) struct Seats {
    /// The digest of the secret for host-only calls.
    host: TokenHash,
    /// Each seat, `players` long; `None` while free.
    seats: Vec<Option<Taken>>,
}

impl Seats {
    /// `players` free seats, with the host's token `host`.
    pub(super) fn new(players: u8, host: TokenHash) -> Seats {
        Seats {
            host,
            seats: vec![None; usize::from(players)],
        }
    }

    /// The seats of a stored game. People keep their tokens (only the digests were
    /// stored); with [`BotTokens::Fresh`] each bot gets a new token, returned to
    /// start it with (a bot's old token died with the process that ran it).
    pub(super) fn restored(
        host: TokenHash,
        count: usize,
        players: &[PlayerRecord],
        bot_tokens: BotTokens,
    ) -> (Seats, Vec<(String, BotKind)>) {
        let mut bots = Vec::new();
        let mut seats = vec![None; count];
        for p in players {
            let Some(place) = seats.get_mut(p.seat.index()) else {
                continue;
            };
            let token = match p.bot {
                Some(kind) if bot_tokens == BotTokens::Fresh => {
                    let t = token::new_token();
                    let hash = TokenHash::of(&t);
                    bots.push((t, kind));
                    hash
                }
                _ => TokenHash::from_stored(p.token_hash.clone()),
            };
            *place = Some(Taken {
                occupant: Occupant {
                    name: p.name.clone(),
                    bot: p.bot,
                },
                token,
                player: p.player_id,
            });
        }
        (Seats { host, seats }, bots)
    }

    /// The host's token digest, to store.
    pub(super) fn host(&self) -> &TokenHash {
        &self.host
    }

    /// Whether `token` is the host's.
    pub(super) fn is_host(&self, token: &str) -> bool {
        self.host.verifies(token)
    }

    /// `NotHost` unless `token` is the host's.
    pub(super) fn check_host(&self, token: &str) -> Result<(), LobbyError> {
        if self.is_host(token) {
            Ok(())
        } else {
            Err(LobbyError::NotHost)
        }
    }

    /// The seat whose token this is.
    pub(super) fn seat_of_token(&self, token: &str) -> Option<Seat> {
        self.seats
            .iter()
            .position(|s| s.as_ref().is_some_and(|t| t.token.verifies(token)))
            .map(seat_at)
    }

    /// Whether `token` is a person's seat token (not a bot's).
    pub(super) fn is_persons_token(&self, token: &str) -> bool {
        self.seat_of_token(token).is_some_and(|s| self.is_person(s))
    }

    /// Who sits in `seat`.
    pub(super) fn occupant(&self, seat: Seat) -> Option<&Occupant> {
        self.seats
            .get(seat.index())
            .and_then(Option::as_ref)
            .map(|t| &t.occupant)
    }

    /// Whether a person (not a built-in bot) sits in `seat`.
    pub(super) fn is_person(&self, seat: Seat) -> bool {
        self.occupant(seat).is_some_and(|o| o.bot.is_none())
    }

    /// Whether `seat` exists.
    pub(super) fn exists(&self, seat: Seat) -> bool {
        seat.index() < self.seats.len()
    }

    /// Whether `seat` exists and nobody sits in it.
    pub(super) fn is_free(&self, seat: Seat) -> bool {
        self.seats.get(seat.index()).is_some_and(Option::is_none)
    }

    /// The first free seat.
    pub(super) fn first_free(&self) -> Option<Seat> {
        self.seats.iter().position(Option::is_none).map(seat_at)
    }

    /// Whether every seat is taken.
    pub(super) fn all_taken(&self) -> bool {
        self.seats.iter().all(Option::is_some)
    }

    /// Whether no seat is taken.
    pub(super) fn none_taken(&self) -> bool {
        self.seats.iter().all(Option::is_none)
    }

    /// The seats and who sits in each.
    pub(super) fn occupants(&self) -> impl Iterator<Item = (Seat, Option<&Occupant>)> {
        self.seats
            .iter()
            .enumerate()
            .map(|(i, s)| (seat_at(i), s.as_ref().map(|t| &t.occupant)))
    }

    /// The display name of `seat`'s occupant.
    pub(super) fn name(&self, seat: Seat) -> Option<String> {
        self.occupant(seat).map(|o| o.name.clone())
    }

    /// Seats `occupant` in the free seat `seat`; returns the seat's new token.
    pub(super) fn sit(
        &mut self,
        seat: Seat,
        occupant: Occupant,
        player: Option<uuid::Uuid>,
    ) -> String {
        let token = token::new_token();
        self.seats[seat.index()] = Some(Taken {
            occupant,
            token: TokenHash::of(&token),
            player,
        });
        token
    }

    /// Whether `player` has a seat here.
    pub(super) fn has_player(&self, player: uuid::Uuid) -> bool {
        self.seats
            .iter()
            .flatten()
            .any(|t| t.player == Some(player))
    }

    /// The player whose seat `seat` is, if a signed-in person took it.
    pub(super) fn player(&self, seat: Seat) -> Option<uuid::Uuid> {
        self.seats.get(seat.index())?.as_ref()?.player
    }

    /// The signed-in players seated here.
    pub(super) fn players(&self) -> Vec<(uuid::Uuid, Seat)> {
        self.seats
            .iter()
            .enumerate()
            .filter_map(|(i, t)| Some((t.as_ref()?.player?, seat_at(i))))
            .collect()
    }

    /// The seats of `player`.
    pub(super) fn of_player(&self, player: uuid::Uuid) -> Vec<Seat> {
        self.seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.as_ref().is_some_and(|t| t.player == Some(player)))
            .map(|(i, _)| seat_at(i))
            .collect()
    }

    /// Frees `seat`: its token stops working.
    pub(super) fn free(&mut self, seat: Seat) {
        if let Some(s) = self.seats.get_mut(seat.index()) {
            *s = None;
        }
    }

    /// The seats of built-in bots and their kinds.
    pub(super) fn bots(&self) -> Vec<(Seat, BotKind)> {
        self.occupants()
            .filter_map(|(seat, o)| Some((seat, o?.bot?)))
            .collect()
    }

    /// The seats as the store keeps them at the start of the game.
    pub(super) fn records(&self) -> Vec<PlayerRecord> {
        self.seats
            .iter()
            .enumerate()
            .map(|(i, s)| PlayerRecord {
                seat: seat_at(i),
                name: s
                    .as_ref()
                    .map(|t| t.occupant.name.clone())
                    .unwrap_or_default(),
                bot: s.as_ref().and_then(|t| t.occupant.bot),
                token_hash: s
                    .as_ref()
                    .map(|t| t.token.as_str().to_owned())
                    .unwrap_or_default(),
                final_vp: None,
                vp_cards: None,
                player_id: s.as_ref().and_then(|t| t.player),
                rating: None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_token_opens_its_seat_only_and_the_host_token_no_seat() {
        let host = token::new_token();
        let mut s = Seats::new(3, TokenHash::of(&host));
        assert!(s.is_host(&host) && s.check_host("x").is_err());
        let ann = s.sit(
            Seat(1),
            Occupant {
                name: "ann".into(),
                bot: None,
            },
            None,
        );
        let bot = s.sit(
            Seat(0),
            Occupant {
                name: "Bot 1".into(),
                bot: Some(BotKind::Easy),
            },
            None,
        );
        assert_eq!(s.seat_of_token(&ann), Some(Seat(1)));
        assert_eq!(s.seat_of_token(&host), None);
        assert!(s.is_persons_token(&ann) && !s.is_persons_token(&bot));
        assert_eq!(s.first_free(), Some(Seat(2)));
        assert!(!s.all_taken() && !s.none_taken());
        assert_eq!(s.bots(), vec![(Seat(0), BotKind::Easy)]);
        s.free(Seat(1));
        assert_eq!(s.seat_of_token(&ann), None, "a freed seat's token is dead");
        assert!(s.is_free(Seat(1)) && !s.is_free(Seat(3)) && !s.exists(Seat(3)));
    }
}
