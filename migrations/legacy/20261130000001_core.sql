-- compactd's core schema: conversations, their append-only event log, their
-- stored turns, and idempotency keys. Every table is keyed by tenant and
-- conversation first, so the schema can be distributed by conversation.
-- Never edit a migration once applied; add a new one.
--
-- No CHECK constraints on the hot tables: Postgres re-reads every CHECK
-- expression from its stored text on each statement, which cost a tenth of
-- the hot path's throughput (bench/run). Values are checked once, at the edge
-- (src/domain), and the only writers are the statements in src/store.

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
    -- The latest non-keep decision, as the /decide answer described it.
    pending_decision                  jsonb,
    -- Token counts of the last model call a usage report described.
    last_call                         jsonb,
    -- Counters that number this conversation's events and turns without gaps.
    last_event_seq                    bigint      NOT NULL,
    last_turn_seq                     bigint      NOT NULL,
    updated_at                        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, conversation_id)
) WITH (fillfactor = 80);  -- room for HOT updates: most requests update a row

-- /due?moment=idle and next_message scan by the time of the last turn.
CREATE INDEX conversations_by_last_turn ON conversations (tenant, last_turn_at)
    WHERE last_turn_at IS NOT NULL;

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

-- What the user and the agent said, turn by turn; never deleted.
CREATE TABLE turns (
    tenant          text        NOT NULL,
    conversation_id text        NOT NULL,
    seq             bigint      NOT NULL,
    at              timestamptz NOT NULL,
    user_messages   bigint      NOT NULL,
    user_text       text,
    assistant_text  text,
    PRIMARY KEY (tenant, conversation_id, seq)
);

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
