-- After a pushdown digest statement over leaf partitions: the setting again.
SET LOCAL constraint_exclusion TO DEFAULT;
