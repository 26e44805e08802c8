-- Where the reckon extension's functions are (reckon check --pushdown): the
-- schema of reckon_pushdown_version(), preferring one on the search_path.
-- No row: the extension is not installed in this database.
SELECT n.nspname
FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE p.proname = 'reckon_pushdown_version'
  AND p.pronargs = 0
ORDER BY pg_catalog.pg_function_is_visible(p.oid) DESC, n.nspname
LIMIT 1;
