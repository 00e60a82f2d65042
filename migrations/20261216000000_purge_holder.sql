-- A purge's lease records its holder, as every other claim does
-- (store/lease.rs): a purge whose worker died is taken up once the worker
-- has been silent for seconds, not when its lease lapses minutes later; and
-- a worker whose purge was taken over stops at its next batch.
ALTER TABLE purges
    -- The process working it (processes.id); NULL: nobody, or the command
    -- line, which works a purge without a lease.
    ADD COLUMN claimed_by uuid;
