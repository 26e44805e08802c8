-- Recovers the reader's transaction after a failed or abandoned scan.
ROLLBACK TO SAVEPOINT reckon_scan;
