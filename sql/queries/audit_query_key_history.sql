-- On-call: the history of one key.  Every run that checked a window in which
-- the key was ever found, with what that run found for the key there (or
-- that it found nothing: the key was in order, or the window was still
-- open).  The key is the JSON array of its column values as text, in --key
-- order, null for NULL (reckon.finding.key).
--   psql -v key='["3", "2"]' -f sql/audit_query_key_history.sql
WITH kw AS (
	SELECT DISTINCT r.target, f.window_start, f.window_end
	FROM reckon.finding f JOIN reckon.run r USING (run_id)
	WHERE f.key = :'key'::jsonb
)
SELECT r.target_table, r.run_id, r.started_at, w.window_start, w.window_end, w.status AS window_status,
       CASE WHEN f.kind IS NOT NULL THEN f.kind
            WHEN w.status = 'open' THEN '(window open)'
            ELSE '(no finding)' END AS finding,
       f.source_copies, f.target_copies, f.source_time, r.target
FROM kw
JOIN reckon.run r ON r.target = kw.target
JOIN reckon.window w ON w.run_id = r.run_id AND w.window_start = kw.window_start AND w.window_end = kw.window_end
LEFT JOIN reckon.finding f ON f.run_id = w.run_id AND f.window_start = w.window_start AND f.key = :'key'::jsonb
ORDER BY r.target_table, r.target, r.started_at, r.run_id, w.window_start, f.kind;
