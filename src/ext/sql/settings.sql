-- The settings a value's text depends on are checked: a session that would
-- hash other text than the client's is refused, naming the setting.
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET extra_float_digits = 3;
SET IntervalStyle = postgres;
SET bytea_output = hex;
SET lc_monetary = 'C';

SET DateStyle = 'SQL, DMY';
SELECT reckon_row_hash(current_date);
SET DateStyle = 'ISO, YMD';
SET extra_float_digits = 0;
SELECT reckon_row_hash(0.1::float8);
SET extra_float_digits = 3;

-- a timestamp is encoded from its instant: DateStyle and the time zone
-- change its text, not its hash
CREATE TEMP TABLE h AS SELECT reckon_row_hash(timestamptz '2026-03-02 10:58:00.5+00') AS pinned;
SET DateStyle = 'SQL, DMY';
SELECT reckon_row_hash(timestamptz '2026-03-02 10:58:00.5+00') = pinned AS same_under_sql_dmy FROM h;
SET DateStyle = 'ISO, YMD';
SET TimeZone = 'America/St_Johns';
SELECT reckon_row_hash(timestamptz '2026-03-02 10:58:00.5+00') = pinned AS same_in_st_johns FROM h;
SET TimeZone = 'UTC';

-- ... but an interval's text is "other": it needs every pinned setting
SET IntervalStyle = iso_8601;
SELECT reckon_row_hash(interval '1 day');
SET IntervalStyle = postgres;
SELECT reckon_row_hash(interval '1 day') IS NOT NULL AS pinned_interval;
