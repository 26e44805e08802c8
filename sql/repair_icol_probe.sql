-- --interval-column without --load-interval: the load's interval as the
-- pair's rows of [start, end) record it.  One value: repair writes it; none
-- or several: repair cannot tell and refuses.  Read-only; --target-where
-- evaluated as one boolean column of a subquery.
-- $1 = interval start, $2 = interval end
-- psql -v target_table=mart.orders -v target_filter=true -v t_icol=interval_start \
--      -v target_time=mart.orders.created_at -f sql/repair_icol_probe.sql
SELECT count(DISTINCT f.v), min(f.v), max(f.v)
FROM (SELECT :t_icol::text AS v, :target_filter AS "reckon.pair"
      FROM :target_table
      WHERE :target_time >= $1::timestamptz AND :target_time < $2::timestamptz) AS f
WHERE f."reckon.pair" IS TRUE AND f.v IS NOT NULL;
