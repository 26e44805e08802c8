-- The rows after a watermark, minus a lookback, oldest first; the last
-- column is the newest time read (the same on every row).
-- $1 = watermark, $2 = lookback interval ('0' without lookback)
SELECT :columns, max(:"time") OVER ()::timestamptz AS reckon_newest
FROM :"source_table"
WHERE :"time" > $1::timestamptz - $2::interval
ORDER BY :"time", :keys;
