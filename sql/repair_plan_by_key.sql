-- Dry run: the target rows outside [start, end) (or without a time) whose key
-- is among the staged source keys, which the repair would delete as well.
-- $1 = interval start, $2 = interval end
-- psql -v target_table=mart.orders -v time=created_at \
--      -v key_match='t.order_id = s.order_id' -f sql/repair_plan_by_key.sql
SELECT count(*)
FROM :target_table AS t
WHERE EXISTS (SELECT FROM reckon_repair_rows AS s WHERE :key_match)
  AND NOT coalesce(t.:"time" >= $1::timestamptz AND t.:"time" < $2::timestamptz, false);
