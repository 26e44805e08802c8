-- The columns of a relation, in order, with their declared type and the
-- type their text output follows (a domain's base type), and that type's oid
-- (which tells the wire format of binary COPY).  $1 = relation oid
WITH RECURSIVE col AS (
    SELECT a.attnum, a.attname, a.atttypid AS typid, a.atttypmod AS typmod,
           pg_catalog.format_type(a.atttypid, a.atttypmod) AS declared
    FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = $1::pg_catalog.oid
      AND a.attnum > 0
      AND NOT a.attisdropped
  UNION ALL
    SELECT col.attnum, col.attname, t.typbasetype, t.typtypmod, col.declared
    FROM col
    JOIN pg_catalog.pg_type t ON t.oid = col.typid
    WHERE t.typtype = 'd'
)
SELECT col.attname, col.declared, pg_catalog.format_type(col.typid, col.typmod) AS base, col.typid AS typid
FROM col
JOIN pg_catalog.pg_type t ON t.oid = col.typid
WHERE t.typtype <> 'd'
ORDER BY col.attnum;
