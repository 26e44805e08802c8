-- Resolves a relation the way a query would.  $1 = schema, or NULL to follow
-- the search_path; $2 = relation name (both already case-folded / unquoted).
SELECT c.oid, n.nspname, c.relname, c.relkind
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname = $2
  AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND CASE WHEN $1::text IS NULL THEN pg_catalog.pg_table_is_visible(c.oid)
           ELSE n.nspname = $1::text END;
