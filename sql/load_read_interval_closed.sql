-- The rows of a CLOSED interval [start, end] (the unsafe interval-closed
-- strategy): a row stamped exactly on a boundary belongs to two runs.
-- $1 = interval start, $2 = interval end
SELECT :columns, max(:"time") OVER ()::timestamptz AS reckon_newest
FROM :"source_table"
WHERE :"time" BETWEEN $1::timestamptz AND $2::timestamptz
ORDER BY :"time", :keys;
