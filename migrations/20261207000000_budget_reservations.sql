-- The daily upstream budget reserves before it spends (issue 23): what an
-- upstream call is expected to take is held here while the call runs, and
-- trued up after, so concurrent calls cannot overshoot the budget by more
-- than one call.
ALTER TABLE upstream_usage ADD COLUMN IF NOT EXISTS reserved_tokens bigint NOT NULL DEFAULT 0;
