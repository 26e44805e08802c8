-- The privileges a repair needs on the target table that the current role
-- lacks, as a list ('INSERT, DELETE'), or NULL when it has them all.
-- $1 = the target relation's oid, $2 = the privileges needed ('INSERT,UPDATE,DELETE')
SELECT string_agg(p, ', ' ORDER BY o)
FROM unnest(pg_catalog.string_to_array($2, ',')) WITH ORDINALITY AS x (p, o)
WHERE NOT pg_catalog.has_table_privilege($1::pg_catalog.oid, p);
