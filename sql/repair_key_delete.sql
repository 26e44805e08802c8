-- A key segment: deletes the extra rows and surplus copies (row by row) or
-- every row of the pair (--replace-interval).  The segment's key range and
-- the keys it may touch are applied here, outside any user text.
-- $1, $2 = the segment's bounds (NULL: an open end)
-- psql -v target_table=dim.customer -v t_keys='t.customer_id' -v keys='customer_id' \
--      -v t_range='(($1::pg_catalog.int8 IS NULL OR t.customer_id >= $1::pg_catalog.int8) AND ($2::pg_catalog.int8 IS NULL OR t.customer_id < $2::pg_catalog.int8))' \
--      -f sql/repair_key_delete.sql
WITH deleted AS (
	DELETE FROM :target_table AS t
	USING reckon_repair_diff AS d
	WHERE d.act = 'd' AND t.tableoid = d.relid AND t.ctid = d.row_id
	  AND :t_range
	  AND (:t_keys) IN (SELECT :keys FROM reckon_repair_want)
	RETURNING 1
)
SELECT count(*) FROM deleted;
