-- Deletes the extra rows and surplus copies of the interval.  The interval
-- and the finding keys are applied here, outside any user text.
-- $1 = interval start, $2 = interval end
-- psql -v target_table=mart.orders -v t_time='t.created_at' -v t_keys='t.order_id, t.line_no' \
--      -v keys='order_id, line_no' -f sql/repair_row_delete.sql
WITH deleted AS (
	DELETE FROM :target_table AS t
	USING reckon_repair_diff AS d
	WHERE d.act = 'd' AND t.tableoid = d.relid AND t.ctid = d.row_id
	  AND :t_time >= $1::timestamptz AND :t_time < $2::timestamptz
	  AND (:t_keys) IN (SELECT :keys FROM reckon_repair_want)
	RETURNING 1
)
SELECT count(*) FROM deleted;
