-- The compaction ledger (SPEC §3 /summarize): every attempt, successful or
-- not, and what it did. Keyed by tenant and conversation first, like the rest.

CREATE TABLE compactions (
    -- A fleet-wide number for paging the fleet's history, newest first.
    id                      bigint      GENERATED ALWAYS AS IDENTITY,
    tenant                  text        NOT NULL,
    conversation_id         text        NOT NULL,
    -- 1, 2, 3… within the conversation: attempts, failed ones included.
    seq                     bigint      NOT NULL,
    at                      timestamptz NOT NULL,
    trigger                 text        NOT NULL,
    by_host                 boolean     NOT NULL,
    idle                    boolean     NOT NULL,
    -- 'llm', 'extractive' or 'harness'.
    summarizer              text        NOT NULL,
    model                   text,
    tokens_before           bigint      NOT NULL,
    tokens_after            bigint      NOT NULL,
    tokens_saved            bigint      NOT NULL,
    percent_saved           smallint    NOT NULL,
    total_messages          integer     NOT NULL,
    user_messages           integer     NOT NULL,
    assistant_messages      integer     NOT NULL,
    tool_messages           integer     NOT NULL,
    kept_from               integer,
    duration_ms             bigint      NOT NULL,
    upstream_input_tokens   bigint,
    upstream_output_tokens  bigint,
    success                 boolean     NOT NULL,
    error                   text,
    -- The summary this attempt wrote (NULL when it failed).
    summary                 text,
    -- The pinned prompt it was written under, for reproducibility.
    prompt_version          text,
    recorded_at             timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, conversation_id, seq)
);
CREATE UNIQUE INDEX compactions_by_id ON compactions (id);
CREATE INDEX compactions_fleet ON compactions (tenant, id DESC);
CREATE INDEX compactions_fleet_by_trigger ON compactions (tenant, trigger, id DESC);
CREATE INDEX compactions_fleet_by_time ON compactions (tenant, at);

ALTER TABLE conversations
    -- Numbers compaction attempts without gaps.
    ADD COLUMN last_compaction_seq bigint NOT NULL DEFAULT 0,
    -- Stored turns up to this one are behind the latest boundary.
    ADD COLUMN boundary_turn_seq bigint NOT NULL DEFAULT 0,
    -- Set while a /summarize runs, so two never write the same anchor; a
    -- claim older than the upstream deadline is abandoned and may be taken.
    ADD COLUMN compacting_since timestamptz;

-- For dashboards that read Postgres directly (Grafana, BI tools): one row per
-- compaction attempt. A stable contract: columns are only ever added.
CREATE VIEW compactd_ledger AS
SELECT id, tenant, conversation_id, seq, at, trigger, by_host, idle, summarizer, model,
       tokens_before, tokens_after, tokens_saved, percent_saved,
       total_messages, user_messages, assistant_messages, tool_messages, kept_from,
       duration_ms, upstream_input_tokens, upstream_output_tokens, success, error, recorded_at
  FROM compactions;

-- A read-only role to grant the ledger to, where this database user may
-- create roles (roles are cluster-wide; a managed Postgres may not allow it).
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'compactd_ledger_reader') THEN
        IF (SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user) THEN
            CREATE ROLE compactd_ledger_reader NOLOGIN;
        END IF;
    END IF;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'compactd_ledger_reader') THEN
        GRANT SELECT ON compactd_ledger TO compactd_ledger_reader;
    END IF;
EXCEPTION WHEN duplicate_object THEN
    GRANT SELECT ON compactd_ledger TO compactd_ledger_reader;
END $$;
