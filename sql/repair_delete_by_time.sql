-- Replaces an interval, part 1: deletes the target rows whose time is in
-- [start, end).  $1 = interval start, $2 = interval end
-- psql -v target_table=mart.orders -v time=created_at -f sql/repair_delete_by_time.sql
WITH deleted AS (
	DELETE FROM :target_table
	WHERE :"time" >= $1::timestamptz
	  AND :"time" < $2::timestamptz
	RETURNING 1
)
SELECT count(*) FROM deleted;
