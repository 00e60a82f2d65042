-- Search reads the rest of a long turn by its words (issue 23). A turn's own
-- vector covers its first 200,000 characters (its parts of paths the first
-- 100,000): Postgres bounds a vector at 1 MB. Past that, search matched only
-- the whole query as a raw substring, and lower-cased every long turn of the
-- conversation on every search (0.8–1.2 s on 20 turns of 3.9 MB). Now the
-- rest of a long turn, from its 99,001st character, is kept as vectors of
-- pieces of 20,000 bytes, each with its words and the parts of its paths;
-- a piece overlaps the one before by 1,000 bytes, so a word or phrase at a
-- seam is found whole. A piece makes at most 15,000 word positions (`a-b `
-- is three in four bytes), under the 16,383 a vector tells apart, so a
-- phrase is found anywhere in it.
-- A long turn matches where its own vector or one piece matches the whole
-- query: all its words within a piece, and what it excludes there.
CREATE TABLE turn_search_pieces (
    tenant          text     NOT NULL,
    conversation_id text     NOT NULL,
    seq             bigint   NOT NULL,
    -- 1, 2, 3…, in the text's order.
    piece           integer  NOT NULL,
    search          tsvector NOT NULL,
    PRIMARY KEY (tenant, conversation_id, seq, piece),
    FOREIGN KEY (tenant, conversation_id, seq) REFERENCES turns ON DELETE CASCADE
);
-- Without GIN's pending list: every search reads a pending list through,
-- and a long turn's pieces carry thousands of words each; written straight
-- into the index by the background, each turn's pieces cost the same
-- (about 0.7 s for 3.9 MB) and searches never pay for them.
CREATE INDEX turn_search_pieces_search ON turn_search_pieces USING gin (search) WITH (fastupdate = off);

-- The words of one piece, split at path separators and dots: one pass (a
-- turn's head is read three times: whole, split at separators, and at dots
-- too). Search splits its query the same way for the pieces, so
-- `retry.rs`, `billing` and `src/billing/retry.rs` all match a piece naming
-- src/billing/retry.rs.
CREATE FUNCTION compactd_piece_search(piece text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN to_tsvector('simple'::regconfig, translate(piece, '/\.', '   '));

-- Writes the pieces of a turn past its first 99,000 characters; answers how
-- many. The text is cut by bytes, each cut moved back to where a character
-- starts (a UTF-8 continuation byte is 10xxxxxx), so the work is linear in
-- the text's length: a character offset into a long text is a walk from
-- its start, and every cut would walk it again.
CREATE FUNCTION compactd_write_turn_pieces(of_tenant text, of_conversation text, of_seq bigint, whole text)
    RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    bytes  bytea   := convert_to(whole, 'UTF8');
    total  integer := octet_length(bytes);
    -- 0-based: where the piece begins, and where it ends (exclusive).
    first  integer := octet_length(convert_to(left(whole, 99000), 'UTF8'));
    stop   integer;
    piece  integer := 0;
BEGIN
    WHILE first < total LOOP
        stop := least(first + 20000, total);
        WHILE stop < total AND get_byte(bytes, stop) BETWEEN 128 AND 191 LOOP
            stop := stop - 1;
        END LOOP;
        piece := piece + 1;
        INSERT INTO turn_search_pieces (tenant, conversation_id, seq, piece, search)
        VALUES (of_tenant, of_conversation, of_seq, piece,
                compactd_piece_search(convert_from(substring(bytes FROM first + 1 FOR stop - first), 'UTF8')));
        EXIT WHEN stop >= total;
        first := stop - 1000;
        WHILE get_byte(bytes, first) BETWEEN 128 AND 191 LOOP
            first := first - 1;
        END LOOP;
    END LOOP;
    RETURN piece;
END $$;

-- The long turns whose pieces are yet to be written. Writing them takes the
-- database about 1.4 s for a turn of 3.9 MB, ten times what storing the turn
-- takes: the background writes them, one turn at a time per replica, never
-- the request that stores the turn. Until then search reads such a turn by
-- substring, as it did.
CREATE TABLE turn_pieces_due (
    -- The order turns were stored in, across conversations.
    id              bigint  GENERATED ALWAYS AS IDENTITY,
    tenant          text    NOT NULL,
    conversation_id text    NOT NULL,
    seq             bigint  NOT NULL,
    -- Tries that failed: such a turn waits behind the others, and after three
    -- it is left to the substring search for good (its failure is logged).
    attempts        integer NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, conversation_id, seq),
    FOREIGN KEY (tenant, conversation_id, seq) REFERENCES turns ON DELETE CASCADE
);

CREATE FUNCTION compactd_turn_pieces_due() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO turn_pieces_due (tenant, conversation_id, seq) VALUES (NEW.tenant, NEW.conversation_id, NEW.seq);
    RETURN NULL;
END $$;

-- Every turn longer than its parts of paths are read in (a turn of 150,000
-- characters has one piece; most turns have none and cost nothing more).
CREATE TRIGGER turns_pieces_due AFTER INSERT ON turns
    FOR EACH ROW WHEN (length(coalesce(NEW.user_text, '')) + 1 + length(coalesce(NEW.assistant_text, '')) > 100000)
    EXECUTE FUNCTION compactd_turn_pieces_due();

-- The long turns stored before, oldest first.
INSERT INTO turn_pieces_due (tenant, conversation_id, seq)
SELECT tenant, conversation_id, seq
  FROM turns
 WHERE length(coalesce(user_text, '')) + 1 + length(coalesce(assistant_text, '')) > 100000
 ORDER BY at, tenant, conversation_id, seq;
CREATE INDEX turn_pieces_due_next ON turn_pieces_due (attempts, id);

-- Search looks through long turns by substring only while their pieces are due.
DROP INDEX turns_search_partial;
ALTER TABLE turns DROP COLUMN search_partial;
