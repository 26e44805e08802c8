-- A key segment replaced whole (--replace-interval): the target rows of the
-- pair (those --target-where selects) in the segment's key range, read into
-- a temporary table.  The only statement of the replacement that holds the
-- user's filter text, evaluated as one boolean column of a subquery; the
-- range is applied here, outside it, and again by every write.
-- $1, $2 = the segment's bounds (NULL: an open end)
-- psql -v target_table=dim.customer -v target_filter=true \
--      -v t_range='(($1::pg_catalog.int8 IS NULL OR t.customer_id >= $1::pg_catalog.int8) AND ($2::pg_catalog.int8 IS NULL OR t.customer_id < $2::pg_catalog.int8))' \
--      -f sql/repair_key_pair_range.sql
INSERT INTO reckon_repair_pair (relid, row_id)
SELECT f.relid, f.row_id
FROM (SELECT t.tableoid AS relid, t.ctid AS row_id, :target_filter AS "reckon.pair"
      FROM :target_table AS t
      WHERE :t_range) AS f
WHERE f."reckon.pair" IS TRUE;
