-- The highest sequence number a room may have given its broadcasts, written ahead of
-- its counter in blocks, so that a room restored after a restart numbers its
-- broadcasts after every number used before (chat and presence messages included,
-- which the action log does not record). NULL: none reserved (a game stored before
-- this column existed); such a room is restored a block after its last action.
ALTER TABLE games ADD COLUMN seq_reserved BIGINT;
