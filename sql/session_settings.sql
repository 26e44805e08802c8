-- Pins the session settings reckon's text parsing relies on, whatever the
-- server, database or role defaults are (client_encoding is set by libpq).
SELECT pg_catalog.set_config('TimeZone', 'UTC', false),
       pg_catalog.set_config('DateStyle', 'ISO, YMD', false),
       pg_catalog.set_config('IntervalStyle', 'postgres', false),
       pg_catalog.set_config('extra_float_digits', '3', false),
       pg_catalog.set_config('bytea_output', 'hex', false),
       pg_catalog.set_config('lc_monetary', 'C', false);
