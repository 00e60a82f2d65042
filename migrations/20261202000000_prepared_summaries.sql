-- Summaries prepared ahead (issue 12): when a conversation's context crosses
-- the preparation point of its trigger, a background worker writes the
-- summary a compaction would write from the stored turns so far, so that the
-- compaction itself needs no upstream call. Every preparation is kept, with
-- what became of it: used by a compaction, wasted (written, never used), or
-- dropped (never written).

-- The latest preparation planned since the boundary: the last stored turn it
-- covers and the context in use when it was planned (NULL: none since the
-- boundary); and the counter that numbers a conversation's preparations.
ALTER TABLE conversations
    ADD COLUMN prepare_turn_seq     bigint,
    ADD COLUMN prepare_used         bigint,
    ADD COLUMN last_preparation_seq bigint NOT NULL DEFAULT 0;

CREATE TABLE preparations (
    tenant                 text        NOT NULL,
    conversation_id        text        NOT NULL,
    -- 1, 2, 3… within the conversation.
    seq                    bigint      NOT NULL,
    -- The `at` of the usage report that planned it (spans and ages are
    -- measured between `at` values, SPEC §1).
    planned_at             timestamptz NOT NULL,
    -- The context in use then.
    planned_used           bigint      NOT NULL,
    -- It summarizes the stored turns after the boundary up to this one, on
    -- top of the anchor written by compaction `anchor_seq` (NULL: none).
    boundary_turn_seq      bigint      NOT NULL,
    through_turn_seq       bigint      NOT NULL,
    anchor_seq             bigint,
    -- planned, ready, used, wasted or dropped.
    status                 text        NOT NULL,
    -- Why it was wasted or dropped (superseded, rolled_over, messages_differ,
    -- delta_too_big, cut_inside, anchor_changed, harness_summary, expired,
    -- compacted_first, budget, upstream).
    reason                 text,
    -- A worker is writing it since then; a claim older than the claim timeout
    -- was abandoned and is taken again.
    claimed_at             timestamptz,
    written_at             timestamptz,
    closed_at              timestamptz,
    -- What it covers, to check at a compaction that nothing changed under it:
    -- the messages its turns make, a SHA-256 of them and of the anchor, and
    -- each message's tokens (so a compaction counts only the delta).
    messages               integer,
    fingerprint            bytea,
    message_tokens         bigint[],
    anchor_tokens          bigint,
    -- What the upstream wrote (the narrative a compaction merges its delta
    -- into) and the summary it makes alone under SPEC §4's rules.
    narrative              text,
    summary                text,
    model                  text,
    prompt_version         text,
    upstream_input_tokens  bigint,
    upstream_output_tokens bigint,
    duration_ms            bigint,
    -- The keep guard's figures for `summary` ({checked, present, …, by_kind}).
    keep                   jsonb,
    -- The compaction that used it.
    used_by_seq            bigint,
    PRIMARY KEY (tenant, conversation_id, seq)
);

-- What the workers claim, oldest first.
CREATE INDEX preparations_to_write ON preparations (planned_at) WHERE status = 'planned';
-- /stats reads a span's preparations from this index alone.
CREATE INDEX preparations_by_time ON preparations (tenant, planned_at)
    INCLUDE (status, reason, upstream_input_tokens, upstream_output_tokens);
-- Written and never used: the idle sweep drops those left too long.
CREATE INDEX preparations_ready ON preparations (written_at) WHERE status = 'ready';

-- A compaction that merged a prepared summary, and how old it was then
-- (between the `at` that planned it and the compaction's).
ALTER TABLE compactions
    ADD COLUMN prepared        boolean NOT NULL DEFAULT false,
    ADD COLUMN prepared_age_ms bigint;
-- /stats counts them from this alone.
CREATE INDEX compactions_prepared ON compactions (tenant, at) WHERE prepared;

-- The ledger's stable view gains the two columns, at its end.
CREATE OR REPLACE VIEW compactd_ledger AS
SELECT id, tenant, conversation_id, seq, at, trigger, by_host, idle, summarizer, model,
       tokens_before, tokens_after, tokens_saved, percent_saved,
       total_messages, user_messages, assistant_messages, tool_messages, kept_from,
       duration_ms, upstream_input_tokens, upstream_output_tokens, success, error, recorded_at,
       keep, prepared, prepared_age_ms
  FROM compactions;
