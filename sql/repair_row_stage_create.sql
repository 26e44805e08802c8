-- The source's rows of the interval, with the target's own column types,
-- dropped with the transaction.  Referring to the target also waits, under
-- the lock timeout, for whoever holds it exclusively.
-- psql -v target_table=mart.orders -v columns='order_id, created_at' -f sql/repair_row_stage_create.sql
CREATE TEMP TABLE reckon_repair_rows ON COMMIT DROP AS
SELECT :columns
FROM :target_table
WITH NO DATA;
