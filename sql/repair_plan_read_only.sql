-- Dry run: once the staging table exists, the rest of the transaction is
-- read-only, so the plan cannot change the target even by mistake (writes to
-- the temporary table stay allowed).  The transaction is rolled back.
SET LOCAL transaction_read_only = on;
