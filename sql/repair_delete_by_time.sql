-- Replaces an interval, part 1: deletes the target rows of the pair (those
-- --target-where selects) whose time is in [start, end).
-- $1 = interval start, $2 = interval end
-- psql -v target_table=mart.orders -v time=created_at -v target_filter=true -f sql/repair_delete_by_time.sql
WITH deleted AS (
	DELETE FROM :target_table
	WHERE :target_filter
	  AND :time >= $1::timestamptz
	  AND :time < $2::timestamptz
	RETURNING 1
)
SELECT count(*) FROM deleted;
