-- Search reads a vector stored with each turn instead of building one per
-- turn per search: Postgres refuses a tsvector whose words pass 1 MB, and one
-- large turn made every search of its conversation fail; and building them
-- on the fly made search slow on long conversations.
--
-- The vector covers the turn's first 200,000 characters: its words come to at
-- most 4 bytes a character (lower-casing grows only 2-byte letters, to 3), so
-- under Postgres's 1 MB bound whatever the text. A longer turn is marked
-- `search_partial`, and search looks for the words past that point by
-- substring in those turns only (a partial index finds them).

CREATE FUNCTION compactd_turn_search(user_text text, assistant_text text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN to_tsvector('simple'::regconfig, left(coalesce(user_text, '') || ' ' || coalesce(assistant_text, ''), 200000));

ALTER TABLE turns
    ADD COLUMN search tsvector GENERATED ALWAYS AS (compactd_turn_search(user_text, assistant_text)) STORED;

ALTER TABLE turns
    ADD COLUMN search_partial boolean
        GENERATED ALWAYS AS (length(coalesce(user_text, '')) + 1 + length(coalesce(assistant_text, '')) > 200000) STORED;

CREATE INDEX turns_search ON turns USING gin (search);
CREATE INDEX turns_search_partial ON turns (tenant, conversation_id) WHERE search_partial;
