-- What compaction costs and what it saves (SPEC §6, issue 39 item 6).
--
-- A compaction's cost is its summary's upstream tokens at the summary
-- model's price, fixed when it is recorded. Its savings are the tokens the
-- agent no longer resends on each later call (tokens_before - tokens_after),
-- priced at the agent's model as each call reports, until the conversation's
-- next boundary. The hot path accrues them on the conversation's row (no
-- second row written per /usage); the next successful compaction, or the
-- conversation's deletion, moves them onto the ledger row they belong to.

ALTER TABLE conversations
    -- The ledger row (its seq) that later calls save for; NULL: none yet.
    ADD COLUMN saving_seq            bigint,
    -- What each later call saves: that compaction's tokens_saved.
    ADD COLUMN saving_tokens         bigint           NOT NULL DEFAULT 0,
    -- The context it left (its tokens_after): what the first call after it
    -- writes to the prompt cache afresh.
    ADD COLUMN saving_prefix         bigint           NOT NULL DEFAULT 0,
    -- Whether the cache would have been warm at that first call without it
    -- (not after an idle compaction: the cache had lapsed anyway).
    ADD COLUMN saving_warm           boolean          NOT NULL DEFAULT true,
    -- Accrued since: calls reported, tokens not resent, and their price.
    ADD COLUMN saved_calls           bigint           NOT NULL DEFAULT 0,
    ADD COLUMN saved_tokens          bigint           NOT NULL DEFAULT 0,
    ADD COLUMN saved_usd             double precision NOT NULL DEFAULT 0,
    -- Of saved_usd (subtracted in it): what the first call paid to write
    -- the new prefix to the cache, where it would have read the old one.
    ADD COLUMN saved_rewrite_usd     double precision NOT NULL DEFAULT 0,
    -- Calls whose model had no price: their tokens count, their dollars not.
    ADD COLUMN saved_unpriced_calls  bigint           NOT NULL DEFAULT 0;

ALTER TABLE compactions
    -- The summary's upstream tokens at its model's price; NULL: no price
    -- was set for a model that was called (0 when none was called).
    ADD COLUMN cost_usd              double precision,
    -- Moved here from the conversation when its next boundary closed them.
    ADD COLUMN saved_calls           bigint           NOT NULL DEFAULT 0,
    ADD COLUMN saved_tokens          bigint           NOT NULL DEFAULT 0,
    ADD COLUMN saved_usd             double precision NOT NULL DEFAULT 0,
    ADD COLUMN saved_rewrite_usd     double precision NOT NULL DEFAULT 0,
    ADD COLUMN saved_unpriced_calls  bigint           NOT NULL DEFAULT 0;

-- The ledger's stable view gains cost and savings at its end: savings still
-- accruing (the conversation's latest compaction) are added in.
CREATE OR REPLACE VIEW compactd_ledger AS
SELECT c.id, c.tenant, CASE WHEN c.deleted_at IS NULL THEN c.conversation_id END AS conversation_id,
       c.seq, c.at, c.trigger, c.by_host, c.idle, c.summarizer, c.model,
       c.tokens_before, c.tokens_after, c.tokens_saved, c.percent_saved,
       c.total_messages, c.user_messages, c.assistant_messages, c.tool_messages, c.kept_from,
       c.duration_ms, c.upstream_input_tokens, c.upstream_output_tokens, c.success, c.error, c.recorded_at,
       c.keep, c.prepared, c.prepared_age_ms, c.harness, c.upstream_calls, c.fallback, c.deleted_at,
       c.cost_usd,
       c.saved_calls + coalesce(v.saved_calls, 0) AS saved_calls,
       c.saved_tokens + coalesce(v.saved_tokens, 0) AS saved_tokens,
       c.saved_usd + coalesce(v.saved_usd, 0) AS saved_usd,
       c.saved_rewrite_usd + coalesce(v.saved_rewrite_usd, 0) AS saved_rewrite_usd,
       -- NULL when the summary's model had no price: its net is unknown.
       c.saved_usd + coalesce(v.saved_usd, 0) - c.cost_usd AS net_usd,
       v.saving_seq IS NOT NULL AS saving
  FROM compactions c
  LEFT JOIN conversations v
    ON v.tenant = c.tenant AND v.conversation_id = c.conversation_id AND v.saving_seq = c.seq;
