-- Before a scan that asks for a few keys' rows in whole windows (the
-- drilldown's last pass, docs/performance.md "The drilldown"): no parallel
-- workers.  reckon reads both sides at once, often on one server (the
-- source and target in one database or cluster); there the workers of one
-- side's statement compete with the other's, and starting them costs more
-- than they save on a read of a few windows that returns a handful of
-- rows.  Undone by session_scan_serial_reset.sql (or by the rollback to the
-- scan savepoint when the statement fails).
SET LOCAL max_parallel_workers_per_gather = 0;
