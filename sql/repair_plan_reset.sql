-- Dry run, --replace-interval: of the target rows the interval's plan
-- marks deleted, those whose key the source's rows of the interval insert
-- again - the rows whose target-only columns (batch_id, loaded_at,
-- lineage; a surrogate identity) the repair resets to their defaults.
-- How many, and up to three of their keys.  $1 = interval start
-- psql -v target_table=mart.orders -v keys='order_id, line_no' \
--      -v target_keys='mart.orders.order_id, mart.orders.line_no' -f sql/repair_plan_reset.sql
SELECT count(*), string_agg(k, ' ' ORDER BY n) FILTER (WHERE n <= 3)
FROM (SELECT ROW(:target_keys)::text AS k, row_number() OVER (ORDER BY :target_keys) AS n
      FROM :target_table
      JOIN reckon_repair_gone AS g ON g.relid = :target_table.tableoid AND g.row_id = :target_table.ctid
      WHERE g."reckon.interval" = $1::timestamptz
        AND (:target_keys) IN (SELECT :keys FROM reckon_repair_rows WHERE "reckon.interval" = $1::timestamptz)) AS x;
