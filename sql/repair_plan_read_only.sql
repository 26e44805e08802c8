-- Dry run: each interval's plan runs in a transaction that cannot write
-- the target even by mistake (row by row: from the moment reckon's
-- temporary tables exist); only those tables take writes.
SET LOCAL transaction_read_only = on;
