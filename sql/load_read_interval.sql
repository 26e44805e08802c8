-- The rows of a half-open data interval [start, end): every instant belongs
-- to exactly one run.  $1 = interval start, $2 = interval end
-- psql -v source_table=shop.orders -v source_columns='id, ts, amount' -v source_time=ts \
--      -v source_keys=id -v source_filter=true -f sql/load_read_interval.sql
SELECT :source_columns, max(:source_time) OVER ()::timestamptz AS reckon_newest
FROM :"source_table"
WHERE :source_filter
  AND :source_time >= $1::timestamptz
  AND :source_time < $2::timestamptz
ORDER BY :source_time, :source_keys;
