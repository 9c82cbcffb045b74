-- A sleeping room's reconnect backlog (docs/protocol/27-games-over-days.md, 27.5):
-- the last broadcasts (game events unredacted, as the log holds them) and the chat
-- kept for `history`, as JSON, written when the room falls asleep and cleared when
-- it wakes, so that a player who reconnects with an older `last_seq` gets the
-- messages they missed, as if the room had never slept. NULL while the room is
-- awake, and for rooms put to sleep before this column existed (a reconnect then
-- gets a snapshot).
ALTER TABLE games ADD COLUMN slept_backlog TEXT;
