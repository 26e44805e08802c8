-- On-call: what did repair do to this table in the last N days?  One row per
-- interval of every recorded repair of the target table :table (as given to
-- --table or --target-table), dry runs included, oldest run first: the run's
-- mode, verdict and exit status, then what happened to the interval.  A run
-- that stopped before its first interval (or had an empty list) shows as one
-- row without an interval; `error` says why a run stopped.
--   psql -v table=mart.orders -v days=7 -f sql/audit_query_repairs.sql
SELECT r.target_table, r.run_id, r.started_at,
       CASE WHEN (r.options->>'execute')::boolean THEN 'execute' ELSE 'dry-run' END AS mode,
       r.verdict, r.exit_status,
       i.interval_start, i.interval_end, i.status,
       i.deleted_by_time, i.deleted_by_key, i.inserted, i.source_rows,
       i.target_rows_before, i.target_rows_after, i.recheck,
       r.os_user, r.options->>'target' AS target, r.error, i.updated, i.moved
FROM reckon.run r
LEFT JOIN reckon.repair_interval i USING (run_id)
WHERE r.command = 'repair' AND r.target_table = :'table'
  AND r.started_at >= now() - make_interval(days => :days)
ORDER BY r.started_at, r.run_id, i.interval_start;
