-- Leaves the target as it was: a dry run, or an interval that failed.
ROLLBACK;
