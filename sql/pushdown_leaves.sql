-- The leaf partitions of a partitioned table, for reckon check --pushdown:
-- when some are foreign tables (shards behind postgres_fdw), the digest
-- statement aggregates each leaf on its own so that every foreign leaf's
-- aggregate can run on its server.  Each leaf's schema and name, whether it
-- is foreign, and whether this role may read it directly - SELECT on it and
-- USAGE on its schema (reading through the parent needs only the parent's
-- privileges).  $1 = the table's oid.
SELECT n.nspname, c.relname, c.relkind = 'f' AS is_foreign,
       pg_catalog.has_table_privilege(c.oid, 'SELECT')
           AND pg_catalog.has_schema_privilege(n.oid, 'USAGE') AS readable
FROM pg_catalog.pg_partition_tree($1::pg_catalog.oid) t
JOIN pg_catalog.pg_class c ON c.oid = t.relid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE t.isleaf
ORDER BY n.nspname, c.relname;
