-- Notifications (docs/protocol/27-games-over-days.md, 27.6): a tap on the shoulder
-- when a move or an offer is a player's, or their time runs low.
-- `notify_channels`: each channel a player opted into. `kind` is web_push, email or
-- webhook; `target` the channel as JSON (catan_notify::Channel: a push endpoint and
-- keys, an address, or a webhook URL, format and secret); `lang` the BCP 47 tag the
-- notices are written in; `kinds` the notices it wants (JSON list of your_turn,
-- offer_to_you, time_low); `unsubscribe_hash` the SHA-256 of the token of its
-- unsubscribe link (the token itself is derived from a key, never stored).
CREATE TABLE notify_channels (
    id TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players (id),
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    lang TEXT NOT NULL,
    kinds TEXT NOT NULL,
    unsubscribe_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);

CREATE INDEX notify_channels_by_player ON notify_channels (player_id);

-- `notify_outbox`: one notice to deliver on one channel. `dedupe_key` names the
-- notice (player, room, kind, moment), so a notice queued twice (a restart, a
-- retry, a room woken) is stored once per channel. `notice` is the notice as JSON
-- (catan_notify::Notice); `shown` where it goes as the delivery log shows it, with
-- nothing secret (`a***@example.com`, `https://host/…`). `status`: pending, sent, failed (given up) or dropped
-- (no longer news, or its channel went). A pending row is due at `next_at`; a
-- worker that takes it sets `claimed_until`, so that no other instance sends it
-- meanwhile. `last_error` is the code of the last failure. Times are Unix ms.
CREATE TABLE notify_outbox (
    id TEXT PRIMARY KEY,
    player_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    channel_kind TEXT NOT NULL,
    shown TEXT NOT NULL,
    dedupe_key TEXT NOT NULL,
    notice TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    next_at BIGINT NOT NULL,
    last_error TEXT,
    claimed_until BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    sent_at BIGINT,
    UNIQUE (dedupe_key, channel_id)
);

CREATE INDEX notify_outbox_due ON notify_outbox (status, next_at);
CREATE INDEX notify_outbox_by_player ON notify_outbox (player_id, created_at);

-- `notify_keys`: keys the server made for itself on its first start and keeps
-- across restarts: `vapid` (the Web Push key pair's private key, base64url, when
-- the operator gives none) and `unsubscribe` (the key unsubscribe tokens derive from).
CREATE TABLE notify_keys (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
