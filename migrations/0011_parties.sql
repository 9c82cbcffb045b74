-- Quick play's parties (docs/protocol/26-quick-play.md, 26.3): friends who queue
-- together. A party has a code its leader shares; its members (the leader among
-- them) are at most three. When the leader queues, every member is queued with
-- the party's ticket and the party goes.
CREATE TABLE queue_parties (
    code TEXT PRIMARY KEY,
    leader TEXT NOT NULL REFERENCES players (id),
    created_at BIGINT NOT NULL
);

CREATE TABLE queue_party_members (
    player_id TEXT PRIMARY KEY REFERENCES players (id),
    code TEXT NOT NULL REFERENCES queue_parties (code),
    name TEXT NOT NULL,
    joined_at BIGINT NOT NULL
);
