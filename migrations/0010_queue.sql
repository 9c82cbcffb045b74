-- Quick play's queue (docs/protocol/26-quick-play.md): a row per player waiting for
-- a table or just seated at one, at most one per player. Players queued together
-- (a party) share a `ticket`. `seats` is 3 or 4; `rated` and `bots_ok` are 0 or 1;
-- `rating` the player's shown rating when they joined; `since` when (Unix ms).
-- When a table forms, `room_id` and `seat` say where the player sits and
-- `seat_token` is their seat's token, kept for their own status call until the row
-- goes, a few minutes after `seated_at`.
CREATE TABLE queue_tickets (
    player_id TEXT PRIMARY KEY REFERENCES players (id),
    ticket TEXT NOT NULL,
    name TEXT NOT NULL,
    seats BIGINT NOT NULL,
    rated BIGINT NOT NULL,
    bots_ok BIGINT NOT NULL,
    rating BIGINT NOT NULL,
    since BIGINT NOT NULL,
    room_id TEXT,
    seat BIGINT,
    seat_token TEXT,
    seated_at BIGINT
);

CREATE INDEX queue_tickets_waiting ON queue_tickets (seats, rated, since);
