-- On-call: which windows differed in the runs of the last N days (nights)?
-- One row per checked target and window: how many of those runs found it
-- differing, when first and last, the most keys of each kind any of them
-- found, and what the newest run of that window says now.
--   psql -v days=7 -f sql/audit_query_recent_differ.sql
SELECT d.target_table, d.window_start, d.window_end, d.runs_differ, d.first_seen, d.last_seen,
       d.missing, d.extra, d.duplicated, d.changed, d.source_duplicate,
       latest.status AS status_now, latest.started_at AS status_now_at, d.target
FROM (
	SELECT r.target, r.target_table, w.window_start, w.window_end,
	       count(*) AS runs_differ, min(r.started_at) AS first_seen, max(r.started_at) AS last_seen,
	       max(w.missing) AS missing, max(w.extra) AS extra, max(w.duplicated) AS duplicated,
	       max(w.changed) AS changed, max(w.source_duplicate) AS source_duplicate
	FROM reckon.run r JOIN reckon.window w USING (run_id)
	WHERE r.started_at >= now() - make_interval(days => :days)
	  AND w.status = 'differ'
	GROUP BY r.target, r.target_table, w.window_start, w.window_end) d
LEFT JOIN LATERAL (
	SELECT w2.status, r2.started_at
	FROM reckon.window w2 JOIN reckon.run r2 USING (run_id)
	WHERE r2.target = d.target AND w2.window_start = d.window_start AND w2.window_end = d.window_end
	ORDER BY r2.started_at DESC, r2.run_id DESC
	LIMIT 1) latest ON true
ORDER BY d.target_table, d.target, d.window_start, d.window_end;
