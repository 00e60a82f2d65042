-- GET /stats reads decisions and rollovers from the event log by time.
CREATE INDEX events_for_stats ON events (tenant, at) WHERE kind IN ('decision', 'handoff', 'rollover_declined');
