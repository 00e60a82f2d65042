-- The keep set of SPEC §4: each conversation's must-keep items, found in what
-- was said (stored turns and /summarize deltas), never in a summary's text.
-- Keyed by tenant and conversation first, like every table.

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

ALTER TABLE conversations
    -- Stored turns up to this one have been read into the keep set.
    ADD COLUMN keep_turn_seq bigint NOT NULL DEFAULT 0,
    -- The keep set's clock.
    ADD COLUMN keep_clock bigint NOT NULL DEFAULT 0;

-- What became of the keep set's items in each compaction's summary:
-- {checked, present, appended, parked, by_kind: {kind: {…}}}.
ALTER TABLE compactions ADD COLUMN keep jsonb;

-- The ledger view gains the keep figures (columns are only ever added).
CREATE OR REPLACE VIEW compactd_ledger AS
SELECT id, tenant, conversation_id, seq, at, trigger, by_host, idle, summarizer, model,
       tokens_before, tokens_after, tokens_saved, percent_saved,
       total_messages, user_messages, assistant_messages, tool_messages, kept_from,
       duration_ms, upstream_input_tokens, upstream_output_tokens, success, error, recorded_at,
       keep
  FROM compactions;

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
-- The edges of a span read the ledger's successful rows by time.
CREATE INDEX compactions_with_keep ON compactions (tenant, at) WHERE keep IS NOT NULL;
