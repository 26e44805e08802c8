-- Inserts the staged source rows of the missing keys.  Columns the pair
-- does not cover get their defaults; identity values the source has come
-- as they are.  :icol and :icol_value are empty, or the interval column
-- and $3.  The interval and the finding keys are applied here, outside any
-- user text.
-- $1 = interval start, $2 = interval end[, $3 = the load's interval]
-- psql -v target_table=mart.orders -v columns='order_id, created_at' \
--      -v s_columns='s.order_id, s.created_at' -v icol='' -v icol_value='' -v s_time='s.created_at' \
--      -v s_keys='s.order_id, s.line_no' -v keys='order_id, line_no' -f sql/repair_row_insert.sql
WITH inserted AS (
	INSERT INTO :target_table (:columns :icol)
	OVERRIDING SYSTEM VALUE
	SELECT :s_columns :icol_value
	FROM reckon_repair_rows AS s
	JOIN reckon_repair_diff AS d ON d.relid = 0 AND d.row_id = s.ctid AND d.act = 'i'
	WHERE :s_time >= $1::timestamptz AND :s_time < $2::timestamptz
	  AND (:s_keys) IN (SELECT :keys FROM reckon_repair_want)
	RETURNING tableoid, ctid
), written AS (
	INSERT INTO reckon_repair_written SELECT tableoid, ctid FROM inserted
)
SELECT count(*) FROM inserted;
