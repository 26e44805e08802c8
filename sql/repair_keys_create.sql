-- The source's keys outside the intervals to replace, read only when a
-- delete by key would reach target rows outside an interval: with the
-- target's key types, so the server compares them as the delete would.
-- psql -v target_table=mart.orders -v keys='order_id, line_no' -f sql/repair_keys_create.sql
CREATE TEMP TABLE reckon_repair_keys AS
SELECT :keys
FROM :target_table
WITH NO DATA;
