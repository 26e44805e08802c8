-- Lets further sessions read this transaction's snapshot (SET TRANSACTION
-- SNAPSHOT), so parallel readers of one side see exactly the same rows.
SELECT pg_export_snapshot();
