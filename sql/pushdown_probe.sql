-- Where the reckon extension's functions are (reckon check --pushdown): the
-- schema of reckon_pushdown_version(), preferring one on the search_path,
-- and whether reckon_window (extension version 1.1), reckon_windows (1.2)
-- and reckon_key_hash (1.3) are there too.
-- No row: the extension is not installed in this database.
SELECT n.nspname,
       EXISTS (SELECT 1 FROM pg_catalog.pg_proc w
               WHERE w.proname = 'reckon_window' AND w.pronamespace = n.oid) AS has_window,
       EXISTS (SELECT 1 FROM pg_catalog.pg_proc w
               WHERE w.proname = 'reckon_windows' AND w.pronamespace = n.oid) AS has_windows,
       EXISTS (SELECT 1 FROM pg_catalog.pg_proc w
               WHERE w.proname = 'reckon_key_hash' AND w.pronamespace = n.oid) AS has_key_hash
FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE p.proname = 'reckon_pushdown_version'
  AND p.pronargs = 0
ORDER BY pg_catalog.pg_function_is_visible(p.oid) DESC, n.nspname
LIMIT 1;
