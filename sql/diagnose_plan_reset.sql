-- After the commit-times statement: the planner settings again.
SET LOCAL enable_seqscan TO DEFAULT;
SET LOCAL jit TO DEFAULT;
