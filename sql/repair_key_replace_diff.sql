-- A key segment replaced whole (--replace-interval): every row of the pair
-- in the segment is deleted, every staged source row of it inserted; the
-- keys of both are the keys the writes may touch (reckon_repair_want).
-- (The statements of a WITH all run, whatever the last one reads.)
-- psql -v target_table=dim.customer -v t_keys='t.customer_id' -v s_keys='s.customer_id' \
--      -f sql/repair_key_replace_diff.sql
WITH gone AS (
	INSERT INTO reckon_repair_diff (relid, row_id, act, "reckon.key")
	SELECT p.relid, p.row_id, 'd', ROW(:t_keys)::text
	FROM reckon_repair_pair AS p
	JOIN :target_table AS t ON t.tableoid = p.relid AND t.ctid = p.row_id
), added AS (
	INSERT INTO reckon_repair_diff (relid, row_id, act, "reckon.key")
	SELECT 0, s.ctid, 'i', ROW(:s_keys)::text
	FROM reckon_repair_rows AS s
)
INSERT INTO reckon_repair_want
SELECT :t_keys
FROM reckon_repair_pair AS p
JOIN :target_table AS t ON t.tableoid = p.relid AND t.ctid = p.row_id
UNION
SELECT :s_keys
FROM reckon_repair_rows AS s;
