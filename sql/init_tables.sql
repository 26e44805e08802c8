-- The tables and views of a schema with their columns, for reckon init:
-- each column's name, declared type, the base type of a domain, its place
-- in the relation and in the primary key (0: not a key column).
-- $1 = schema name
SELECT c.relname,
       a.attname,
       pg_catalog.format_type(a.atttypid, a.atttypmod) AS declared,
       pg_catalog.format_type(CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END, NULL) AS base,
       COALESCE((SELECT k.position
                 FROM pg_catalog.unnest(i.indkey::pg_catalog.int2[]) WITH ORDINALITY AS k(attnum, position)
                 WHERE k.attnum = a.attnum), 0) AS key_position
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_catalog.pg_index i ON i.indrelid = c.oid AND i.indisprimary
WHERE n.nspname = $1
  AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND NOT c.relispartition
ORDER BY c.relname, a.attnum;
