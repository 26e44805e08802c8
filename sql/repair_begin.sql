-- Opens the transaction that replaces one interval of the target: the
-- delete and the insert commit together or not at all.  The isolation level
-- is pinned rather than taken from the server's default.
BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE;
