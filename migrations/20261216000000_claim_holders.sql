-- A purge's and a preparation's lease record their holder, as every other
-- claim does (store/lease.rs): one whose worker died is taken up once the
-- worker has been silent for seconds, not when its lease lapses minutes
-- later. A purge's worker also stops at its next batch when it finds its
-- purge taken over; a preparation's write already names its claim.
ALTER TABLE purges
    -- The process working it (processes.id); NULL: nobody, or the command
    -- line, which works a purge without a lease.
    ADD COLUMN claimed_by uuid;
ALTER TABLE preparations
    -- The worker's process (processes.id) while claimed.
    ADD COLUMN claimed_by uuid;
