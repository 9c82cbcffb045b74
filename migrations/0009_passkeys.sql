-- Passkeys (docs/protocol/25-players.md, section 25.10): an account's WebAuthn
-- credentials. `id` is the credential id (base64url, unique across the server);
-- `credential` is the verifier's record of it as JSON (its public key, algorithm
-- and signature counter: nothing secret); `label` what the player called it.
-- A deleted player's passkeys are deleted with its sessions.
CREATE TABLE passkeys (
    id TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players (id),
    label TEXT NOT NULL,
    credential TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT
);

CREATE INDEX passkeys_by_player ON passkeys (player_id);

-- The passkey ceremonies under way: the server's side of a registration (`kind`
-- `register`, `player_id` the account's) or a sign-in (`authenticate`, no player
-- yet), kept from its start to its finish, which takes it (once) before
-- `expires_at`. Kept in the database so that a start and a finish may reach
-- different instances of a cluster.
CREATE TABLE passkey_ceremonies (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    player_id TEXT,
    state TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
