-- Whether a game's room was listed publicly, as a column so that the public list of
-- finished games can leave unlisted (private) games out in SQL, on both databases.
-- Rows stored before this column existed take it from their options (JSON text,
-- written compactly by the server: `"listed":false`). NULL (a row inserted without
-- it, by an older writer) counts as unlisted: such a game is reachable by its id.
ALTER TABLE games ADD COLUMN listed BIGINT;

UPDATE games SET listed = CASE WHEN options LIKE '%"listed":false%' THEN 0 ELSE 1 END;
