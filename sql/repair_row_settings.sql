-- The settings reckon's text parsing and comparison rely on, for this
-- transaction only (a transaction pooler may hand the next transaction to
-- another server session): as sql/session_settings.sql, plus the lock
-- timeout.  $1 = the lock timeout, e.g. '30000ms' ('0': none)
SELECT pg_catalog.set_config('TimeZone', 'UTC', true),
       pg_catalog.set_config('DateStyle', 'ISO, YMD', true),
       pg_catalog.set_config('IntervalStyle', 'postgres', true),
       pg_catalog.set_config('extra_float_digits', '3', true),
       pg_catalog.set_config('bytea_output', 'hex', true),
       pg_catalog.set_config('lock_timeout', $1, true);
