-- Ends a reader's read-only transaction, its snapshot and the locks its
-- scans took (rk_reader_renew): the next one begins right after it.
ROLLBACK;
