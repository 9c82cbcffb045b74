-- Players who last beyond one room (docs/protocol/25-players.md): a guest has an id
-- and a display name; an account is a guest that claimed its name (`name_key`, the
-- normalised, case-folded name, unique among accounts) with a password (Argon2id
-- PHC string). A deleted player keeps its row (so that stored games still name a
-- player) with its name replaced, its name key and password cleared. Times are Unix
-- milliseconds.
CREATE TABLE players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT UNIQUE,
    password_hash TEXT,
    created_at BIGINT NOT NULL,
    claimed_at BIGINT,
    deleted_at BIGINT
);

-- Sessions: a browser's cookie or an app's bearer token, kept only as its SHA-256
-- digest. `id` is the session's public id (to list and revoke it), never the token.
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    player_id TEXT NOT NULL REFERENCES players (id),
    label TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX sessions_by_player ON sessions (player_id);

-- The player a seat of a stored game belonged to, when its person had a player
-- identity (NULL for bots and for seats taken without one, and in every game stored
-- before this migration).
ALTER TABLE game_players ADD COLUMN player_id TEXT;

CREATE INDEX game_players_by_player ON game_players (player_id);
