-- Which service processes are alive (issue 25): each beats every second
-- while it runs, so a claim (an Idempotency-Key being answered, a
-- conversation being compacted or audited, a turn being scored) whose holder stopped
-- beating is taken over within seconds, not when its lease lapses (11
-- minutes for a request's, 5 for a worker's).
CREATE TABLE processes (
    id         uuid        PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now(),
    seen_at    timestamptz NOT NULL DEFAULT now()
);

-- The process that holds each claim; NULL for claims made before this
-- migration, which lapse by their lease only.
ALTER TABLE idempotency_keys ADD COLUMN holder uuid;
ALTER TABLE conversations ADD COLUMN compacting_by uuid, ADD COLUMN audit_claimed_by uuid;
ALTER TABLE turns ADD COLUMN score_claimed_by uuid;
