-- The keys the check of the interval named (missing, extra, duplicated,
-- changed), with the target's key types: no row of another key is written.
-- psql -v target_table=mart.orders -v keys='order_id, line_no' -f sql/repair_row_want_create.sql
CREATE TEMP TABLE reckon_repair_want ON COMMIT DROP AS
SELECT :keys
FROM :target_table
WITH NO DATA;
