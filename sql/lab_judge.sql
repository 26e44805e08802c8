-- Judges the target against the source rows committed at this moment
-- ($1 txn_ids, $2 updated_at, $3 amounts: the arrays of lab_source_rows):
-- the source keys missing from the target, the keys the target holds more
-- than once, and whether the target holds exactly the source's rows once.
WITH src AS (
	SELECT *
	FROM unnest($1::text[], $2::timestamptz[], $3::numeric[]) AS s (txn_id, updated_at, amount)
), tgt AS (
	SELECT txn_id, updated_at, amount
	FROM reckon_lab.fact_transactions
)
SELECT
	(SELECT coalesce(string_agg(src.txn_id, ' ' ORDER BY src.txn_id COLLATE "C"), '')
	 FROM src
	 WHERE NOT EXISTS (SELECT 1 FROM tgt WHERE tgt.txn_id = src.txn_id)) AS missing,
	(SELECT coalesce(string_agg(d.txn_id, ' ' ORDER BY d.txn_id COLLATE "C"), '')
	 FROM (SELECT txn_id FROM tgt GROUP BY txn_id HAVING count(*) > 1) AS d) AS duplicated,
	NOT EXISTS (SELECT * FROM src EXCEPT ALL SELECT * FROM tgt)
	AND NOT EXISTS (SELECT * FROM tgt EXCEPT ALL SELECT * FROM src) AS matches;
