-- Each claim of an Idempotency-Key carries a token of its own, so a request
-- that cannot tell whether its claim committed (the connection died with the
-- answer on the way) can give back exactly that claim and no other.
ALTER TABLE idempotency_keys ADD COLUMN claim bytea;
