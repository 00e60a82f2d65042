-- Any context size (issue 21): how many upstream calls a compaction took
-- (more than one: its delta was summarized in chunks, or a refusal of the
-- context was planned around; null for rows recorded before this column
-- and for attempts that failed), and why a summary was written
-- extractively though a model is configured (its context could not hold
-- the conversation).
ALTER TABLE compactions ADD COLUMN upstream_calls integer, ADD COLUMN fallback text;

-- The ledger's stable view gains the columns, at its end.
CREATE OR REPLACE VIEW compactd_ledger AS
SELECT id, tenant, conversation_id, seq, at, trigger, by_host, idle, summarizer, model,
       tokens_before, tokens_after, tokens_saved, percent_saved,
       total_messages, user_messages, assistant_messages, tool_messages, kept_from,
       duration_ms, upstream_input_tokens, upstream_output_tokens, success, error, recorded_at,
       keep, prepared, prepared_age_ms, harness, upstream_calls, fallback
  FROM compactions;

-- Nothing invented (SPEC §4, *Guard*): identifiers in a model's summary that
-- appear in nothing it was given, counted by the hour for /stats as the
-- other keep figures are (a ledger row's `keep` JSON carries them by kind).
ALTER TABLE keep_hourly ADD COLUMN invented bigint NOT NULL DEFAULT 0;
