-- Sessions of this database in a transaction that began before $1 (the end
-- of the newest closed window): rows they write may still land in windows a
-- check has just judged.  A role sees the transaction start of other roles'
-- sessions only with pg_read_all_stats (last column).  $2 = reckon's own
-- sessions (int4[]), left out.
SELECT count(*),
       min(s.xact_start),
       (pg_catalog.array_agg(s.pid ORDER BY s.xact_start))[1],
       (pg_catalog.array_agg(coalesce(s.application_name, '') ORDER BY s.xact_start))[1],
       pg_catalog.pg_has_role('pg_read_all_stats', 'USAGE')
FROM pg_catalog.pg_stat_activity AS s
WHERE s.datname = pg_catalog.current_database()
  AND s.pid <> pg_catalog.pg_backend_pid()
  AND s.pid <> ALL ($2::pg_catalog.int4[])
  AND s.xact_start < $1::pg_catalog.timestamptz;
