//! Parties (protocol 26.3): a player makes a party and shares its code; up to two
//! friends join it; when the leader joins the queue, every member is queued with
//! one ticket, seated at one table, and the party ends.

use std::sync::Arc;

use catan_protocol::{LobbyError, PartyInfo, PartyMember};
use uuid::Uuid;

use crate::players::{Session, now_ms};
use crate::store::{PartyJoin, PartyRow, Store, StoreError};

/// Most members of a party (a table of three or four keeps a seat for others).
pub const MOST: u8 = 3;

/// The letters of a party code: no 0/O, 1/I/L, easy to read aloud and to type.
const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// Characters of a party code.
const CODE_CHARS: usize = 6;

fn new_code() -> String {
    (0..CODE_CHARS)
        .map(|_| char::from(ALPHABET[rand::random_range(0..ALPHABET.len())]))
        .collect()
}

/// `party` as the API shows it.
#[must_use]
pub fn shown(party: &PartyRow) -> PartyInfo {
    PartyInfo {
        code: party.code.clone(),
        leader: party.leader,
        members: party
            .members
            .iter()
            .map(|(id, name)| PartyMember {
                id: *id,
                name: name.clone(),
            })
            .collect(),
    }
}

fn stored(e: StoreError) -> LobbyError {
    match e {
        StoreError::Conflict(_) => LobbyError::AlreadyInParty,
        other => {
            tracing::warn!(error = %other, "party store call failed");
            LobbyError::StoreUnavailable
        }
    }
}

/// The parties' calls.
pub struct Parties {
    store: Arc<dyn Store>,
}

impl std::fmt::Debug for Parties {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parties").finish_non_exhaustive()
    }
}

impl Parties {
    /// The parties kept in `store`.
    #[must_use]
    pub fn new(store: Arc<dyn Store>) -> Parties {
        Parties { store }
    }

    /// Makes a party led by `me`.
    ///
    /// # Errors
    /// `already_in_party`, `store_unavailable`.
    pub async fn create(&self, me: &Session) -> Result<PartyInfo, LobbyError> {
        if self
            .store
            .party_of(me.player.id)
            .await
            .map_err(stored)?
            .is_some()
        {
            return Err(LobbyError::AlreadyInParty);
        }
        // A code taken (one chance in 887 million per party alive) is drawn again.
        for _ in 0..3 {
            let code = new_code();
            match self
                .store
                .party_create(&code, me.player.id, &me.player.name, now_ms())
                .await
            {
                Ok(()) => return self.show(me).await,
                Err(StoreError::Conflict(_)) => {
                    if self
                        .store
                        .party_of(me.player.id)
                        .await
                        .map_err(stored)?
                        .is_some()
                    {
                        return Err(LobbyError::AlreadyInParty);
                    }
                }
                Err(e) => return Err(stored(e)),
            }
        }
        Err(LobbyError::StoreUnavailable)
    }

    /// `me` joins party `code` (any case).
    ///
    /// # Errors
    /// `party_not_found`, `party_full`, `already_in_party`, `store_unavailable`.
    pub async fn join(&self, me: &Session, code: &str) -> Result<PartyInfo, LobbyError> {
        let code = code.trim().to_ascii_uppercase();
        match self
            .store
            .party_join(&code, me.player.id, &me.player.name, now_ms(), MOST)
            .await
            .map_err(stored)?
        {
            PartyJoin::Joined => self.show(me).await,
            PartyJoin::NotFound => Err(LobbyError::PartyNotFound),
            PartyJoin::Full => Err(LobbyError::PartyFull),
        }
    }

    /// The party of `me`.
    ///
    /// # Errors
    /// `not_in_party`, `store_unavailable`.
    pub async fn show(&self, me: &Session) -> Result<PartyInfo, LobbyError> {
        self.of(me.player.id)
            .await?
            .map(|p| shown(&p))
            .ok_or(LobbyError::NotInParty)
    }

    /// The party `player` is in, if any.
    ///
    /// # Errors
    /// `store_unavailable`.
    pub async fn of(&self, player: Uuid) -> Result<Option<PartyRow>, LobbyError> {
        self.store.party_of(player).await.map_err(stored)
    }

    /// `me` leaves their party (its leader ends it).
    ///
    /// # Errors
    /// `not_in_party`, `store_unavailable`.
    pub async fn leave(&self, me: &Session) -> Result<(), LobbyError> {
        if self.store.party_leave(me.player.id).await.map_err(stored)? {
            Ok(())
        } else {
            Err(LobbyError::NotInParty)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_six_readable_characters() {
        for _ in 0..100 {
            let code = new_code();
            assert_eq!(code.len(), CODE_CHARS);
            assert!(code.bytes().all(|b| ALPHABET.contains(&b)), "{code}");
            assert!(!code.contains(['0', 'O', '1', 'I', 'L']), "{code}");
        }
    }
}
