-- The rows of a half-open data interval [start, end): every instant belongs
-- to exactly one run.  $1 = interval start, $2 = interval end
SELECT :columns, max(:"time") OVER ()::timestamptz AS reckon_newest
FROM :"source_table"
WHERE :"time" >= $1::timestamptz
  AND :"time" < $2::timestamptz
ORDER BY :"time", :keys;
