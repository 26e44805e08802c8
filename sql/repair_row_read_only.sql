-- Dry run: once reckon's temporary tables exist, the transaction cannot
-- write the target even by mistake; only those tables take writes.
SET LOCAL transaction_read_only = on;
