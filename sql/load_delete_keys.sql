-- Keyed write, part 1: removes every target copy of the keys read, so a
-- retry or a lookback re-read replaces rows instead of duplicating them.
WITH deleted AS (
	DELETE FROM :"target_table"
	WHERE (:keys) IN (SELECT :keys FROM reckon_load_batch)
	RETURNING 1
)
SELECT count(*) FROM deleted;
