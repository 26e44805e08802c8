-- Replaces an interval, part 2: deletes every other target copy (of the
-- pair) of a key the source holds in the interval - a stale copy whose
-- time is outside it - so the insert cannot duplicate a key.  Counts them
-- per window of the interval's grid, so that those windows can be checked
-- again: window k is [start + k * width, ...); NULL for rows without a time.
-- $1 = interval start, $2 = the window width in microseconds
-- psql -v target_table=mart.orders -v time=created_at -v target_filter=true \
--      -v keys='order_id, line_no' -f sql/repair_delete_by_key.sql
WITH deleted AS (
	DELETE FROM :target_table
	WHERE :target_filter
	  AND (:keys) IN (SELECT :keys FROM reckon_repair_rows WHERE "reckon.interval" = $1::timestamptz)
	RETURNING :time AS "reckon.time"
)
SELECT floor(extract(epoch FROM ("reckon.time"::timestamptz - $1::timestamptz)) * 1000000 / $2::numeric)::bigint,
       count(*)
FROM deleted
GROUP BY 1
ORDER BY 1;
