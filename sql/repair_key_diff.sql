-- A key segment, row by row: the pair's rows of a finding key inside the
-- segment's key range - per key, the copy that matches the staged source
-- row (else the first) is kept or updated; the other copies, and every row
-- whose key the source does not hold, are deleted.  A row's key places it
-- in its segment, so no row moves in from outside (unlike a time
-- interval).  Only the columns an update can write are compared, as text.
-- :t_range is the segment's range on the first key column, bounds $1 and
-- $2 (NULL: an open end).
-- psql -v target_table=dim.customer -v t_keys='t.customer_id' -v s_keys='s.customer_id' -v same='true' \
--      -v t_range='(($1::pg_catalog.int8 IS NULL OR t.customer_id >= $1::pg_catalog.int8) AND ($2::pg_catalog.int8 IS NULL OR t.customer_id < $2::pg_catalog.int8))' \
--      -f sql/repair_key_diff.sql
INSERT INTO reckon_repair_diff (relid, row_id, act, "reckon.key")
SELECT relid, row_id,
       CASE WHEN NOT has_source OR copy > 1 THEN 'd' WHEN same THEN 'k' ELSE 'u' END,
       "reckon.key"
FROM (SELECT p.relid, p.row_id, ROW(:t_keys)::text AS "reckon.key",
             s.ctid IS NOT NULL AS has_source, :same AS same,
             row_number() OVER (PARTITION BY :t_keys ORDER BY :same DESC, p.relid, p.row_id) AS copy
      FROM reckon_repair_pair AS p
      JOIN :target_table AS t ON t.tableoid = p.relid AND t.ctid = p.row_id
      LEFT JOIN reckon_repair_rows AS s ON (:s_keys) = (:t_keys)
      WHERE :t_range) AS x;
