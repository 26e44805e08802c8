-- Replaces an interval, part 2: deletes every other target copy of a staged
-- source key (a stale copy whose time is outside the interval), so the
-- insert cannot duplicate a key.
-- psql -v target_table=mart.orders -v key_match='t.order_id = s.order_id' -f sql/repair_delete_by_key.sql
WITH deleted AS (
	DELETE FROM :target_table AS t
	USING reckon_repair_rows AS s
	WHERE :key_match
	RETURNING 1
)
SELECT count(*) FROM deleted;
