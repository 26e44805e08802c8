-- Temporary tables are never auto-analyzed.
ANALYZE reckon_repair_keys;
