-- Of the target rows a delete by key would remove outside their interval
-- (repair_survey_reach.sql), those whose key the source also holds outside
-- the intervals: the key is not unique at the source, and the delete would
-- remove rows that belong where they are.  Returns how many, and one key.
-- psql -v target_table=mart.orders -v target_filter=true \
--      -v staged_keys='s.order_id, s.line_no' -v outside_keys='o.order_id, o.line_no' \
--      -v target_keys='mart.orders.order_id, mart.orders.line_no' \
--      -v target_time=mart.orders.created_at -f sql/repair_survey_refuse.sql
SELECT count(*), min(ROW(:target_keys)::text)
FROM :target_table
WHERE :target_filter
  AND EXISTS (SELECT
              FROM reckon_repair_rows AS s
              JOIN reckon_repair_intervals AS i ON i."start" = s."reckon.interval"
              WHERE (:staged_keys) = (:target_keys)
                AND NOT coalesce(:target_time >= i."start" AND :target_time < i."end", false))
  AND EXISTS (SELECT
              FROM reckon_repair_keys AS o
              WHERE (:outside_keys) = (:target_keys));
