-- Dry run: leaves the probe of the inserted rows, whatever it did.
ROLLBACK TO SAVEPOINT reckon_probe;
