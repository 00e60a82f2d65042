-- A conversation that rolled over has nothing pending (SPEC §3 /decide,
-- issue 39): its agent carries on in the successor. The handoff now clears
-- the pending decision; this clears it where a handoff left one before.
UPDATE conversations SET pending_decision = NULL
 WHERE successor_id IS NOT NULL AND pending_decision IS NOT NULL;
