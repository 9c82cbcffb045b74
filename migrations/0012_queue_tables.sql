-- Quick play's tables (docs/protocol/26-quick-play.md, 26.4): a row per room a
-- table of the queue was seated at, until its game starts. The game starts once
-- every person seated is connected; a person not connected within the server's
-- connect time is dropped and the seat filled again from the queue (or by bots).
-- The row lets whichever instance owns the room (also after a takeover) finish
-- that: `host_token` is the room's host token, to start it; `formed_at` when the
-- table formed (Unix ms); `started` 1 once its game started. The players' rows of
-- `queue_tickets` name the room in `room_id`.
CREATE TABLE queue_tables (
    room_id TEXT PRIMARY KEY,
    host_token TEXT NOT NULL,
    seats BIGINT NOT NULL,
    rated BIGINT NOT NULL,
    formed_at BIGINT NOT NULL,
    started BIGINT NOT NULL
);
