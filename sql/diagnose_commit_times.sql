-- The commit time of the transaction that wrote the source row of each key
-- (pg_xact_commit_timestamp of its xmin; track_commit_timestamp = on): how
-- late a missing row became visible.  The keys are bound as one text[] per
-- key column ($1, $2, ...), each value cast to its column's type, so the
-- key's index serves the join; then, where the time column has a time type,
-- the span of each key's source copies (two arrays of that type, matched in
-- key_match), so that the time index serves it when no index serves the key
-- and a key the source holds at other times too is not confused with these
-- rows.  NULL: no row, or no commit time kept.  Beside it the transaction
-- (xmin) of the row that committed last, for rk_sql_diagnose_xact_rows.
-- psql -v source_table='mart.orders' \
--      -v keys='unnest($1::text[]) WITH ORDINALITY AS k(reckon_k1, reckon_n)' \
--      -v key_match='"order_id" = k.reckon_k1::integer' -f sql/diagnose_commit_times.sql
SELECT k.reckon_n, max(pg_catalog.pg_xact_commit_timestamp(reckon_t.xmin)),
       (pg_catalog.array_agg(reckon_t.xmin ORDER BY pg_catalog.pg_xact_commit_timestamp(reckon_t.xmin)
                             DESC NULLS LAST))[1]
FROM :keys
JOIN :source_table AS reckon_t ON :key_match
GROUP BY k.reckon_n;
