-- After the commit-times statement: the planner setting again.
SET LOCAL enable_seqscan TO DEFAULT;
