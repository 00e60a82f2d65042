-- Search reads the whole of a long turn by its words (issue 23). A turn's own
-- vector covers its first 200,000 characters (its parts of paths the first
-- 100,000): Postgres bounds a vector at 1 MB. Past that, search matched only
-- the whole query as a raw substring, and lower-cased every long turn of the
-- conversation on every search (0.8–1.2 s on 20 turns of 3.9 MB). Now the
-- rest of a long turn is kept as vectors of 100,000-character pieces, each
-- with its words and its parts of paths like the turn's own, written once
-- when the turn is stored; a piece overlaps the one before by 1,000
-- characters, so a word or phrase at a seam is found whole. A long turn
-- matches where its own vector or one piece matches the whole query.
CREATE TABLE turn_search_pieces (
    tenant          text     NOT NULL,
    conversation_id text     NOT NULL,
    seq             bigint   NOT NULL,
    -- 1, 2, 3…: piece n covers the text from character 99,000 × n + 1.
    piece           integer  NOT NULL,
    search          tsvector NOT NULL,
    PRIMARY KEY (tenant, conversation_id, seq, piece),
    FOREIGN KEY (tenant, conversation_id, seq) REFERENCES turns ON DELETE CASCADE
);
CREATE INDEX turn_search_pieces_search ON turn_search_pieces USING gin (search);

-- The words and parts of paths of one piece, as compactd_turn_search_parts
-- reads a turn's head.
CREATE FUNCTION compactd_piece_search(piece text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN to_tsvector('simple'::regconfig, piece)
        || to_tsvector('simple'::regconfig, translate(piece, '/\', '  '))
        || to_tsvector('simple'::regconfig, translate(piece, '/\.', '   '));

-- Writes the pieces of a turn past its first 99,000 characters. The text is
-- walked once, a piece at a time (a character offset into a long text is a
-- walk from its start).
CREATE FUNCTION compactd_write_turn_pieces(tenant text, conversation_id text, seq bigint, whole text) RETURNS void
    LANGUAGE plpgsql AS $$
DECLARE
    rest  text := substr(whole, 99001);
    piece integer := 1;
BEGIN
    LOOP
        INSERT INTO turn_search_pieces (tenant, conversation_id, seq, piece, search)
        VALUES (tenant, conversation_id, seq, piece, compactd_piece_search(left(rest, 100000)));
        EXIT WHEN length(rest) <= 100000;
        rest := substr(rest, 99001);
        piece := piece + 1;
    END LOOP;
END $$;

CREATE FUNCTION compactd_store_turn_pieces() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    PERFORM compactd_write_turn_pieces(NEW.tenant, NEW.conversation_id, NEW.seq,
                                       coalesce(NEW.user_text, '') || ' ' || coalesce(NEW.assistant_text, ''));
    RETURN NULL;
END $$;

-- Every turn longer than its parts of paths are read in (a turn of 150,000
-- characters has one piece; most turns have none and cost nothing more).
CREATE TRIGGER turns_search_pieces AFTER INSERT ON turns
    FOR EACH ROW WHEN (length(coalesce(NEW.user_text, '')) + 1 + length(coalesce(NEW.assistant_text, '')) > 100000)
    EXECUTE FUNCTION compactd_store_turn_pieces();

-- The long turns stored before.
SELECT compactd_write_turn_pieces(tenant, conversation_id, seq,
                                  coalesce(user_text, '') || ' ' || coalesce(assistant_text, ''))
  FROM turns
 WHERE length(coalesce(user_text, '')) + 1 + length(coalesce(assistant_text, '')) > 100000;

-- Search no longer looks through long turns by substring.
DROP INDEX turns_search_partial;
ALTER TABLE turns DROP COLUMN search_partial;
