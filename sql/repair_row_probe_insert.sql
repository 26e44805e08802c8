-- Dry run: the rows the interval's repair would insert, into the probe
-- (sql/repair_row_probe_create.sql): the columns repair writes, the
-- others at their defaults.
-- psql -v columns='order_id, created_at' -v s_columns='s.order_id, s.created_at' -f sql/repair_row_probe_insert.sql
INSERT INTO reckon_repair_probe (:columns)
SELECT :s_columns
FROM reckon_repair_rows AS s
JOIN reckon_repair_diff AS d ON d.relid = 0 AND d.row_id = s.ctid AND d.act = 'i';
