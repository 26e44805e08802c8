-- reckon_window (one window's count, digest and exact sums) and
-- reckon_windows (every window of a grid at once, without GROUP BY), and
-- what they refuse.
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET extra_float_digits = 3;
SET IntervalStyle = postgres;
SET bytea_output = hex;
SET lc_monetary = 'C';

CREATE TEMP TABLE r (id int, ts timestamptz, amount numeric, note text);
INSERT INTO r VALUES (42, '2026-03-02 10:58:00+00', 12.50, null), (43, '2026-03-02 10:59:30.25+00', -0.50, 'hi');

-- docs/digest.md section 4: the window of the two rows, its count and the
-- exact sum of amount (12.50 - 0.50)
SELECT reckon_window('hhbh', id, ts, amount, note) FROM r;
-- a summed column that is not hashed stays out of the row encoding; the
-- sums come in the order of their columns
SELECT (reckon_window('sbh', amount, id, note))[2] = (SELECT reckon_digest(id, note) FROM r) AS same_digest,
       reckon_window('sbh', amount, id, note) FROM r;
-- the roles must be a constant of one letter per column
SELECT reckon_window('hh', id, ts, amount) FROM r;
SELECT reckon_window('hx', id, ts) FROM r;
SELECT reckon_window((CASE WHEN id > 42 THEN 'hh' ELSE 'hb' END)::bytea, id, ts) FROM r;
SELECT reckon_window('hb', id, ts) FROM r;
SELECT reckon_window('ss', id, amount) FROM r;

-- reckon_windows: the same digest in its window (10: 10:00 to 11:00 after
-- 2026-03-02 00:00 UTC)
SELECT reckon_windows(1772409600000000, 3600000000, 'hhbh', ts, id, ts, amount, note) FROM r;
-- one-minute windows after 10:38: 20 and 21, then the NULL time
SELECT d[1:3][1:2] AS windows_and_counts,
       d[1][3] = (SELECT reckon_digest(id) FROM r WHERE id = 42) AS w20,
       d[2][3] = (SELECT reckon_digest(id) FROM r WHERE id = 43) AS w21,
       d[3][3] = (SELECT reckon_digest(7)) AS null_time,
       d[1:3][4:4] AS sums
FROM (SELECT reckon_windows(1772447880000000, 60000000, 'b', ts, id) d
      FROM (SELECT ts, id FROM r UNION ALL SELECT null, 7) x) y;
-- no rows: NULL
SELECT reckon_windows(0, 1, 'h', ts, id) IS NULL AS no_rows FROM r WHERE false;
-- refused: a zero width, a start that is not a constant, a time column of
-- another type, instants outside the 2^20 windows
SELECT reckon_windows(0, 0, 'h', ts, id) FROM r;
SELECT reckon_windows(id, 1, 'h', ts, id) FROM r;
SELECT reckon_windows(0, 1, 'h', id, id) FROM r;
SELECT reckon_windows(1772450000000000, 3600000000, 'h', ts, id) FROM r;
SELECT reckon_windows(0, 1, 'h', ts, id) FROM r;
-- an instant too far from the start to subtract is outside too
SELECT reckon_windows(-9223372036854775807, 1, 'h', ts, id) FROM r;
-- reckon_windows keeps the last row's window: rows in time order, backwards
-- and back and forth, at the first and the last microsecond of one-minute
-- windows, give each window what reckon_window gives its rows alone
CREATE TEMP TABLE o (id int, ts timestamptz, shuffle int);
INSERT INTO o
SELECT g, timestamptz '2026-03-02 00:00:00+00' + (g / 2) * interval '1 minute' + (g % 2) * interval '59.999999 seconds',
       (g * 5) % 12
FROM generate_series(0, 11) g;
SELECT w.d AS in_time_order,
       w.d = (SELECT reckon_windows(1772409600000000, 60000000, 'h', ts, id ORDER BY ts DESC) FROM o) AS backwards,
       w.d = (SELECT reckon_windows(1772409600000000, 60000000, 'h', ts, id ORDER BY shuffle) FROM o) AS back_and_forth,
       w.d = (SELECT array_agg(ARRAY[k::text] || d ORDER BY k)
              FROM (SELECT floor(extract(epoch FROM ts - timestamptz '2026-03-02 00:00:00+00') / 60)::int k,
                           reckon_window('h', id) d
                    FROM o GROUP BY 1) g) AS each_alone
FROM (SELECT reckon_windows(1772409600000000, 60000000, 'h', ts, id ORDER BY ts) d FROM o) w;
