-- Replaces an interval, part 3: inserts the staged source rows.  Columns
-- only the target has get their defaults; identity values come from the
-- source as they are.
-- psql -v target_table=mart.orders -v columns='order_id, created_at' -f sql/repair_insert.sql
WITH inserted AS (
	INSERT INTO :target_table (:columns)
	OVERRIDING SYSTEM VALUE
	SELECT :columns FROM reckon_repair_rows
	RETURNING 1
)
SELECT count(*) FROM inserted;
