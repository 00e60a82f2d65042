-- Which harness wrote a summary it reported (issue 13: `claude-code`,
-- `codex`, …); null for summaries compactd wrote and for harnesses that
-- did not say.
ALTER TABLE compactions ADD COLUMN harness text;
-- /compactions?harness= reads a harness's history from this.
CREATE INDEX compactions_by_harness ON compactions (tenant, harness, at DESC, id DESC) WHERE harness IS NOT NULL;

-- The ledger's stable view gains the column, at its end.
CREATE OR REPLACE VIEW compactd_ledger AS
SELECT id, tenant, conversation_id, seq, at, trigger, by_host, idle, summarizer, model,
       tokens_before, tokens_after, tokens_saved, percent_saved,
       total_messages, user_messages, assistant_messages, tool_messages, kept_from,
       duration_ms, upstream_input_tokens, upstream_output_tokens, success, error, recorded_at,
       keep, prepared, prepared_age_ms, harness
  FROM compactions;
