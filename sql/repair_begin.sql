-- Opens the transaction that repairs one interval: its writes (and, row by
-- row, its staging and the check that every written row belongs to the
-- pair) commit together or not at all.  The isolation level is pinned
-- rather than taken from the server's default.  Row by row nothing outlives
-- it (every table it creates is dropped at its end), so it works through a
-- transaction pooler.
BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE;
