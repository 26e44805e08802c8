-- Replaces an interval, part 1: deletes the target rows of the pair (those
-- --target-where selects) whose time is in [start, end).  The condition is
-- one boolean column of a subquery; the interval is applied at the top
-- level, after it, where no text of the condition can reach.
-- $1 = interval start, $2 = interval end
-- psql -v target_table=mart.orders -v target_time=mart.orders.created_at -v target_filter=true \
--      -f sql/repair_delete_by_time.sql
WITH deleted AS (
	DELETE FROM :target_table
	USING (SELECT tableoid AS relid, ctid AS row_id, :target_filter AS "reckon.pair"
	       FROM :target_table
	       WHERE :target_time >= $1::timestamptz AND :target_time < $2::timestamptz) AS f
	WHERE f."reckon.pair" IS TRUE AND :target_table.tableoid = f.relid AND :target_table.ctid = f.row_id
	  AND :target_time >= $1::timestamptz AND :target_time < $2::timestamptz
	RETURNING 1
)
SELECT count(*) FROM deleted;
