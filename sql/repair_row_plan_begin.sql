-- Dry run of one interval repaired row by row: the same statements up to
-- the writes, in one snapshot, rolled back at the end.
BEGIN ISOLATION LEVEL REPEATABLE READ;
