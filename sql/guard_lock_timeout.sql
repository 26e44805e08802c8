-- How long a statement of this session waits for a lock before it fails
-- (SQLSTATE 55P03), for the whole session.  $1 = e.g. '30000ms'
SELECT pg_catalog.set_config('lock_timeout', $1, false);
