-- Replaces an interval, part 3, recording the interval's start in the
-- interval column (--interval-column).  $1 = interval start
-- psql -v target_table=mart.orders -v columns='order_id, created_at' \
--      -v interval_column=interval_start -f sql/repair_insert_interval.sql
WITH inserted AS (
	INSERT INTO :target_table (:columns, :"interval_column")
	OVERRIDING SYSTEM VALUE
	SELECT :columns, $1::timestamptz FROM reckon_repair_rows WHERE "reckon.interval" = $1::timestamptz
	RETURNING 1
)
SELECT count(*) FROM inserted;
