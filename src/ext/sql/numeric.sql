-- Numerics of up to 4 base-10000 digits are encoded in integer arithmetic,
-- longer ones as a digit string (src/ext/reckon.c, rkx_enc_numeric): both
-- against PostgreSQL's own text of the same values (trim_scale: numeric_out
-- without trailing zeros, digest.md's canonical numeric), and their exact
-- sum in reckon_window against sum(), over 40,000 values of random scale
-- and magnitude (half of them short) and the powers of ten either side of
-- the point.  Also the canonical texts of edge values.
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET extra_float_digits = 3;
SET IntervalStyle = postgres;
SET bytea_output = hex;
SET lc_monetary = 'C';

SELECT setseed(0.25);
CREATE TEMP TABLE v AS
SELECT g AS id, round(((random() - 0.5) * 10 ^ (random() * 40 - 20))::numeric, (random() * 30)::int) AS x
FROM generate_series(1, 20000) g
UNION ALL SELECT 20000 + g, round(((random() - 0.5) * 10 ^ (random() * 12 - 4))::numeric, (random() * 6)::int)
FROM generate_series(1, 20000) g
UNION ALL SELECT 40000 + g, (CASE WHEN g % 2 = 0 THEN -1 ELSE 1 END) * 10::numeric ^ (g - 45)
FROM generate_series(1, 90) g
UNION ALL SELECT 40100 + g, round(g * 1.7::numeric ^ g, g % 7) FROM generate_series(1, 80) g;

SELECT count(*) AS values,
       count(*) FILTER (WHERE convert_from(substring(reckon_row_encoding(x) FROM 6), 'UTF8') <> trim_scale(x)::text)
       AS encoded_otherwise
FROM v;
-- the sums of the values whose sum fits 128 bits (the others' is
-- "overflow", as streaming's), in 97 groups
SELECT count(*) AS groups, count(*) FILTER (WHERE NOT same) AS summed_otherwise
FROM (SELECT (reckon_window('hb', id, x))[3] = trim_scale(sum(x))::text AS same
      FROM v WHERE id > 20000 AND id NOT BETWEEN 40001 AND 40090 GROUP BY id % 97) s;

-- canonical texts (digest.md): integers, numerics, booleans
SELECT x, convert_from(substring(reckon_row_encoding(x) FROM 6), 'UTF8') AS canonical
FROM (VALUES ('-0'::numeric), (0.000), (-0.00::numeric(5,2)), ('NaN'), ('Infinity'), ('-Infinity'), (-1.500),
             (100000), (0.00010), (1234567890.12::numeric(12,2)), (-1e-3), (1e21), ('1e-20')) n(x);
SELECT convert_from(substring(reckon_row_encoding((-32768)::int2) FROM 6), 'UTF8') AS int2_min,
       convert_from(substring(reckon_row_encoding((-2147483648)::int4) FROM 6), 'UTF8') AS int4_min,
       convert_from(substring(reckon_row_encoding((-9223372036854775808)::int8) FROM 6), 'UTF8') AS int8_min,
       convert_from(substring(reckon_row_encoding(true) FROM 6), 'UTF8') AS t,
       convert_from(substring(reckon_row_encoding(false) FROM 6), 'UTF8') AS f;
SELECT reckon_row_encoding(''::text), reckon_row_encoding(null::int2, 1::int2);
