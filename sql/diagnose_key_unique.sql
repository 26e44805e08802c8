-- Whether a primary key or unique index makes the key columns unique: a
-- valid, non-partial unique index whose key columns are all plain columns
-- among them.  Without one, a key the source holds twice is only seen in
-- windows that differ.  $1 = relation oid, $2 = the key columns (text[])
SELECT EXISTS (
    SELECT 1
    FROM pg_catalog.pg_index i
    WHERE i.indrelid = $1::pg_catalog.oid
      AND i.indisunique
      AND i.indisvalid
      AND i.indpred IS NULL
      AND NOT EXISTS (
          SELECT 1
          FROM pg_catalog.generate_series(0, i.indnkeyatts - 1) AS k(pos)
          LEFT JOIN pg_catalog.pg_attribute a
                 ON a.attrelid = i.indrelid AND a.attnum = i.indkey[k.pos]
          WHERE a.attname IS NULL OR a.attname <> ALL ($2::pg_catalog.text[])
      )
);
