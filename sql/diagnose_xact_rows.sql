-- How many source rows, up to a cap, the transaction $1[i] (an xmin the
-- commit times gave) wrote with a time in [$2[i], $3[i]], within the side's
-- row filter: whether a missing row's transaction also wrote rows just
-- before it in time (its window and the one before) that arrived (then the
-- load read that transaction, and the row is no late commit).
--
-- The candidates of one transaction and one span start ($1[i], $2[i]) -
-- all the missing rows of a gap that one transaction wrote in one window -
-- differ only in where their span ends, so their spans nest: the table is
-- read once for the group, not once for each of them (which is quadratic
-- in the gap).  That read takes the transaction's rows in time order, from
-- the start up to the group's last end, by the time column's index, and
-- stops at the group's largest cap: each candidate's answer is then the
-- count of those rows at or before its own end, up to its own cap, which
-- is exact (were the read cut before a candidate's end, it holds the
-- largest cap of rows there, at least that candidate's cap).  A candidate's
-- cap is the span's missing rows of that transaction plus one, so the read
-- ends as soon as the answers are known.
-- psql -v source_table='mart.orders' -v time_column='"updated_at"' -v filter='true' \
--      -f sql/diagnose_xact_rows.sql
WITH reckon_k AS (
    SELECT * FROM unnest($1::pg_catalog.int8[], $2::pg_catalog.timestamptz[], $3::pg_catalog.timestamptz[],
                         $4::pg_catalog.int8[]) WITH ORDINALITY AS k(reckon_x, reckon_lo, reckon_hi, reckon_cap, reckon_n)
), reckon_g AS (
    SELECT reckon_x, reckon_lo, pg_catalog.max(reckon_hi) AS reckon_hi, pg_catalog.max(reckon_cap) AS reckon_cap
    FROM reckon_k
    GROUP BY reckon_x, reckon_lo
), reckon_m AS (
    SELECT g.reckon_x, g.reckon_lo, r.reckon_t, NULL::pg_catalog.int8 AS reckon_n, NULL::pg_catalog.int8 AS reckon_cap
    FROM reckon_g AS g
    CROSS JOIN LATERAL (SELECT (:time_column)::pg_catalog.timestamptz AS reckon_t
                        FROM :source_table
                        WHERE xmin = g.reckon_x::pg_catalog.text::pg_catalog.xid
                          AND (:time_column) >= g.reckon_lo AND (:time_column) <= g.reckon_hi
                          AND :filter
                        ORDER BY (:time_column)
                        LIMIT g.reckon_cap) AS r
    UNION ALL
    SELECT reckon_x, reckon_lo, reckon_hi, reckon_n, reckon_cap FROM reckon_k
)
SELECT reckon_n, LEAST(reckon_cap, reckon_c)
FROM (SELECT reckon_n, reckon_cap,
             pg_catalog.count(*) FILTER (WHERE reckon_n IS NULL)
                 OVER (PARTITION BY reckon_x, reckon_lo ORDER BY reckon_t, reckon_n NULLS FIRST
                       ROWS UNBOUNDED PRECEDING) AS reckon_c
      FROM reckon_m) AS reckon_w
WHERE reckon_n IS NOT NULL;
