-- The pair's rows of a finding key inside [start, end): per key, the copy
-- that matches the staged source row (else the first) is kept or updated;
-- the other copies, and every row whose key the source does not hold in
-- the interval, are deleted.  Only the columns an update can write are
-- compared, as text (a json column has no "=").
-- $1 = interval start, $2 = interval end
-- psql -v target_table=mart.orders -v t_time='t.created_at' -v t_keys='t.order_id, t.line_no' \
--      -v s_keys='s.order_id, s.line_no' -v same='true' -f sql/repair_row_diff_inside.sql
INSERT INTO reckon_repair_diff (relid, row_id, act, "reckon.key", "reckon.time")
SELECT relid, row_id,
       CASE WHEN NOT has_source OR copy > 1 THEN 'd' WHEN same THEN 'k' ELSE 'u' END,
       "reckon.key", "reckon.time"
FROM (SELECT p.relid, p.row_id, ROW(:t_keys)::text AS "reckon.key", :t_time AS "reckon.time",
             s.ctid IS NOT NULL AS has_source, :same AS same,
             row_number() OVER (PARTITION BY :t_keys ORDER BY :same DESC, p.relid, p.row_id) AS copy
      FROM reckon_repair_pair AS p
      JOIN :target_table AS t ON t.tableoid = p.relid AND t.ctid = p.row_id
      LEFT JOIN reckon_repair_rows AS s ON (:s_keys) = (:t_keys)
      WHERE :t_time >= $1::timestamptz AND :t_time < $2::timestamptz) AS x;
