-- The windows the moved rows leave, on the interval's grid (window k is
-- [start + k * width, ...); NULL for rows without a time), so that those
-- windows can be checked again.
-- $1 = interval start, $2 = the window width in microseconds
SELECT floor(extract(epoch FROM ("reckon.time" - $1::timestamptz)) * 1000000 / $2::numeric)::bigint, count(*)
FROM reckon_repair_diff
WHERE act = 'm'
GROUP BY 1
ORDER BY 1;
