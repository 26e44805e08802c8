-- How many source rows, up to a cap, the transaction $1[i] (an xmin the
-- commit times gave) wrote with a time in [$2[i], $3[i]], within the side's
-- row filter: whether a missing row's transaction also wrote rows just
-- before it in time (its window and the one before) that arrived (then the
-- load read that transaction, and the row is no late commit).  The time
-- column's index finds the span; the cap (the span's missing rows of that
-- transaction, plus one) ends the scan as soon as the answer is known.
-- psql -v source_table='mart.orders' -v time_column='"updated_at"' -v filter='true' \
--      -f sql/diagnose_xact_rows.sql
SELECT k.reckon_n,
       (SELECT pg_catalog.count(*)
        FROM (SELECT FROM :source_table
              WHERE xmin = k.reckon_x
                AND (:time_column) >= k.reckon_lo AND (:time_column) <= k.reckon_hi
                AND :filter
              LIMIT k.reckon_cap) AS reckon_r)
FROM unnest($1::pg_catalog.xid[], $2::pg_catalog.timestamptz[], $3::pg_catalog.timestamptz[],
            $4::pg_catalog.int8[]) WITH ORDINALITY AS k(reckon_x, reckon_lo, reckon_hi, reckon_cap, reckon_n);
