-- API keys (SPEC §6) and the per-tenant daily upstream budget.

-- A key is `cpk_<id>_<secret>`: the id is its visible, indexed name; only a
-- SHA-256 of the secret is kept, so the key is shown once and never again.
CREATE TABLE api_keys (
    id          text        PRIMARY KEY,
    tenant      text        NOT NULL,
    -- 'agent', 'reader' or 'admin'.
    role        text        NOT NULL CHECK (role IN ('agent', 'reader', 'admin')),
    secret_hash bytea       NOT NULL,
    note        text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

-- Every change reaches the running services at once (they LISTEN).
CREATE FUNCTION compactd_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('compactd_keys', '');
    RETURN NULL;
END $$;
CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION compactd_keys_changed();

-- Upstream tokens each tenant used each day (UTC), against its budget.
CREATE TABLE upstream_usage (
    tenant        text   NOT NULL,
    day           date   NOT NULL,
    input_tokens  bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    calls         bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, day)
);
