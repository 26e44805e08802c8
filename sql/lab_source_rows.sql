-- The source rows committed right now, as three parallel arrays (text), so
-- they can be compared with a target in another database.
SELECT coalesce(array_agg(txn_id ORDER BY txn_id), '{}')::text,
       coalesce(array_agg(updated_at ORDER BY txn_id), '{}')::text,
       coalesce(array_agg(amount ORDER BY txn_id), '{}')::text
FROM reckon_lab.src_transactions;
