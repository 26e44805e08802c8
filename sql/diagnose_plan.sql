-- Before the commit-times statement (diagnose_commit_times.sql, and
-- diagnose_xact_rows.sql for the transactions' spans): the
-- planner cannot know how narrow each key's time span is (the spans come
-- with the keys), so it would rather scan the table than look each key up
-- by the time index when no index serves the key.  A scan is still taken
-- when no index serves either.  The same guess makes the statement look
-- costly enough to compile (JIT): 20 to 40 ms at 5M rows for a statement
-- that reads a few rows, so it is not compiled.  Undone by
-- diagnose_plan_reset.sql (or by the rollback to the scan savepoint when
-- the statement fails).
SET LOCAL enable_seqscan = off;
SET LOCAL jit = off;
