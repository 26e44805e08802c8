-- Dry run: the probe of the inserted rows runs in a savepoint, so that a
-- filter it cannot evaluate there (a column written table-qualified)
-- leaves the plan usable; --execute checks the written rows themselves.
SAVEPOINT reckon_probe;
