-- compactd's schema, whole: what the first ten migrations (kept, for
-- databases made with them, in migrations/legacy/) built, written once.
-- Every table is keyed by tenant and conversation first, so the schema can be
-- distributed by conversation. Never edit a migration once applied; add a
-- new one.
--
-- No CHECK constraints on the hot tables: Postgres re-reads every CHECK
-- expression from its stored text on each statement, which cost a tenth of
-- the hot path's throughput (bench/run). Values are checked once, at the edge
-- (src/domain), and the only writers are the statements in src/store.
--
-- Columns stand in the order the earlier migrations added them, so a
-- database made either way is the same, column for column
-- (tests/api/migrations.rs compares them).

-- One row per conversation: the state of SPEC §1.
CREATE TABLE conversations (
    tenant                            text        NOT NULL,
    conversation_id                   text        NOT NULL,
    used                              bigint      NOT NULL,
    size                              bigint      NOT NULL,
    -- 'five_minutes' or 'one_hour'; NULL with source 'default': the server's
    -- configured default applies.
    cache_life                        text,
    -- 'default', 'declared' or 'observed'.
    cache_life_source                 text        NOT NULL,
    context_pressure_tokens           bigint,
    created_at                        timestamptz NOT NULL,
    last_turn_at                      timestamptz,
    turns_since_compaction            bigint      NOT NULL,
    compactions                       bigint      NOT NULL,
    host_compactions_24h              timestamptz[] NOT NULL,
    used_after_compaction             bigint,
    idle_compacted                    boolean     NOT NULL,
    rollover_declined                 boolean     NOT NULL,
    total_user_messages               bigint      NOT NULL,
    user_messages_since_boundary      bigint      NOT NULL,
    runs_completed_since_boundary     bigint      NOT NULL,
    user_messages_since_run_completed bigint      NOT NULL,
    failed_compactions_in_row         bigint      NOT NULL,
    -- The latest successful summary (the anchor) and its compaction's seq.
    summary                           text,
    summary_seq                       bigint,
    predecessor_id                    text,
    successor_id                      text,
    -- The latest non-keep decision (policy::PendingDecision).
    pending_decision                  jsonb,
    -- Token counts of the last model call a usage report described
    -- (policy::ModelCall).
    last_call                         jsonb,
    -- Counters that number this conversation's events and turns without gaps.
    last_event_seq                    bigint      NOT NULL,
    last_turn_seq                     bigint      NOT NULL,
    updated_at                        timestamptz NOT NULL DEFAULT now(),
    -- Numbers compaction attempts without gaps.
    last_compaction_seq               bigint      NOT NULL DEFAULT 0,
    -- Stored turns up to this one are behind the latest boundary.
    boundary_turn_seq                 bigint      NOT NULL DEFAULT 0,
    -- Set while a /summarize runs, so two never write the same anchor; a
    -- claim older than the upstream deadline is abandoned and may be taken.
    compacting_since                  timestamptz,
    -- Turns scored 5, word for word: [{turn_id, user, assistant}], deduplicated.
    critical                          jsonb       NOT NULL DEFAULT '[]',
    -- The rolling memory, and the newest turn it has taken in.
    memory                            text,
    memory_turn_seq                   bigint      NOT NULL DEFAULT 0,
    -- The newest turn when the last audit ran.
    audited_turn_seq                  bigint      NOT NULL DEFAULT 0,
    -- An audit is running since then (claimed like a turn).
    audit_claimed_at                  timestamptz,
    -- When an audit last failed: a failing upstream is not retried at once.
    audit_attempted_at                timestamptz,
    -- Stored turns up to this one have been read into the keep set.
    keep_turn_seq                     bigint      NOT NULL DEFAULT 0,
    -- The keep set's clock.
    keep_clock                        bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, conversation_id)
) WITH (fillfactor = 80);  -- room for HOT updates: most requests update a row

-- /due?moment=idle and next_message scan by the time of the last turn.
CREATE INDEX conversations_by_last_turn ON conversations (tenant, last_turn_at)
    WHERE last_turn_at IS NOT NULL;
-- The idle sweep looks across tenants by the time of the last turn.
CREATE INDEX conversations_idle_sweep ON conversations (last_turn_at) WHERE last_turn_at IS NOT NULL;

