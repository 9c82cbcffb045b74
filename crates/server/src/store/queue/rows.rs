//! The rows of quick play's tables in the store, as the server reads them.

use uuid::Uuid;

/// Where a queued player was seated.
#[derive(Clone, PartialEq, Eq)]
pub struct QueueSeat {
    /// The room of the table.
    pub room_id: Uuid,
    /// The player's seat.
    pub seat: u8,
    /// The seat's token, for the player's own status call.
    pub token: String,
    /// When (Unix ms).
    pub at: u64,
}

/// A table of the queue whose room was made (a row of `queue_tables`).
#[derive(Clone, PartialEq, Eq)]
pub struct QueueTable {
    /// The table's room.
    pub room_id: Uuid,
    /// The room's host token, to start its game.
    pub host_token: String,
    /// Seats at the table: 3 or 4.
    pub seats: u8,
    /// A rated table.
    pub rated: bool,
    /// When it formed (Unix ms).
    pub formed_at: u64,
}

impl std::fmt::Debug for QueueTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The host token is a secret: never in a log.
        f.debug_struct("QueueTable")
            .field("room_id", &self.room_id)
            .field("seats", &self.seats)
            .field("rated", &self.rated)
            .field("formed_at", &self.formed_at)
            .finish_non_exhaustive()
    }
}

/// A table whose game has not started, with its players' rows (each seated at it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingTable {
    /// The table.
    pub table: QueueTable,
    /// Its players still seated, in the order of their seats.
    pub players: Vec<QueueRow>,
}

impl std::fmt::Debug for QueueSeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The seat's token is a secret: never in a log.
        f.debug_struct("QueueSeat")
            .field("room_id", &self.room_id)
            .field("seat", &self.seat)
            .field("at", &self.at)
            .finish_non_exhaustive()
    }
}

/// A player in the queue (a row of `queue_tickets`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueRow {
    /// Who.
    pub player_id: Uuid,
    /// The ticket: one player's, or a party's (its members share it).
    pub ticket: Uuid,
    /// The name the player is seated under.
    pub name: String,
    /// Seats at the table wanted: 3 or 4.
    pub seats: u8,
    /// A rated table.
    pub rated: bool,
    /// Whether bots may complete the table.
    pub bots_ok: bool,
    /// The player's shown rating when they joined.
    pub rating: i32,
    /// When they joined (Unix ms).
    pub since: u64,
    /// Where they were seated; `None` while waiting.
    pub seated: Option<QueueSeat>,
}

/// A party of the queue: its code, its leader and its members (the leader among
/// them), in the order they joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartyRow {
    /// The code the leader shares.
    pub code: String,
    /// Who queues the party.
    pub leader: Uuid,
    /// The members and their names, the leader first.
    pub members: Vec<(Uuid, String)>,
}

/// What joining a party did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartyJoin {
    /// The player is a member now.
    Joined,
    /// No party has that code.
    NotFound,
    /// The party has as many members as it may.
    Full,
}
