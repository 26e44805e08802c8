-- A key segment: inserts the staged source rows of the missing keys (row
-- by row) or all of them (--replace-interval).  Columns the pair does not
-- cover get their defaults; identity values the source has come as they
-- are.  The segment's key range (on the staged rows) and the keys it may
-- touch are applied here, outside any user text.
-- $1, $2 = the segment's bounds (NULL: an open end)
-- psql -v target_table=dim.customer -v columns='customer_id, name' -v s_columns='s.customer_id, s.name' \
--      -v s_keys='s.customer_id' -v keys='customer_id' \
--      -v s_range='(($1::pg_catalog.int8 IS NULL OR s.customer_id >= $1::pg_catalog.int8) AND ($2::pg_catalog.int8 IS NULL OR s.customer_id < $2::pg_catalog.int8))' \
--      -f sql/repair_key_insert.sql
WITH inserted AS (
	INSERT INTO :target_table (:columns)
	OVERRIDING SYSTEM VALUE
	SELECT :s_columns
	FROM reckon_repair_rows AS s
	JOIN reckon_repair_diff AS d ON d.relid = 0 AND d.row_id = s.ctid AND d.act = 'i'
	WHERE :s_range
	  AND (:s_keys) IN (SELECT :keys FROM reckon_repair_want)
	RETURNING tableoid, ctid
), written AS (
	INSERT INTO reckon_repair_written SELECT tableoid, ctid FROM inserted
)
SELECT count(*) FROM inserted;
