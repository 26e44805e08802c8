-- The windows the moved rows leave, on the interval's grid (window k is
-- [start + k * width, ...); NULL for rows without a time), so that those
-- windows can be checked again.  A row at +-infinity or out of reckon's
-- time range has no such window: it is left to repair_row_unbounded.sql,
-- which refuses the move.
-- $1 = interval start, $2 = the window width in microseconds
SELECT floor(extract(epoch FROM ("reckon.time" - $1::timestamptz)) * 1000000 / $2::numeric)::bigint, count(*)
FROM reckon_repair_diff
WHERE act = 'm'
  AND ("reckon.time" IS NULL
       OR (pg_catalog.isfinite("reckon.time") AND "reckon.time" < '294246-01-01 00:00:00+00'::timestamptz))
GROUP BY 1
ORDER BY 1;
