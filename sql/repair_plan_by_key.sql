-- Dry run: the target rows of the pair holding a key the source holds in
-- the interval that no earlier step of the plan would have deleted (those
-- of the interval itself were, by repair_plan_by_time.sql); marked as
-- deleted, and counted per window as repair_delete_by_key.sql counts them.
-- $1 = interval start, $2 = the window width in microseconds
-- psql -v target_table=mart.orders -v time=created_at -v target_filter=true \
--      -v keys='order_id, line_no' -f sql/repair_plan_by_key.sql
WITH hit AS (
	SELECT tableoid AS relid, ctid AS row_id, :time AS "reckon.time"
	FROM :target_table
	WHERE :target_filter
	  AND (:keys) IN (SELECT :keys FROM reckon_repair_rows WHERE "reckon.interval" = $1::timestamptz)
), fresh AS (
	SELECT *
	FROM hit
	WHERE NOT EXISTS (SELECT FROM reckon_repair_gone g WHERE g.relid = hit.relid AND g.row_id = hit.row_id)
), marked AS (
	INSERT INTO reckon_repair_gone SELECT relid, row_id, $1::timestamptz FROM fresh
)
SELECT floor(extract(epoch FROM ("reckon.time"::timestamptz - $1::timestamptz)) * 1000000 / $2::numeric)::bigint,
       count(*)
FROM fresh
GROUP BY 1
ORDER BY 1;
