-- The instants the server groups by, and encodes timestamps from: dates,
-- infinities, and the last microseconds PostgreSQL has, which do not fit
-- the client's int64.
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET extra_float_digits = 3;
SET IntervalStyle = postgres;
SET bytea_output = hex;
SET lc_monetary = 'C';

SELECT reckon_instant(date '2026-03-01'), reckon_instant('infinity'::timestamptz),
       reckon_instant('-infinity'::date), reckon_row_encoding('infinity'::timestamp);
-- against PostgreSQL's own exact arithmetic (extract(epoch) is numeric)
SELECT count(*) AS instants,
       count(*) FILTER (WHERE reckon_instant(ts) <> (extract(epoch FROM ts) * 1000000)::bigint) AS timestamptz_otherwise,
       count(*) FILTER (WHERE reckon_instant(ts::timestamp) <> (extract(epoch FROM ts::timestamp) * 1000000)::bigint) AS timestamp_otherwise,
       count(*) FILTER (WHERE reckon_instant(ts)::text <> convert_from(substring(reckon_row_encoding(ts) FROM 6), 'UTF8')) AS encoded_otherwise
FROM (SELECT timestamptz '1900-01-01 00:00:00+00' + g * interval '7 days 3 hours 1.000007 seconds' AS ts
      FROM generate_series(0, 9000) g) x;
-- PostgreSQL's last 30 years, past an int64 since 1970: encoded exactly
-- (a longer decimal: its microseconds since 2000, which fit an int64, plus
-- 30 years, in numeric; extract(epoch) of the timestamp itself rounds
-- there), and the rows placed after every window (INT64_MAX, as
-- 'infinity'); its first instant.
SELECT ts, convert_from(substring(reckon_row_encoding(ts) FROM 6), 'UTF8') AS encoded,
       convert_from(substring(reckon_row_encoding(ts) FROM 6), 'UTF8') =
           (extract(epoch FROM ts - timestamptz '2000-01-01 00:00:00+00') * 1000000 + 946684800000000)::numeric(30, 0)::text AS exact,
       reckon_row_encoding(ts) = reckon_row_encoding(ts::timestamp) AS as_timestamp,
       reckon_instant(ts), reckon_instant(ts::timestamp)
FROM (VALUES (timestamptz '294276-12-31 23:59:59.999999+00'), ('294247-01-10 04:00:54.775807+00'),
             ('294247-01-10 04:00:54.775806+00'), ('4714-11-24 00:00:00+00 BC')) v(ts);
SELECT reckon_instant(date '294247-01-11'), reckon_instant(date '5874897-12-31');
