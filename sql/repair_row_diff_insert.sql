-- The staged source rows of a finding key that no target row of the pair
-- holds (in the interval or moved in): inserted.  A key with a NULL part
-- matches nothing by "=", so it is never inserted (repair would add a copy
-- on every run): --replace-interval repairs it.
-- psql -v s_keys='s.order_id, s.line_no' -v keys='order_id, line_no' -f sql/repair_row_diff_insert.sql
INSERT INTO reckon_repair_diff (relid, row_id, act, "reckon.key")
SELECT 0, s.ctid, 'i', ROW(:s_keys)::text
FROM reckon_repair_rows AS s
WHERE ROW(:s_keys) IS NOT NULL
  AND (:s_keys) IN (SELECT :keys FROM reckon_repair_want)
  AND NOT EXISTS (SELECT FROM reckon_repair_diff AS d
                  WHERE d.act IN ('k', 'u', 'm') AND d."reckon.key" = ROW(:s_keys)::text);
