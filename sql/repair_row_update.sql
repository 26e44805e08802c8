-- Updates the changed rows in place, and moves in the rows of missing keys
-- that lie outside the interval: only the logical columns a load writes
-- (not the key, identity or target-only columns).  The interval and the
-- finding keys are applied here, outside any user text.  :set_extra is
-- empty, or the interval column of a moved row set to $3.
-- $1 = interval start, $2 = interval end[, $3 = the load's interval]
-- psql -v target_table=mart.orders -v set_columns='amount, qty' -v s_set_columns='s.amount, s.qty' \
--      -v set_extra='' -v t_time='t.created_at' -v s_time='s.created_at' \
--      -v t_keys='t.order_id, t.line_no' -v s_keys='s.order_id, s.line_no' \
--      -v keys='order_id, line_no' -f sql/repair_row_update.sql
WITH updated AS (
	UPDATE :target_table AS t
	SET (:set_columns) = ROW(:s_set_columns) :set_extra
	FROM reckon_repair_diff AS d, reckon_repair_rows AS s
	WHERE d.act IN ('u', 'm') AND t.tableoid = d.relid AND t.ctid = d.row_id
	  AND (:s_keys) = (:t_keys)
	  AND (:t_keys) IN (SELECT :keys FROM reckon_repair_want)
	  AND (d.act = 'm' OR (:t_time >= $1::timestamptz AND :t_time < $2::timestamptz))
	  AND :s_time >= $1::timestamptz AND :s_time < $2::timestamptz
	RETURNING t.tableoid, t.ctid, d.act
), written AS (
	INSERT INTO reckon_repair_written SELECT tableoid, ctid FROM updated
)
SELECT count(*) FROM updated;
