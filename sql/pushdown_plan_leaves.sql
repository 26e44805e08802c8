-- Before a pushdown digest statement that names each leaf partition: a
-- leaf queried by its own name is skipped by the planner only when its
-- partition bounds are checked against the WHERE clause, which takes
-- constraint_exclusion = on.  Undone by pushdown_plan_leaves_reset.sql (or
-- by the rollback to the scan savepoint when the statement fails).
SET LOCAL constraint_exclusion = on;
