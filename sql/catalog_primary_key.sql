-- The columns of a relation's primary key, in the key's order (none when it
-- has no primary key).  $1 = relation oid
SELECT a.attname
FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey::pg_catalog.int2[])
WHERE i.indrelid = $1::pg_catalog.oid
  AND i.indisprimary
ORDER BY pg_catalog.array_position(i.indkey::pg_catalog.int2[], a.attnum);
