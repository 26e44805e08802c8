-- Dry run: one interval's plan in one snapshot.  With --replace-interval it
-- is committed, so the rows it marks in reckon_repair_gone stay marked for
-- the next interval; row by row it runs the same statements as the repair
-- up to the writes and is rolled back at the end.
BEGIN ISOLATION LEVEL REPEATABLE READ;
