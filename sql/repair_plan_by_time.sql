-- Dry run: the target rows of the pair whose time is in [start, end) and
-- that no earlier interval of the plan would have deleted; they are marked
-- as deleted.  $1 = interval start, $2 = interval end
-- psql -v target_table=mart.orders -v time=created_at -v target_filter=true -f sql/repair_plan_by_time.sql
WITH hit AS (
	SELECT tableoid AS relid, ctid AS row_id
	FROM :target_table
	WHERE :target_filter
	  AND :time >= $1::timestamptz
	  AND :time < $2::timestamptz
), fresh AS (
	SELECT relid, row_id
	FROM hit
	WHERE NOT EXISTS (SELECT FROM reckon_repair_gone g WHERE g.relid = hit.relid AND g.row_id = hit.row_id)
), marked AS (
	INSERT INTO reckon_repair_gone SELECT relid, row_id, $1::timestamptz FROM fresh
)
SELECT count(*) FROM fresh;
