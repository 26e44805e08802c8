-- Interval write, part 1: removes the rows an earlier run of the same
-- interval wrote, found by the interval column.  $1 = interval start
WITH deleted AS (
	DELETE FROM :"target_table"
	WHERE :"interval_column" = $1::timestamptz
	RETURNING 1
)
SELECT count(*) FROM deleted;
