-- The target's generated columns: the server computes them, so repair never
-- writes them even when the source has a column of that name.
-- $1 = the target relation's oid
SELECT a.attname
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = $1::pg_catalog.oid
  AND a.attnum > 0
  AND NOT a.attisdropped
  AND a.attgenerated <> ''
ORDER BY a.attnum;
