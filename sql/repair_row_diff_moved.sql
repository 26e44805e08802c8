-- A key the source holds in the interval that no row inside it holds, but
-- one of the pair's rows outside it (or without a time) does: that row
-- moved, and is updated in place rather than a copy inserted beside it.
-- One such row per key; its other copies are its own window's business.
-- $1 = interval start, $2 = interval end
-- psql -v target_table=mart.orders -v t_time='t.created_at' -v t_keys='t.order_id, t.line_no' \
--      -v s_keys='s.order_id, s.line_no' -f sql/repair_row_diff_moved.sql
INSERT INTO reckon_repair_diff (relid, row_id, act, "reckon.key", "reckon.time")
SELECT DISTINCT ON (ROW(:t_keys)::text) p.relid, p.row_id, 'm', ROW(:t_keys)::text, :t_time
FROM reckon_repair_pair AS p
JOIN :target_table AS t ON t.tableoid = p.relid AND t.ctid = p.row_id
JOIN reckon_repair_rows AS s ON (:s_keys) = (:t_keys)
WHERE NOT coalesce(:t_time >= $1::timestamptz AND :t_time < $2::timestamptz, false)
  AND NOT EXISTS (SELECT FROM reckon_repair_diff AS d
                  WHERE d.act IN ('k', 'u') AND d."reckon.key" = ROW(:t_keys)::text)
ORDER BY ROW(:t_keys)::text, p.relid, p.row_id;
