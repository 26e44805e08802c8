-- Temporary tables are never auto-analyzed: without statistics the planner
-- guesses thousands of rows in each, and joins the pair's few rows to the
-- target by hashing every target row of the interval, where looking each
-- one up by its ctid is all it takes.
ANALYZE reckon_repair_pair, reckon_repair_rows, reckon_repair_want;
