-- /stats counts decisions and rollovers from these alone (index-only counts):
-- the kind of a decision sits in the event's JSON, which one index over all
-- three kinds made every count read row by row (bench/dashboard_reads).
DROP INDEX events_for_stats;
CREATE INDEX events_compact_decisions ON events (tenant, at)
    WHERE kind = 'decision' AND payload->>'decision' = 'compact';
CREATE INDEX events_rollover_decisions ON events (tenant, at)
    WHERE kind = 'decision' AND payload->>'decision' = 'rollover';
CREATE INDEX events_rollovers ON events (tenant, at)
    WHERE kind = 'handoff' AND payload->>'role' = 'predecessor';
CREATE INDEX events_declined_rollovers ON events (tenant, at)
    WHERE kind = 'rollover_declined';
