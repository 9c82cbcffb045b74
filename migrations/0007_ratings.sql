-- Ratings (docs/protocol/25-players.md, section 25.8): each player's Weng-Lin
-- estimate (mean and uncertainty; a new player 25 and 25/3), its rated games and
-- wins. Written only when a rated game's result is stored, in the same
-- transaction.
ALTER TABLE players ADD COLUMN rating_mu DOUBLE PRECISION NOT NULL DEFAULT 25.0;
ALTER TABLE players ADD COLUMN rating_sigma DOUBLE PRECISION NOT NULL DEFAULT 8.333333333333334;
ALTER TABLE players ADD COLUMN rated_games BIGINT NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN rated_wins BIGINT NOT NULL DEFAULT 0;

CREATE INDEX players_by_rating ON players (rated_games, rating_mu);

-- What each rated game did to each seat's rating, in the order the updates were
-- made (`seq`, one per game, from `rating_seq`): the game record shows it, and the
-- ratings are recomputed from it (`catan-server ratings check`). `player_id` is the
-- seat's player (NULL for a seat without one), `bot` a built-in bot's level, whose
-- rating is fixed (before = after). `place` is the seat's place in the final order
-- (1 first; ties share), `turns` and `stood_in` the seat's turns and those a
-- stand-in played (a person replaced for more than a quarter of them is last).
CREATE TABLE rating_changes (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    player_id TEXT,
    bot TEXT,
    place BIGINT NOT NULL,
    turns BIGINT NOT NULL,
    stood_in BIGINT NOT NULL,
    mu_before DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after DOUBLE PRECISION NOT NULL,
    sigma_after DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX rating_changes_by_seq ON rating_changes (seq);
CREATE INDEX rating_changes_by_player ON rating_changes (player_id);

-- The number of the last rating update: taking the next one (an UPDATE of this one
-- row) also orders concurrent rated results one after the other on PostgreSQL.
CREATE TABLE rating_seq (
    id BIGINT PRIMARY KEY,
    last BIGINT NOT NULL
);

INSERT INTO rating_seq (id, last) VALUES (1, 0);

-- Whether a stand-in bot took the action for the seat's absent person (1) or not.
ALTER TABLE game_actions ADD COLUMN stand_in BIGINT NOT NULL DEFAULT 0;
