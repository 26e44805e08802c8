-- Dry run, --replace-interval: the interval's staged source rows, which it
-- would insert, into the probe (sql/repair_row_probe_create.sql): the
-- columns repair writes, the others at their defaults.  $1 = interval start
-- psql -v columns='order_id, created_at' -f sql/repair_plan_probe_insert.sql
INSERT INTO reckon_repair_probe (:columns)
SELECT :columns
FROM reckon_repair_rows
WHERE "reckon.interval" = $1::timestamptz;
