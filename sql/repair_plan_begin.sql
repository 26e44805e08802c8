-- Dry run: counts one interval's plan in one snapshot (committed, so the
-- rows it marks in reckon_repair_gone stay marked for the next interval).
BEGIN ISOLATION LEVEL REPEATABLE READ;
