-- Replaces an interval, part 2: deletes every other target copy (of the
-- pair) of a key the source holds in the interval - a stale copy whose
-- time is outside it - so the insert cannot duplicate a key.  Counts them
-- per window of the interval's grid, so that those windows can be checked
-- again: window k is [start + k * width, ...); NULL for rows without a time.
-- The condition is one boolean column of a subquery; the key set is
-- applied at the top level, after it, where no text of the condition can
-- reach.  $1 = interval start, $2 = the window width in microseconds
-- psql -v target_table=mart.orders -v target_time=mart.orders.created_at -v target_filter=true \
--      -v keys='order_id, line_no' -v target_keys='mart.orders.order_id, mart.orders.line_no' \
--      -f sql/repair_delete_by_key.sql
WITH deleted AS (
	DELETE FROM :target_table
	USING (SELECT tableoid AS relid, ctid AS row_id, :target_filter AS "reckon.pair"
	       FROM :target_table
	       WHERE (:target_keys) IN (SELECT :keys FROM reckon_repair_rows WHERE "reckon.interval" = $1::timestamptz)) AS f
	WHERE f."reckon.pair" IS TRUE AND :target_table.tableoid = f.relid AND :target_table.ctid = f.row_id
	  AND (:target_keys) IN (SELECT :keys FROM reckon_repair_rows WHERE "reckon.interval" = $1::timestamptz)
	RETURNING :target_time AS "reckon.time"
)
SELECT floor(extract(epoch FROM ("reckon.time"::timestamptz - $1::timestamptz)) * 1000000 / $2::numeric)::bigint,
       count(*)
FROM deleted
GROUP BY 1
ORDER BY 1;
