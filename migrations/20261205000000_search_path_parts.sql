-- Search finds parts of paths and file names (issue 22): Postgres's parser
-- takes `src/billing/retry.rs` as one word, so `billing` or `retry.rs` found
-- nothing. A turn's vector now also holds its text split at path separators
-- (`src`, `billing`, `retry.rs`) and at dots too (`retry`, `rs`), over its
-- first 100,000 characters. Postgres bounds a vector at 1 MB: the worst
-- texts tried (200,000 characters of unique dotted paths, in ASCII or in
-- 4-byte letters) come to under 600 KB (a test stores one).
CREATE FUNCTION compactd_turn_search_parts(user_text text, assistant_text text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN compactd_turn_search(user_text, assistant_text)
        || to_tsvector('simple'::regconfig,
               translate(left(coalesce(user_text, '') || ' ' || coalesce(assistant_text, ''), 100000), '/\', '  ')
               || ' '
               || translate(left(coalesce(user_text, '') || ' ' || coalesce(assistant_text, ''), 100000), '/\.', '   '));

DROP INDEX turns_search;
ALTER TABLE turns DROP COLUMN search;
ALTER TABLE turns
    ADD COLUMN search tsvector GENERATED ALWAYS AS (compactd_turn_search_parts(user_text, assistant_text)) STORED;
CREATE INDEX turns_search ON turns USING gin (search);
