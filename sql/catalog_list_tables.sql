-- The relations a user may have meant when a name did not resolve (for the
-- hint).  $1 = schema, or NULL for every schema but the system ones.
SELECT n.nspname, c.relname, pg_catalog.pg_table_is_visible(c.oid) AS visible
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND NOT c.relispartition
  AND CASE WHEN $1::text IS NULL
           THEN n.nspname NOT IN ('pg_catalog', 'information_schema')
                AND n.nspname !~ '^pg_(toast|temp_)'
           ELSE n.nspname = $1::text END
ORDER BY n.nspname, c.relname
LIMIT 5000;
