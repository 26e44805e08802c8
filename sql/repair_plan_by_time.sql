-- Dry run: the target rows whose time is in [start, end), which the repair
-- would delete.  $1 = interval start, $2 = interval end
-- psql -v target_table=mart.orders -v time=created_at -f sql/repair_plan_by_time.sql
SELECT count(*)
FROM :target_table
WHERE :"time" >= $1::timestamptz
  AND :"time" < $2::timestamptz;
