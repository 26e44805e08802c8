-- After a pushdown digest query: the planner settings of the session again.
SET LOCAL enable_sort TO DEFAULT;
