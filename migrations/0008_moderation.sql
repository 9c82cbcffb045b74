-- Moderation (docs/protocol/22-admin-api.md, section 22.9): the bans and mutes in
-- force, one of each kind at most per player (`kind` is `ban` or `mute`; `until_at`
-- NULL until an administrator lifts it; an expired row is not in force and goes at
-- the player's next moderation), and the audit log of every moderation action
-- (`action` is `ban`, `unban`, `mute` or `unmute`; `by_name` the administrator who
-- took it, as they named themselves: the admin API has one token, not accounts),
-- never rewritten. Times are Unix milliseconds.
CREATE TABLE sanctions (
    player_id TEXT NOT NULL REFERENCES players (id),
    kind TEXT NOT NULL,
    since BIGINT NOT NULL,
    until_at BIGINT,
    reason TEXT NOT NULL,
    PRIMARY KEY (player_id, kind)
);

CREATE TABLE moderation_log (
    id TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players (id),
    action TEXT NOT NULL,
    reason TEXT NOT NULL,
    until_at BIGINT,
    by_name TEXT NOT NULL,
    at BIGINT NOT NULL
);

CREATE INDEX moderation_log_by_player ON moderation_log (player_id, at);
