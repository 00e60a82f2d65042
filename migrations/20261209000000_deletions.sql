-- Deleting data (issue 25, SPEC §3): a conversation's content can be
-- deleted. Its turns, keep items, preparations, events and idempotency
-- records go; its ledger rows, and the decisions and rollovers /stats
-- counts, stay without their content so the fleet's figures stay right,
-- under an id that names nothing (see src/store/deletions.rs).

-- When the ledger row's conversation was deleted (its summary and error
-- went with it, and its conversation id is a tombstone).
ALTER TABLE compactions ADD COLUMN deleted_at timestamptz;

-- The conversation a key's request was about, so its kept answer (which
-- may carry a summary) goes with it. NULL for requests kept before this
-- column (they are forgotten within a day anyway).
ALTER TABLE idempotency_keys ADD COLUMN conversation_id text;
CREATE INDEX idempotency_keys_by_conversation ON idempotency_keys (tenant, conversation_id)
    WHERE conversation_id IS NOT NULL;

-- One line per deletion: who, when, what kind and how much, and none of
-- the content. The conversation's id is kept only as a SHA-256, so a
-- second DELETE of it can answer "already deleted" rather than 404, and an
-- operator who knows an id can tell it was deleted.
CREATE TABLE deletions (
    tenant            text        NOT NULL,
    id                bigint      GENERATED ALWAYS AS IDENTITY,
    at                timestamptz NOT NULL DEFAULT now(),
    -- 'conversation' (DELETE /conversations/{id}) or 'lineage' (with
    -- ?lineage=true: the conversation and its predecessors and successors).
    kind              text        NOT NULL,
    -- The key that asked (NULL in open mode).
    key_id            text,
    -- SHA-256 of each conversation id it deleted.
    conversation_hashes bytea[]   NOT NULL,
    -- What went.
    conversations     bigint      NOT NULL,
    turns             bigint      NOT NULL,
    events            bigint      NOT NULL,
    keep_items        bigint      NOT NULL,
    preparations      bigint      NOT NULL,
    idempotency_keys  bigint      NOT NULL,
    -- Ledger rows kept without their content.
    compactions       bigint      NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX deletions_by_conversation ON deletions USING gin (conversation_hashes);

-- The ledger's stable view gains when a row's conversation was deleted, at
-- its end; a deleted row names no conversation.
CREATE OR REPLACE VIEW compactd_ledger AS
SELECT id, tenant, CASE WHEN deleted_at IS NULL THEN conversation_id END AS conversation_id,
       seq, at, trigger, by_host, idle, summarizer, model,
       tokens_before, tokens_after, tokens_saved, percent_saved,
       total_messages, user_messages, assistant_messages, tool_messages, kept_from,
       duration_ms, upstream_input_tokens, upstream_output_tokens, success, error, recorded_at,
       keep, prepared, prepared_age_ms, harness, upstream_calls, fallback, deleted_at
  FROM compactions;
