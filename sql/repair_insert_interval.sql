-- Replaces an interval, part 3, recording the load's interval in the
-- interval column (--interval-column): :icol_value is ", $2" (the value the
-- target's rows of the interval held) or, with --load-interval, the start
-- of the load interval holding each row's time ($2 = its width in
-- microseconds).  $1 = interval start
-- psql -v target_table=mart.orders -v columns='order_id, created_at' \
--      -v interval_column=interval_start -v icol_value=', $2' -f sql/repair_insert_interval.sql
WITH inserted AS (
	INSERT INTO :target_table (:columns, :"interval_column")
	OVERRIDING SYSTEM VALUE
	SELECT :columns :icol_value FROM reckon_repair_rows WHERE "reckon.interval" = $1::timestamptz
	RETURNING 1
)
SELECT count(*) FROM inserted;
