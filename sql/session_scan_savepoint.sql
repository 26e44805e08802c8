-- Taken once after the snapshot: a failed or abandoned scan rolls back to
-- it, keeping the transaction (and its snapshot) usable for the next scan.
SAVEPOINT reckon_scan;
