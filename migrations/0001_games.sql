-- Games, their players and their append-only action logs.
-- Portable between PostgreSQL and SQLite: text ids, BIGINT numbers, JSON as TEXT,
-- times as Unix milliseconds. Never edit an applied migration; add a new one.

CREATE TABLE games (
    id TEXT PRIMARY KEY,
    options TEXT NOT NULL,
    seed TEXT NOT NULL,
    seed_salt TEXT NOT NULL,
    seed_commitment TEXT NOT NULL,
    host_token_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    finished_at BIGINT,
    winner BIGINT,
    final_scores TEXT
);

CREATE INDEX games_by_status ON games (status, finished_at);

CREATE TABLE game_players (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat BIGINT NOT NULL,
    name TEXT NOT NULL,
    bot TEXT,
    token_hash TEXT NOT NULL,
    final_vp BIGINT,
    vp_cards BIGINT,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX game_players_by_name ON game_players (name);

CREATE TABLE game_actions (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL,
    room_seq BIGINT NOT NULL,
    seat BIGINT,
    action TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
