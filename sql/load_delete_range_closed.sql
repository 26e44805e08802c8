-- interval-closed without an interval column: removes the target rows whose
-- time falls in [start, end].  $1 = interval start, $2 = interval end
WITH deleted AS (
	DELETE FROM :"target_table"
	WHERE :"time" BETWEEN $1::timestamptz AND $2::timestamptz
	RETURNING 1
)
SELECT count(*) FROM deleted;
