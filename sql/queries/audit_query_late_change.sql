-- On-call: which windows matched in the previous run and differ in the newest
-- one?  A closed window that matched and then differs changed after it was
-- checked: typically a late commit on the source (its row count grew) or a
-- write into the target outside the load.  Compares, per checked target and
-- window, the newest run that covered it with the run before.
--   psql -f sql/audit_query_late_change.sql
WITH h AS (
	SELECT r.target, r.target_table, w.window_start, w.window_end, w.status,
	       r.run_id, r.started_at, w.source_rows, w.target_rows,
	       w.missing, w.extra, w.duplicated, w.changed, w.source_duplicate,
	       lag(w.status) OVER win AS prev_status,
	       lag(r.run_id) OVER win AS prev_run_id,
	       lag(r.started_at) OVER win AS prev_started_at,
	       lag(w.source_rows) OVER win AS prev_source_rows,
	       lag(w.target_rows) OVER win AS prev_target_rows,
	       row_number() OVER (PARTITION BY r.target, w.window_start, w.window_end
	                          ORDER BY r.started_at DESC, r.run_id DESC) AS newest
	FROM reckon.run r JOIN reckon.window w USING (run_id)
	WINDOW win AS (PARTITION BY r.target, w.window_start, w.window_end ORDER BY r.started_at, r.run_id)
)
SELECT target_table, window_start, window_end,
       prev_run_id AS matched_run, prev_started_at AS matched_at,
       run_id AS differ_run, started_at AS differ_at,
       prev_source_rows, source_rows, prev_target_rows, target_rows,
       missing, extra, duplicated, changed, source_duplicate, target
FROM h
WHERE newest = 1 AND status = 'differ' AND prev_status = 'match'
ORDER BY target_table, target, window_start, window_end;
