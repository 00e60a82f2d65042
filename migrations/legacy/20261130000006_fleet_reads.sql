-- The fleet's reads at millions of rows (bench/dashboard_reads). History pages
-- newest first by the attempt's time, so a span of time is one index range;
-- /stats and /stats/series read only these indexes (index-only scans), never
-- the ledger's wide rows.
DROP INDEX compactions_fleet;
DROP INDEX compactions_fleet_by_trigger;
DROP INDEX compactions_fleet_by_time;
CREATE INDEX compactions_fleet_by_time ON compactions (tenant, at, id)
    INCLUDE (trigger, success, tokens_saved);
CREATE INDEX compactions_fleet_by_trigger ON compactions (tenant, trigger, at, id)
    INCLUDE (success, percent_saved, tokens_saved, duration_ms);
-- Failures are rare and are what an operator looks for.
CREATE INDEX compactions_fleet_failures ON compactions (tenant, at, id) WHERE NOT success;
