-- Keyed write, part 1: removes every target copy (of the rows the pair
-- owns: --target-where) of the keys read, so a retry or a lookback re-read
-- replaces rows instead of duplicating them.
-- psql -v target_table=shop.orders_copy -v keys=id -v target_filter=true -f sql/load_delete_keys.sql
WITH deleted AS (
	DELETE FROM :"target_table"
	WHERE :target_filter
	  AND (:keys) IN (SELECT :keys FROM reckon_load_batch)
	RETURNING 1
)
SELECT count(*) FROM deleted;
