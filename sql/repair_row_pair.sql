-- The only statement of a row-level repair that holds the user's
-- --target-where text: a read of the target into a temporary table, with
-- the condition evaluated as one boolean column of a subquery and never
-- spliced beside another condition.  Whatever the text does, the writes
-- that follow bound themselves by the interval and the finding keys
-- outside it.
-- psql -v target_table=mart.orders -v target_filter=true \
--      -v target_keys='mart.orders.order_id, mart.orders.line_no' \
--      -v keys='order_id, line_no' -f sql/repair_row_pair.sql
INSERT INTO reckon_repair_pair (relid, row_id)
SELECT f.relid, f.row_id
FROM (SELECT tableoid AS relid, ctid AS row_id, :target_filter AS "reckon.pair"
      FROM :target_table
      WHERE (:target_keys) IN (SELECT :keys FROM reckon_repair_want)) AS f
WHERE f."reckon.pair" IS TRUE;
