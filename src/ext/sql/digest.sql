-- Row hashes, row encodings and window digests against the worked example
-- of docs/digest.md section 4, and reckon_hash_sum adding the digests of
-- parts into the digest of their rows.
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';
SET extra_float_digits = 3;
SET IntervalStyle = postgres;
SET bytea_output = hex;
SET lc_monetary = 'C';

SELECT reckon_row_hash(42, timestamptz '2026-03-02 10:58:00+00', 12.50, null::text) = '5d73ea65bfe6913f5a5763d487edf87c' AS row_42,
       reckon_row_hash(43, timestamptz '2026-03-02 10:59:30.25+00', -0.50, 'hi'::text) = 'd71dbc5fb7be96f73e39f6e61d354c86' AS row_43;
SELECT reckon_row_encoding(42, timestamptz '2026-03-02 10:58:00+00', 12.50, null::text);

CREATE TEMP TABLE r (id int, ts timestamptz, amount numeric, note text);
INSERT INTO r VALUES (42, '2026-03-02 10:58:00+00', 12.50, null), (43, '2026-03-02 10:59:30.25+00', -0.50, 'hi');
-- the window of the two rows, and with row 43 twice (a multiset)
SELECT reckon_digest(id, ts, amount, note) FROM r;
SELECT reckon_digest(id, ts, amount, note) FROM (SELECT * FROM r UNION ALL SELECT * FROM r WHERE id = 43) x;

-- the digests of parts add up to the digest of all their rows
CREATE TEMP TABLE parts AS
SELECT g AS id, timestamptz '2026-03-01 00:00:00+00' + g * interval '7 minutes' AS ts,
       (g * 3.25)::numeric(12,2) AS amount, CASE WHEN g % 5 = 0 THEN NULL ELSE 'note ' || g END AS note
FROM generate_series(1, 600) g;
SELECT (SELECT reckon_digest(id, ts, amount, note) FROM parts) =
       (SELECT reckon_hash_sum(h) FROM (SELECT id % 3, reckon_digest(id, ts, amount, note) h FROM parts GROUP BY 1) p)
       AS sum_of_parts;
-- no rows: the zero hash
SELECT reckon_hash_sum(null::text), reckon_hash_sum(h) FROM (SELECT ''::text h WHERE false) x;
-- what is not a window hash
SELECT reckon_hash_sum('abc');
