-- The target rows of the pair outside an interval (or without a time)
-- that its delete by key would remove: they hold a key the source holds in
-- the interval.  Usually none; a stale copy of a key that moved windows is
-- one.  Target columns are written table-qualified because the staging
-- table has columns of the same names.
-- psql -v target_table=mart.orders -v target_filter=true \
--      -v staged_keys='s.order_id, s.line_no' \
--      -v target_keys='mart.orders.order_id, mart.orders.line_no' \
--      -v target_time=mart.orders.created_at -f sql/repair_survey_reach.sql
SELECT count(*)
FROM :target_table
WHERE :target_filter
  AND EXISTS (SELECT
              FROM reckon_repair_rows AS s
              JOIN reckon_repair_intervals AS i ON i."start" = s."reckon.interval"
              WHERE (:staged_keys) = (:target_keys)
                AND NOT coalesce(:target_time >= i."start" AND :target_time < i."end", false));
