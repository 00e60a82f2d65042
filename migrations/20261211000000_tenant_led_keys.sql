-- Every unique index leads with the tenant (issue 25: the path past one
-- Postgres). A ledger row's id is unique on its own (an identity), but an
-- index on it alone could not be kept by a database that spreads tenants
-- over machines (Citus requires the distribution column in every unique
-- index); (tenant, id) finds a row as fast for every read, which names the
-- tenant.
DROP INDEX IF EXISTS compactions_by_id;
CREATE UNIQUE INDEX IF NOT EXISTS compactions_by_tenant_and_id ON compactions (tenant, id);
