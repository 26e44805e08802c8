-- The rows read are staged in a temporary table shaped like the target
-- columns they are written to, so the keyed delete and the insert are set
-- operations.
-- psql -v target_table=shop.orders_copy -v columns='id, ts, amount' -f sql/load_batch_create.sql
CREATE TEMP TABLE reckon_load_batch ON COMMIT DROP AS
SELECT :columns
FROM :"target_table"
WITH NO DATA;
