-- Games over days (docs/protocol/27-games-over-days.md). Each column is an index of
-- what the action log already says, kept so that a game need not be loaded to be
-- listed or woken:
-- `clocks`: each seat's clock as the room last computed it (JSON list of
--   SeatClock), for a player's list of their games; NULL for a live game.
-- `next_deadline`: the earliest seat deadline (Unix ms), NULL when none; a sleeping
--   room is woken when it comes.
-- `slept_seq`: the number of the last broadcast of a room that went to sleep (it
--   numbers on from exactly there when woken); NULL while it is awake.
ALTER TABLE games ADD COLUMN clocks TEXT;
ALTER TABLE games ADD COLUMN next_deadline BIGINT;
ALTER TABLE games ADD COLUMN slept_seq BIGINT;
CREATE INDEX games_by_next_deadline ON games (status, next_deadline);
