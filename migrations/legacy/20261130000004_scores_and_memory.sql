-- Turn scores, critical facts and rolling memory (SPEC §5), done by
-- background workers that claim their work through these columns.

ALTER TABLE turns
    -- 1–5; NULL until scored.
    ADD COLUMN score smallint,
    -- 'llm', 'heuristic' or 'audit'.
    ADD COLUMN score_source text,
    ADD COLUMN scored_at timestamptz,
    -- A worker is scoring it since then; a claim older than the claim
    -- timeout was abandoned (the worker died) and is taken again.
    ADD COLUMN score_claimed_at timestamptz,
    -- Its score call failed: the scorer leaves it to the next audit.
    ADD COLUMN score_failed boolean NOT NULL DEFAULT false,
    -- Out of the live context since an audit; still stored and readable.
    ADD COLUMN evicted boolean NOT NULL DEFAULT false;

-- What the scorer claims, oldest first.
CREATE INDEX turns_to_score ON turns (at) WHERE score IS NULL AND NOT score_failed;

ALTER TABLE conversations
    -- Turns scored 5, word for word: [{turn_id, user, assistant}], deduplicated.
    ADD COLUMN critical jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN memory text,
    -- The newest turn the memory has taken in.
    ADD COLUMN memory_turn_seq bigint NOT NULL DEFAULT 0,
    -- The newest turn when the last audit ran.
    ADD COLUMN audited_turn_seq bigint NOT NULL DEFAULT 0,
    -- An audit is running since then (claimed like a turn).
    ADD COLUMN audit_claimed_at timestamptz,
        -- When an audit last failed: a failing upstream is not retried at once.
    ADD COLUMN audit_attempted_at timestamptz;

-- The idle sweep looks across tenants by the time of the last turn.
CREATE INDEX conversations_idle_sweep ON conversations (last_turn_at) WHERE last_turn_at IS NOT NULL;
