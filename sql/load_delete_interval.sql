-- Interval write, part 1: removes the rows an earlier run of the same
-- interval wrote, found by the interval column.  $1 = interval start
-- psql -v target_table=shop.orders_copy -v interval_column=batch -v target_filter=true \
--      -f sql/load_delete_interval.sql
WITH deleted AS (
	DELETE FROM :"target_table"
	WHERE :target_filter
	  AND :"interval_column" = $1::timestamptz
	RETURNING 1
)
SELECT count(*) FROM deleted;
