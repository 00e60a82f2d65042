-- Tenant purges and retention (issue 25, SPEC §3): every conversation of a
-- tenant, or every conversation idle past COMPACTD_RETENTION_DAYS, deleted
-- as DELETE /conversations/{id} deletes one, in short batches.

-- A purge of a tenant's conversations: asked for by its admin key
-- (POST /tenant/purges) or an operator (`compactd tenants purge T`), and
-- worked in batches by whichever process holds its lease. It deletes the
-- conversations that existed when it was asked for; counts grow with each
-- batch, in that batch's transaction.
CREATE TABLE purges (
    tenant        text        NOT NULL,
    id            bigint      GENERATED ALWAYS AS IDENTITY,
    requested_at  timestamptz NOT NULL DEFAULT now(),
    -- The key that asked; NULL for the command line and open mode.
    key_id        text,
    -- 'api' or 'command line'.
    requested_by  text        NOT NULL,
    -- Leased while a process works it (store/lease.rs).
    claimed_at    timestamptz,
    finished_at   timestamptz,
    batches       bigint      NOT NULL DEFAULT 0,
    conversations bigint      NOT NULL DEFAULT 0,
    turns         bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, id)
);
-- At most one unfinished purge a tenant: asking again answers that one.
CREATE UNIQUE INDEX purges_one_unfinished ON purges (tenant) WHERE finished_at IS NULL;
CREATE INDEX purges_to_work ON purges (requested_at) WHERE finished_at IS NULL;

-- When the service stored a conversation, by its own clock (`created_at`
-- is the caller's `at`, which may run ahead or behind): a purge deletes
-- the conversations stored before it was asked for.
ALTER TABLE conversations ADD COLUMN stored_at timestamptz NOT NULL DEFAULT now();

-- The day (UTC) anything last wrote to a conversation, by the service's
-- clock, for retention to find the idle across tenants. Derived from
-- `updated_at`, which every write sets; stored and indexed as a day, it
-- changes once a day at most, so the hot path's updates stay HOT (an index
-- on `updated_at` itself would cost every update its HOT).
ALTER TABLE conversations
    ADD COLUMN active_on date GENERATED ALWAYS AS ((updated_at AT TIME ZONE 'UTC')::date) STORED;
CREATE INDEX conversations_by_active_day ON conversations (active_on);

-- /stats counts deletions over a span.
CREATE INDEX deletions_by_time ON deletions (tenant, at);

-- A deletion's audit line names two more kinds: 'tenant' (a batch of a
-- purge; its key_id is the purge's) and 'retention' (a batch of one
-- tenant's idle conversations; no key).
