-- Several instances on one PostgreSQL (docs/cluster.md): who is alive, and which
-- instance owns each started game's room. A single instance (SQLite or PostgreSQL
-- without --cluster-address) never reads or writes these tables.
CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL,
    rooms BIGINT NOT NULL,
    draining BIGINT NOT NULL
);

-- One owner per room at a time. `epoch` grows by one at every change of owner; every
-- write of the room is checked against it in the same statement (fencing).
-- `expires_at` (Unix ms) is renewed by the owner; past it, any instance may claim it.
CREATE TABLE room_leases (
    room_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    epoch BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX room_leases_by_expiry ON room_leases (expires_at);
CREATE INDEX room_leases_by_owner ON room_leases (owner);

-- Settings the instances share. `secret`: a random value the first instance writes;
-- a request one instance forwards to another carries it, so that the owner trusts
-- the client address it names (the per-address limits) and the origin check made.
CREATE TABLE cluster_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
