-- Replaces an interval, part 3: inserts the interval's staged source rows.
-- Columns the pair does not cover get their defaults; identity values come
-- from the source as they are.  $1 = interval start
-- psql -v target_table=mart.orders -v columns='order_id, created_at' -f sql/repair_insert.sql
WITH inserted AS (
	INSERT INTO :target_table (:columns)
	OVERRIDING SYSTEM VALUE
	SELECT :columns FROM reckon_repair_rows WHERE "reckon.interval" = $1::timestamptz
	RETURNING 1
)
SELECT count(*) FROM inserted;
