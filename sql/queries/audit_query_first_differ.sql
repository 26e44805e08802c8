-- On-call: when did the window holding an instant first differ?  One row per
-- checked target and window width: the first run that found the window
-- differing, the last run before it that found it matching (the damage
-- happened in between), and what the newest run says now.
--   psql -v at=2026-03-02T00:35:00Z -f sql/audit_query_first_differ.sql
SELECT DISTINCT ON (r.target, w.window_start, w.window_end)
       r.target_table, w.window_start, w.window_end,
       r.run_id AS first_differ_run, r.started_at AS first_differ_at,
       w.source_rows, w.target_rows, w.missing, w.extra, w.duplicated, w.changed, w.source_duplicate,
       before.run_id AS last_match_run, before.started_at AS last_match_at,
       latest.status AS status_now, latest.started_at AS status_now_at,
       r.target
FROM reckon.window w
JOIN reckon.run r USING (run_id)
LEFT JOIN LATERAL (
	SELECT r2.run_id, r2.started_at
	FROM reckon.window w2 JOIN reckon.run r2 USING (run_id)
	WHERE r2.target = r.target AND w2.window_start = w.window_start AND w2.window_end = w.window_end
	  AND w2.status = 'match' AND (r2.started_at, r2.run_id) < (r.started_at, r.run_id)
	ORDER BY r2.started_at DESC, r2.run_id DESC
	LIMIT 1) before ON true
LEFT JOIN LATERAL (
	SELECT w3.status, r3.started_at
	FROM reckon.window w3 JOIN reckon.run r3 USING (run_id)
	WHERE r3.target = r.target AND w3.window_start = w.window_start AND w3.window_end = w.window_end
	ORDER BY r3.started_at DESC, r3.run_id DESC
	LIMIT 1) latest ON true
WHERE w.window_start <= :'at'::timestamptz AND w.window_end > :'at'::timestamptz
  AND w.status = 'differ'
ORDER BY r.target, w.window_start, w.window_end, r.started_at, r.run_id;
