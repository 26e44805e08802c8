-- The rows read are staged in a temporary table shaped like the target's
-- columns, so the keyed delete and the insert are set operations.
CREATE TEMP TABLE reckon_load_batch ON COMMIT DROP AS
SELECT :columns
FROM :"target_table"
WITH NO DATA;
