-- The rows after a watermark, minus a lookback, oldest first; the last
-- column is the newest time read (the same on every row).  The columns, the
-- time and the keys are the source side's column names or expressions
-- (--source-expr), the rows those --source-where keeps.
-- $1 = watermark, $2 = lookback interval ('0' without lookback)
-- psql -v source_table=shop.orders -v source_columns='id, ts, amount' -v source_time=ts \
--      -v source_keys=id -v source_filter=true -f sql/load_read_after.sql
SELECT :source_columns, max(:source_time) OVER ()::timestamptz AS reckon_newest
FROM :"source_table"
WHERE :source_filter
  AND :source_time > $1::timestamptz - $2::interval
ORDER BY :source_time, :source_keys;
