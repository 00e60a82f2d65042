-- The hot path (issue 38). A conversation is looked up by its key. The picker's two
-- indexes led with `tenant` too, and while the table is small (a new
-- database, or one never analyzed) the planner cannot tell them from the
-- key: each tie went to the newer index, so the hot path's lookups by id,
-- planned once per connection, scanned every conversation of the tenant
-- (938 pages a /decide at 1,000 conversations, and more with each one).
-- The picker's indexes are now partial on a predicate every row meets and
-- only the picker's queries state (`created_at > '-infinity'`): no other
-- statement can be planned on them, and a lookup by id has the key alone.
DROP INDEX IF EXISTS conversations_newest;
DROP INDEX IF EXISTS conversations_by_id_prefix;
CREATE INDEX conversations_newest ON conversations (tenant, created_at DESC, conversation_id)
    WHERE created_at > '-infinity';
CREATE INDEX conversations_by_id_prefix ON conversations (tenant, (conversation_id COLLATE "C"))
    WHERE created_at > '-infinity';

-- The day a conversation was last written (retention's index) is set by the
-- statements that set `updated_at`, no longer generated: a stored generated
-- column costs every statement that updates the table a fresh plan of its
-- expression (8% of Postgres's time on the hot path), and it was recomputed
-- by every update, claims included, that left `updated_at` as it was.
ALTER TABLE conversations ALTER COLUMN active_on DROP EXPRESSION;
ALTER TABLE conversations ALTER COLUMN active_on SET DEFAULT ((now() AT TIME ZONE 'UTC')::date);
ALTER TABLE conversations ALTER COLUMN active_on SET NOT NULL;
