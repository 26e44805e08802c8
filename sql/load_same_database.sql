-- 1 when the tagged session $1 (pid) / $2 (application_name) is connected to
-- this server and to this very database, else 0.
SELECT count(*)
FROM pg_stat_activity
WHERE pid = $1::int
  AND application_name = $2
  AND datname = current_database();
