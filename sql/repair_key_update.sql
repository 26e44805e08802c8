-- A key segment, row by row: updates the changed rows in place - only the
-- logical columns a load writes (not the key, identity or target-only
-- columns).  The segment's key range and the finding keys are applied
-- here, outside any user text.
-- $1, $2 = the segment's bounds (NULL: an open end)
-- psql -v target_table=dim.customer -v set_columns='name, tier' -v s_set_columns='s.name, s.tier' \
--      -v t_keys='t.customer_id' -v s_keys='s.customer_id' -v keys='customer_id' \
--      -v t_range='(($1::pg_catalog.int8 IS NULL OR t.customer_id >= $1::pg_catalog.int8) AND ($2::pg_catalog.int8 IS NULL OR t.customer_id < $2::pg_catalog.int8))' \
--      -f sql/repair_key_update.sql
WITH updated AS (
	UPDATE :target_table AS t
	SET (:set_columns) = ROW(:s_set_columns)
	FROM reckon_repair_diff AS d, reckon_repair_rows AS s
	WHERE d.act = 'u' AND t.tableoid = d.relid AND t.ctid = d.row_id
	  AND (:s_keys) = (:t_keys)
	  AND (:t_keys) IN (SELECT :keys FROM reckon_repair_want)
	  AND :t_range
	RETURNING t.tableoid, t.ctid
), written AS (
	INSERT INTO reckon_repair_written SELECT tableoid, ctid FROM updated
)
SELECT count(*) FROM updated;
