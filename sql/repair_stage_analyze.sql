-- Temporary tables are never auto-analyzed: without statistics the planner
-- would guess the size of the keyed delete's join.
ANALYZE reckon_repair_rows;
