-- Rooms still gathering players, so that they survive a restart: the room's options,
-- the host's token digest, and the seats taken (JSON: seat, name, bot, token_hash).
-- A row goes when its game starts (in the same transaction as the game's row), when
-- the room is closed, or when it is removed for being idle. `seq` is the number of
-- the room's last broadcast when the row was written (a restored room numbers its
-- broadcasts past it).
CREATE TABLE lobby_rooms (
    id TEXT PRIMARY KEY,
    options TEXT NOT NULL,
    host_token_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    seats TEXT NOT NULL,
    seq BIGINT NOT NULL
);
