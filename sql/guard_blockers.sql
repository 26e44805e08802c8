-- The sessions blocking backend $1 from a lock it waits for, as a person
-- would look them up: pid, application, state, when the running (or last)
-- query started, and user.  Run by reckon's lock watcher while one of its
-- sessions waits; a role without pg_read_all_stats sees NULL state for
-- other roles' sessions.
SELECT p.pid,
       b.application_name,
       b.state,
       to_char(b.query_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS query_start,
       b.usename
FROM unnest(pg_catalog.pg_blocking_pids($1::int)) AS p (pid)
LEFT JOIN pg_catalog.pg_stat_activity b ON b.pid = p.pid
ORDER BY p.pid;
