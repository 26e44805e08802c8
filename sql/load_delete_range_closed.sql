-- interval-closed without an interval column: removes the target rows (of
-- the pair) whose time falls in [start, end].
-- $1 = interval start, $2 = interval end
-- psql -v target_table=shop.orders_copy -v time=ts -v target_filter=true -f sql/load_delete_range_closed.sql
WITH deleted AS (
	DELETE FROM :"target_table"
	WHERE :target_filter
	  AND :time BETWEEN $1::timestamptz AND $2::timestamptz
	RETURNING 1
)
SELECT count(*) FROM deleted;
