-- Before a pushdown digest query: the planner cannot know how few windows
-- the GROUP BY makes (it estimates from the time column's distinct values),
-- and would sort every row to group them; hashing a few thousand groups is
-- always the better plan.  Undone by pushdown_plan_reset.sql (or by the
-- rollback to the scan savepoint when the query fails).
SET LOCAL enable_sort = off;
