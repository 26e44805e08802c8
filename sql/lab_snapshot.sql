-- The whole target, in a stable order (duplicates side by side).
SELECT txn_id, updated_at, amount, interval_start, loaded_at
FROM reckon_lab.fact_transactions
ORDER BY txn_id COLLATE "C", updated_at, amount, interval_start NULLS FIRST, loaded_at;
