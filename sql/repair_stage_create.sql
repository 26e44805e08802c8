-- The source's rows of the interval are staged in a temporary table with
-- the target's own column types, so the server parses them once, the keyed
-- delete is a join and the insert one statement.  Dropped at the end of the
-- interval's transaction, committed or not.
-- psql -v target_table=mart.orders -v columns='order_id, created_at' -f sql/repair_stage_create.sql
CREATE TEMP TABLE reckon_repair_rows ON COMMIT DROP AS
SELECT :columns
FROM :target_table
WITH NO DATA;
