-- Dry run: each interval's plan runs in a transaction that cannot write
-- the target even by mistake; only reckon's temporary tables take writes.
SET LOCAL transaction_read_only = on;
