-- The target rows of the pair outside an interval that its delete by key
-- would remove (repair_survey_reach.sql) whose time is +-infinity or out
-- of reckon's time range: the window such a row is deleted from cannot be
-- named, nor checked again, so repair refuses before any change.  Returns
-- how many, and one key.
-- psql -v target_table=mart.orders -v target_filter=true \
--      -v staged_keys='s.order_id, s.line_no' \
--      -v target_keys='mart.orders.order_id, mart.orders.line_no' \
--      -v target_time=mart.orders.created_at -f sql/repair_survey_unbounded.sql
SELECT count(*), min(ROW(:target_keys)::text)
FROM :target_table
WHERE :target_filter
  AND (NOT pg_catalog.isfinite(:target_time::timestamptz)
       OR :target_time::timestamptz >= '294246-01-01 00:00:00+00'::timestamptz)
  AND EXISTS (SELECT
              FROM reckon_repair_rows AS s
              JOIN reckon_repair_intervals AS i ON i."start" = s."reckon.interval"
              WHERE (:staged_keys) = (:target_keys));
