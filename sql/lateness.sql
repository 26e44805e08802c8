-- reckon lateness, in one scan of [$1, $2): the commit lag of each row
-- (pg_xact_commit_timestamp of its xmin minus its time, in seconds), grouped
-- per window (w) and overall (w NULL): rows, rows whose commit time is
-- known, the percentiles (nearest rank) and the maximum of their lag, and
-- how many lag more than each margin of $4 (seconds, numeric[], up to 8).
-- :window_of is a row's window: of $3 microseconds from $1, or with
-- calendar windows its bucket among the boundaries $3 (timestamptz[]).
-- psql -v source_table='mart.orders' -v time_column='"updated_at"' -v filter='true' \
--      -v window_of='(extract(epoch FROM r.at - $1::pg_catalog.timestamptz) * 1000000)::pg_catalog.int8 / $3::pg_catalog.int8' \
--      -f sql/lateness.sql
WITH r AS (
    SELECT (:time_column)::pg_catalog.timestamptz AS at,
           pg_catalog.pg_xact_commit_timestamp(xmin) AS committed
    FROM :source_table
    WHERE (:time_column) >= $1::pg_catalog.timestamptz
      AND (:time_column) < $2::pg_catalog.timestamptz
      AND :filter
), l AS (
    SELECT :window_of AS w,
           extract(epoch FROM r.committed - r.at) AS lag
    FROM r
)
SELECT l.w, count(*), count(l.lag),
       percentile_disc(0.5) WITHIN GROUP (ORDER BY l.lag),
       percentile_disc(0.9) WITHIN GROUP (ORDER BY l.lag),
       percentile_disc(0.99) WITHIN GROUP (ORDER BY l.lag),
       percentile_disc(0.999) WITHIN GROUP (ORDER BY l.lag),
       max(l.lag),
       count(*) FILTER (WHERE l.lag > ($4::pg_catalog.numeric[])[1]),
       count(*) FILTER (WHERE l.lag > ($4::pg_catalog.numeric[])[2]),
       count(*) FILTER (WHERE l.lag > ($4::pg_catalog.numeric[])[3]),
       count(*) FILTER (WHERE l.lag > ($4::pg_catalog.numeric[])[4]),
       count(*) FILTER (WHERE l.lag > ($4::pg_catalog.numeric[])[5]),
       count(*) FILTER (WHERE l.lag > ($4::pg_catalog.numeric[])[6]),
       count(*) FILTER (WHERE l.lag > ($4::pg_catalog.numeric[])[7]),
       count(*) FILTER (WHERE l.lag > ($4::pg_catalog.numeric[])[8])
FROM l
GROUP BY GROUPING SETS ((l.w), ())
ORDER BY l.w NULLS LAST;