-- The append-only log of everything that changed a conversation.
CREATE TABLE events (
    tenant          text        NOT NULL,
    conversation_id text        NOT NULL,
    seq             bigint      NOT NULL,
    at              timestamptz NOT NULL,
    -- usage, turn_ended, decision, compaction, handoff, rollover_declined,
    -- scored, audited or skipped (SPEC §1).
    kind            text        NOT NULL,
    payload         jsonb       NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, conversation_id, seq)
);

-- /stats counts decisions and rollovers from these alone (index-only counts):
-- the kind of a decision sits in the event's JSON, which one index over all
-- three kinds made every count read row by row (bench/dashboard_reads).
CREATE INDEX events_compact_decisions ON events (tenant, at)
    WHERE kind = 'decision' AND payload->>'decision' = 'compact';
CREATE INDEX events_rollover_decisions ON events (tenant, at)
    WHERE kind = 'decision' AND payload->>'decision' = 'rollover';
CREATE INDEX events_rollovers ON events (tenant, at)
    WHERE kind = 'handoff' AND payload->>'role' = 'predecessor';
CREATE INDEX events_declined_rollovers ON events (tenant, at)
    WHERE kind = 'rollover_declined';

-- Search reads a vector stored with each turn (see `turns.search`). It covers
-- the turn's first 200,000 characters: its words come to at most 4 bytes a
-- character (lower-casing grows only 2-byte letters, to 3), so under
-- Postgres's 1 MB bound on a tsvector whatever the text.
CREATE FUNCTION compactd_turn_search(user_text text, assistant_text text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN to_tsvector('simple'::regconfig, left(coalesce(user_text, '') || ' ' || coalesce(assistant_text, ''), 200000));

-- What the user and the agent said, turn by turn; never deleted.
CREATE TABLE turns (
    tenant           text        NOT NULL,
    conversation_id  text        NOT NULL,
    seq              bigint      NOT NULL,
    at               timestamptz NOT NULL,
    user_messages    bigint      NOT NULL,
    user_text        text,
    assistant_text   text,
    -- 1–5; NULL until scored.
    score            smallint,
    -- 'llm', 'heuristic' or 'audit'.
    score_source     text,
    scored_at        timestamptz,
    -- A worker is scoring it since then; a claim older than the claim
    -- timeout was abandoned (the worker died) and is taken again.
    score_claimed_at timestamptz,
    -- Its score call failed: the scorer leaves it to the next audit.
    score_failed     boolean     NOT NULL DEFAULT false,
    -- Out of the live context since an audit; still stored and readable.
    evicted          boolean     NOT NULL DEFAULT false,
    -- The words search reads.
    search           tsvector    GENERATED ALWAYS AS (compactd_turn_search(user_text, assistant_text)) STORED,
    -- Longer than the vector covers: search looks past it by substring.
    search_partial   boolean
        GENERATED ALWAYS AS (length(coalesce(user_text, '')) + 1 + length(coalesce(assistant_text, '')) > 200000) STORED,
    PRIMARY KEY (tenant, conversation_id, seq)
);

-- What the scorer claims, oldest first.
CREATE INDEX turns_to_score ON turns (at) WHERE score IS NULL AND NOT score_failed;
CREATE INDEX turns_search ON turns USING gin (search);
CREATE INDEX turns_search_partial ON turns (tenant, conversation_id) WHERE search_partial;

-- The first answer to each Idempotency-Key, replayed byte for byte.
CREATE TABLE idempotency_keys (
    tenant       text        NOT NULL,
    key          text        NOT NULL,
    -- SHA-256 of the method, path and canonical body: another body is a 422.
    fingerprint  bytea       NOT NULL,
    -- NULL while the first request with the key runs.
    status       smallint,
    body         bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    -- The claim's own token, so a request that cannot tell whether its claim
    -- committed can give back exactly that claim and no other.
    claim        bytea,
    PRIMARY KEY (tenant, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

-- What a usage report shows about the cache (SPEC §2, "Cache life"), for the
-- statement that applies /usage. Mirrors policy::CacheLife::observed.
CREATE FUNCTION compactd_observed_cache_life(gap interval, input bigint, cached_read bigint,
                                             min_gap interval, max_gap interval)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN gap IS NULL OR input IS NULL OR cached_read IS NULL OR input <= 0
             OR gap <= min_gap OR gap >= max_gap THEN NULL
        WHEN cached_read::numeric * 2 >= input THEN 'one_hour'
        ELSE 'five_minutes'
    END
$$;

-- The compaction ledger (SPEC §3 /summarize): every attempt, successful or
-- not, and what it did.
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
    -- What became of the keep set's items in the summary:
    -- {checked, present, appended, parked, by_kind: {kind: {…}}}.
    keep                    jsonb,
    PRIMARY KEY (tenant, conversation_id, seq)
);
CREATE UNIQUE INDEX compactions_by_id ON compactions (id);
-- The fleet's reads at millions of rows (bench/dashboard_reads). History pages
-- newest first by the attempt's time, so a span of time is one index range;
-- /stats and /stats/series read only these indexes (index-only scans), never
-- the ledger's wide rows.
CREATE INDEX compactions_fleet_by_time ON compactions (tenant, at, id)
    INCLUDE (trigger, success, tokens_saved);
CREATE INDEX compactions_fleet_by_trigger ON compactions (tenant, trigger, at, id)
    INCLUDE (success, percent_saved, tokens_saved, duration_ms);
-- Failures are rare and are what an operator looks for.
CREATE INDEX compactions_fleet_failures ON compactions (tenant, at, id) WHERE NOT success;
-- The edges of a span read the ledger's successful rows by time.
CREATE INDEX compactions_with_keep ON compactions (tenant, at) WHERE keep IS NOT NULL;

-- For dashboards that read Postgres directly (Grafana, BI tools): one row per
-- compaction attempt. A stable contract: columns are only ever added.
CREATE VIEW compactd_ledger AS
SELECT id, tenant, conversation_id, seq, at, trigger, by_host, idle, summarizer, model,
       tokens_before, tokens_after, tokens_saved, percent_saved,
       total_messages, user_messages, assistant_messages, tool_messages, kept_from,
       duration_ms, upstream_input_tokens, upstream_output_tokens, success, error, recorded_at,
       keep
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

-- The keep set of SPEC §4: each conversation's must-keep items, found in what
-- was said (stored turns and /summarize deltas), never in a summary's text.
CREATE TABLE keep_items (
    tenant          text        NOT NULL,
    conversation_id text        NOT NULL,
    -- request, prohibition, path, url, id, command, quantity or file_changed.
    kind            text        NOT NULL,
    -- SHA-256 of the text (16 bytes); empty for the one request item, which
    -- each newer request replaces.
    key             bytea       NOT NULL,
    text            text        NOT NULL,
    -- Where it was seen first (user, assistant, tool_call or tool_result),
    -- and every source it was seen in (bits: 1 user, 2 assistant, 4 tool_call,
    -- 8 tool_result).
    source          text        NOT NULL,
    sources         smallint    NOT NULL,
    -- {conversation_id, turn_id | compaction_seq and message, at}.
    first_seen      jsonb       NOT NULL,
    last_seen       jsonb       NOT NULL,
    -- The keep set's clock when it was first and last seen: a total order.
    first_tick      bigint      NOT NULL,
    last_tick       bigint      NOT NULL,
    times_seen      bigint      NOT NULL,
    PRIMARY KEY (tenant, conversation_id, kind, key)
);

-- /stats reads keep rates per kind from these hourly sums (and only the
-- partial hours at a span's edges from the ledger's rows): summing every
-- compaction's figures over a month of ledger reads a million rows.
CREATE TABLE keep_hourly (
    tenant   text        NOT NULL,
    -- The hour (UTC) the compactions' `at` fell in.
    hour     timestamptz NOT NULL,
    kind     text        NOT NULL,
    checked  bigint      NOT NULL,
    present  bigint      NOT NULL,
    appended bigint      NOT NULL,
    parked   bigint      NOT NULL,
    PRIMARY KEY (tenant, hour, kind)
);

-- API keys (SPEC §6). A key is `cpk_<id>_<secret>`: the id is its visible,
-- indexed name; only a SHA-256 of the secret is kept, so the key is shown
-- once and never again.
CREATE TABLE api_keys (
    id          text        PRIMARY KEY,
    tenant      text        NOT NULL,
    -- 'agent', 'reader' or 'admin'.
    role        text        NOT NULL CHECK (role IN ('agent', 'reader', 'admin')),
    secret_hash bytea       NOT NULL,
    note        text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

-- Every change reaches the running services at once (they LISTEN).
CREATE FUNCTION compactd_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('compactd_keys', '');
    RETURN NULL;
END $$;
CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION compactd_keys_changed();

-- Upstream tokens each tenant used each day (UTC), against its daily budget.
CREATE TABLE upstream_usage (
    tenant        text   NOT NULL,
    day           date   NOT NULL,
    input_tokens  bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    calls         bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, day)
);
