-- The columns of a relation's primary key, in the key's order (none when it
-- has no primary key).  $1 = relation oid
SELECT a.attname
FROM pg_catalog.pg_index i
CROSS JOIN LATERAL pg_catalog.unnest(i.indkey::pg_catalog.int2[]) WITH ORDINALITY AS k(attnum, position)
JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
WHERE i.indrelid = $1::pg_catalog.oid
  AND i.indisprimary
ORDER BY k.position;
